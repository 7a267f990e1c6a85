import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

import type { JsonValue } from '@baton/protocol';

import type { ScriptResult } from '../engine/scripts.js';
import type { JqAnswer, JqRequest } from './jq-worker.js';
import type { ScriptLimits } from './limits.js';

/** How long a fresh jq thread may take to load before its first answer (on top of the time cap). */
const START_BUDGET_MS = 10_000;

interface JqThread {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly signal: Int32Array;
  /** Set once the thread has answered: later calls wait only the time cap. */
  started: boolean;
}

/**
 * Real jq, called synchronously: the filter runs on a worker thread (`jq-worker.ts`) while the
 * caller waits on a shared flag for at most the time cap, then reads the answer from its port
 * without going through the event loop. A filter that runs past the cap (jq has no interrupt)
 * ends its thread; a new thread takes over. The caller is blocked for at most the cap, as with
 * JavaScript, and the server goes on.
 */
export class JqRunner {
  private thread: JqThread;
  private nextId = 1;

  private constructor(private readonly limits: ScriptLimits) {
    this.thread = spawn(limits);
  }

  /** Starts the jq thread and waits until it answers. */
  static async start(limits: ScriptLimits): Promise<JqRunner> {
    const runner = new JqRunner(limits);
    const probe = runner.run('.', null);
    if (!probe.ok) {
      await runner.close();
      throw new Error(`jq could not start: ${probe.error}`);
    }
    return runner;
  }

  /** Every value the filter produces for `input`, in order. */
  run(filter: string, input: JsonValue): ScriptResult<JsonValue[]> {
    const answer = this.call(filter, JSON.stringify(input));
    if (!answer.ok) return answer;
    return { ok: true, value: answer.values.map((line) => JSON.parse(line) as JsonValue) };
  }

  /** Registration check: why the filter does not compile, or undefined. */
  check(filter: string): string | undefined {
    // `null` as input: a filter that compiles may still fail on it, which says nothing of the filter.
    const answer = this.call(`(${filter}\n) | empty`, 'null');
    if (answer.ok || !/compile error|syntax error|is not defined/.test(answer.error)) return undefined;
    const direct = this.call(filter, 'null');
    return direct.ok ? undefined : direct.error;
  }

  async close(): Promise<void> {
    this.thread.port.close();
    await this.thread.worker.terminate();
  }

  private call(filter: string, input: string): { ok: true; values: string[] } | { ok: false; error: string } {
    const thread = this.thread;
    const id = this.nextId++;
    Atomics.store(thread.signal, 0, 0);
    const request: JqRequest = { id, filter, input };
    thread.worker.postMessage(request);
    const budget = this.limits.timeoutMs + (thread.started ? 0 : START_BUDGET_MS);
    const waited = Atomics.wait(thread.signal, 0, 0, budget);
    if (waited === 'timed-out') {
      this.replaceThread();
      return { ok: false, error: `jq filter exceeded its time limit of ${this.limits.timeoutMs} ms` };
    }
    // Answers of earlier, abandoned calls cannot be here (their thread was replaced): take ours.
    for (;;) {
      const received = receiveMessageOnPort(thread.port);
      if (!received) {
        this.replaceThread();
        return { ok: false, error: 'jq answered nothing' };
      }
      const answer = received.message as JqAnswer;
      if (answer.id !== id) continue;
      thread.started = true;
      if (answer.ok) return { ok: true, values: answer.values };
      // A trap (a filter nesting past jq's stack, say) leaves the module's memory unusable: every
      // later filter on this thread would fail, so a fresh thread takes over.
      if (answer.broken) this.replaceThread();
      return { ok: false, error: answer.error };
    }
  }

  private replaceThread(): void {
    const old = this.thread;
    old.port.close();
    void old.worker.terminate();
    this.thread = spawn(this.limits);
  }
}

function spawn(limits: ScriptLimits): JqThread {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL('./jq-worker.js', import.meta.url), {
    workerData: { signal, port: port2 },
    transferList: [port2],
    // The thread's JavaScript heap; jq's own WebAssembly memory is bounded by the time cap.
    resourceLimits: { maxOldGenerationSizeMb: Math.max(64, limits.memoryMb * 2) },
    stdout: false,
    stderr: false,
  });
  // An idle jq thread must not keep the process alive, nor its failure crash the server.
  worker.unref();
  worker.on('error', () => {});
  return { worker, port: port1, signal, started: false };
}
