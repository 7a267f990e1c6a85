import { parentPort, workerData } from 'node:worker_threads';

import type { JsonValue } from '@baton/protocol';

import type { ScriptResult } from '../engine/scripts.js';
import { loadInThreadScripts } from './in-thread-scripts.js';
import type { ScriptLimits } from './limits.js';

/**
 * A script thread: QuickJS and jq, one evaluation at a time, for the pool in `script-pool.ts`.
 * The thread has a hard heap cap (`resourceLimits`) and the server ends it at an evaluation's
 * deadline, so a runaway script costs this thread, never the server's event loop or process.
 */

export type ScriptOperation = 'javascript' | 'jq' | 'checkJavascript' | 'checkJq';

export interface ScriptRequest {
  readonly id: number;
  readonly op: ScriptOperation;
  readonly source: string;
  readonly input: JsonValue;
}

/** An evaluation's result, or a registration check's problem (undefined: none). */
export type ScriptOutcome = ScriptResult<JsonValue> | { readonly problem: string | undefined };

export type ScriptAnswer =
  | { readonly ready: true }
  | {
      readonly id: number;
      readonly result: ScriptOutcome;
      /** jq trapped: this thread is of no further use and is replaced. */
      readonly broken: boolean;
    };

const port = parentPort;
if (!port) throw new Error('script-worker.ts runs only as a worker thread');
const scripts = await loadInThreadScripts(workerData as ScriptLimits);

port.on('message', (request: ScriptRequest) => {
  port.postMessage({
    id: request.id,
    result: evaluate(request),
    broken: scripts.broken,
  } satisfies ScriptAnswer);
});
port.postMessage({ ready: true } satisfies ScriptAnswer);

function evaluate(request: ScriptRequest): ScriptOutcome {
  switch (request.op) {
    case 'javascript':
      return scripts.javascript(request.source, request.input);
    case 'jq':
      return scripts.jq(request.source, request.input);
    case 'checkJavascript':
      return { problem: scripts.checkJavascript(request.source) };
    case 'checkJq':
      return { problem: scripts.checkJq(request.source) };
  }
}
