import { createRequire } from 'node:module';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';

/**
 * The jq thread: real jq (the `jq-web` WebAssembly build) behind a synchronous bridge
 * (`jq-runner.ts`). jq has no interrupt of its own, so it runs here, where the server can end
 * a runaway filter by ending the thread. Requests arrive on `parentPort`; each answer goes
 * back on the port the server reads synchronously, then the shared flag is raised.
 */

interface JqModule {
  raw(json: string, filter: string, flags: string[]): string | undefined;
}

export interface JqRequest {
  readonly id: number;
  readonly filter: string;
  /** The input, as JSON text. */
  readonly input: string;
}

export type JqAnswer =
  | { readonly id: number; readonly ok: true; readonly values: string[] }
  | {
      readonly id: number;
      readonly ok: false;
      readonly error: string;
      /** jq's WebAssembly trapped (stack or memory exhausted): its state is lost, the thread is replaced. */
      readonly broken?: true;
    };

interface JqWorkerData {
  readonly signal: Int32Array;
  readonly port: MessagePort;
}

const { signal, port } = workerData as JqWorkerData;
// jq's `$ENV._` shows the program name: give it nothing of the host's.
process.argv[1] = 'jq';
const require = createRequire(import.meta.url);
const ready = require('jq-web') as Promise<JqModule>;

parentPort?.on('message', (request: JqRequest) => {
  void ready.then(
    (jq) => answer(run(jq, request)),
    (error: unknown) => answer({ id: request.id, ok: false, error: `jq could not start: ${String(error)}` }),
  );
});

function run(jq: JqModule, request: JqRequest): JqAnswer {
  try {
    const out = jq.raw(request.input, request.filter, ['-c']) ?? '';
    // With -c every value is one line (strings keep their newlines escaped).
    return { id: request.id, ok: true, values: out.split('\n').filter((line) => line !== '') };
  } catch (error) {
    // WebAssembly.RuntimeError: a trap, not an error jq reported.
    const broken = error instanceof Error && error.name === 'RuntimeError';
    return { id: request.id, ok: false, error: jqReason(error), ...(broken && { broken: true as const }) };
  }
}

function jqReason(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  const text =
    typeof stderr === 'string' && stderr !== ''
      ? stderr
      : error instanceof Error
        ? error.message
        : String(error);
  return (
    text
      .replace(/^Non-zero exit code: \d+\n/, '')
      .replace(/ \(at inputString:\d+\)/g, '')
      .replace(/\s+/g, ' ')
      .trim()
      // Conductor's reason for a failing filter is jq's message alone ('Cannot index string with
      // string "array"'), without the command-line tool's `jq: error: ` prefix.
      .replace(/^jq: error: /, '')
  );
}

function answer(message: JqAnswer): void {
  port.postMessage(message);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
}
