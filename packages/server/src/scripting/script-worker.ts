import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

import type { JsonValue } from '@baton/protocol';

import type { ScriptResult } from '../engine/index.js';
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
      /** QuickJS or jq was left unusable: this thread is of no further use and is replaced. */
      readonly broken: boolean;
    };

const port = parentPort;
if (!port) throw new Error('script-worker.ts runs only as a worker thread');
const limits = workerData as ScriptLimits;
// The event loop comes first: on Linux this lowers this thread's priority only (the process
// and its other threads keep theirs), so a busy script thread cannot starve the server's answers.
// Moderately: at the lowest priority a script on a machine busy with other work could wait for
// a core longer than its whole time cap.
try {
  setPriority(10);
} catch {
  // Not permitted here: the thread keeps the process's priority.
}
/** The largest any WebAssembly memory of this thread has grown to. */
let largestMemoryBytes = 0;
capWebAssemblyMemory(limits.wasmMemoryBytes);
const scripts = await loadInThreadScripts(limits);
// A first evaluation of each engine costs hundreds of milliseconds (the WebAssembly is compiled
// on first use, jq builds its builtins) where later ones take a few: paid here, before the thread
// says it is ready, so no task's time cap (counted from the hand-over) carries it, neither on a
// new server nor on the thread that replaces one ended at a deadline.
scripts.javascript('null', null);
scripts.jq('.', null);

port.on('message', (request: ScriptRequest) => {
  const result = evaluate(request);
  // WebAssembly memory never shrinks: a thread whose memory an evaluation grew past a quarter of
  // the cap is replaced, so the next evaluation gets the whole cap (memory is counted per task).
  const grown = largestMemoryBytes > limits.wasmMemoryBytes / 4;
  port.postMessage({ id: request.id, result, broken: scripts.broken || grown } satisfies ScriptAnswer);
  // Answered: the next evaluation's context is made now, while no one waits for this thread.
  scripts.prepare();
});
scripts.prepare();
port.postMessage({ ready: true } satisfies ScriptAnswer);

/**
 * jq's WebAssembly memory grows as a filter asks, up to 2 GB, and is not part of the thread's
 * heap caps. Emscripten grows it through `WebAssembly.Memory.prototype.grow` and takes a refusal
 * as an allocation failure (jq then fails, or traps and its thread is replaced): refusing growth
 * past the cap here bounds every WebAssembly memory of this thread, and only of this thread.
 */
function capWebAssemblyMemory(maxBytes: number): void {
  // The compiler's libraries here have no WebAssembly types: the part used, described.
  interface Memory {
    readonly buffer: ArrayBuffer;
    grow(delta: number): number;
  }
  const prototype = (globalThis as unknown as { WebAssembly: { Memory: { prototype: Memory } } }).WebAssembly
    .Memory.prototype;
  const grow: unknown = Reflect.get(prototype, 'grow');
  if (typeof grow !== 'function') return;
  prototype.grow = function capped(this: Memory, delta: number): number {
    if (this.buffer.byteLength + delta * 65_536 > maxBytes) {
      throw new RangeError(`WebAssembly memory over its cap of ${maxBytes} bytes`);
    }
    const pages = Reflect.apply(grow, this, [delta]) as number;
    largestMemoryBytes = Math.max(largestMemoryBytes, this.buffer.byteLength);
    return pages;
  };
}

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
