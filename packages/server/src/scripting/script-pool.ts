import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

import type { JsonValue } from '@baton/protocol';

import type { ScriptResult } from '../engine/index.js';
import type { AsyncScriptRunner } from './async-scripts.js';
import { simpleJavascript } from './simple-expression.js';
import type { ScriptLimits } from './limits.js';
import type { ScriptAnswer, ScriptOperation, ScriptOutcome, ScriptRequest } from './script-worker.js';

/** How long a new script thread may take to load QuickJS and jq before it is given up. */
const START_TIMEOUT_MS = 30_000;

/** How long a loaded thread waits for work before it ends and gives its memory back. */
export const SCRIPT_THREAD_IDLE_MS = 5 * 60_000;

interface Job {
  readonly request: ScriptRequest;
  readonly resolve: (outcome: ScriptOutcome) => void;
}

interface Slot {
  readonly worker: Worker;
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
  /** Ends the thread once it has sat without work for the idle time. */
  idleTimer?: NodeJS.Timeout;
  /** Set once the slot is being replaced: late messages and exits of its thread are ignored. */
  gone: boolean;
}

export interface ScriptPoolSettings {
  /** The most threads at once (default: one per core, at least 2, at most 8). */
  readonly size?: number;
  /** How long a thread without work is kept (default `SCRIPT_THREAD_IDLE_MS`). */
  readonly idleMs?: number;
  /** The thread's module (default `script-worker.js`); tests give one that fails to load. */
  readonly threadModule?: URL;
}

/**
 * Scripts and jq filters on a pool of worker threads, one evaluation per thread at a time, so no
 * script runs on the event loop. Each thread has hard heap caps (`resourceLimits`): a script that
 * outgrows them ends its thread, not the process. The time cap is kept here, on the main
 * thread: at an evaluation's deadline its thread is terminated whatever the script does, and
 * the evaluation fails. A thread that ended (time, memory, a jq trap) is replaced by a new one
 * that takes work only once it has loaded, so its first evaluation has exactly the same time
 * cap as any other. Evaluations wait in order for a free thread; the wait is not counted
 * against their cap.
 *
 * Threads are made when evaluations wait for one, up to the pool's size, and end after sitting
 * idle: each holds a JavaScript heap and both WebAssembly runtimes (about 25 to 50 MB), which a
 * node whose workflows run no script should not carry. The first evaluation after a quiet spell
 * waits for a thread to load (about 0.2 s), outside its time cap.
 */
export class ScriptPool implements AsyncScriptRunner {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private made = 0;
  private closed = false;
  private readonly size: number;
  private readonly idleMs: number;
  private readonly threadModule: URL;

  constructor(
    private readonly limits: ScriptLimits,
    settings: ScriptPoolSettings = {},
  ) {
    this.size = Math.max(1, settings.size ?? Math.max(2, Math.min(8, availableParallelism())));
    this.idleMs = settings.idleMs ?? SCRIPT_THREAD_IDLE_MS;
    this.threadModule = settings.threadModule ?? new URL('./script-worker.js', import.meta.url);
  }

  /** How many threads are loading or loaded now (for tests and diagnostics). */
  get threads(): number {
    return this.slots.size;
  }

  /** How many threads were made since the pool was (for tests and diagnostics). */
  get threadsMade(): number {
    return this.made;
  }

  javascript(script: string, input: JsonValue): Promise<ScriptResult<JsonValue>> {
    const now = this.javascriptNow(script, input);
    if (now !== undefined) return Promise.resolve(now);
    return this.submit('javascript', script, input) as Promise<ScriptResult<JsonValue>>;
  }

  /** A simple expression, evaluated here (simple-expression.ts); anything else goes to a thread. */
  javascriptNow(script: string, input: JsonValue): ScriptResult<JsonValue> | undefined {
    return this.closed ? undefined : simpleJavascript(script, input, this.limits);
  }

  jq(filter: string, input: JsonValue): Promise<ScriptResult<JsonValue[]>> {
    return this.submit('jq', filter, input) as Promise<ScriptResult<JsonValue[]>>;
  }

  async checkJavascript(script: string): Promise<string | undefined> {
    return problemOf(await this.submit('checkJavascript', script, null));
  }

  async checkJq(filter: string): Promise<string | undefined> {
    return problemOf(await this.submit('checkJq', filter, null));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.resolve({ ok: false, error: 'the server is stopping' });
    const ending = [...this.slots].map((slot) => this.retire(slot, 'the server is stopping'));
    await Promise.all(ending);
  }

  private submit(op: ScriptOperation, source: string, input: JsonValue): Promise<ScriptOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, error: 'the server is stopping' });
    return new Promise((resolve) => {
      this.queue.push({ request: { id: this.nextId++, op, source, input }, resolve });
      this.pump();
    });
  }

  /**
   * Hands waiting evaluations to loaded, idle threads, then makes threads for those still waiting
   * (as many as are not already loading, up to the pool's size).
   */
  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) break;
      if (!slot.ready || slot.job || slot.gone) continue;
      const job = this.queue.shift() as Job;
      clearTimeout(slot.idleTimer);
      slot.job = job;
      slot.timer = setTimeout(() => this.expire(slot), this.limits.timeoutMs);
      slot.worker.postMessage(job.request);
    }
    let loading = 0;
    for (const slot of this.slots) if (!slot.ready) loading++;
    while (!this.closed && this.slots.size < this.size && loading < this.queue.length) {
      this.spawn();
      loading++;
    }
  }

  /** A loaded thread without work ends after the idle time unless work reaches it first. */
  private idle(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      if (!slot.job && !slot.gone) void this.retire(slot, 'idle');
    }, this.idleMs);
    slot.idleTimer.unref();
  }

  private spawn(): void {
    const worker = new Worker(this.threadModule, {
      workerData: this.limits,
      resourceLimits: {
        // The thread's own JavaScript heap: QuickJS's heap and jq's memory live in WebAssembly
        // memory beside it; what crosses into JavaScript (a script's value as text, its parse)
        // is bounded by the script memory cap and the inline limit.
        // jq's output is gathered 8 bytes a byte, in an array that grows by copying: 24 × the cap.
        maxOldGenerationSizeMb:
          64 + 2 * this.limits.memoryMb + Math.ceil((24 * this.limits.outputMaxBytes) / 2 ** 20),
        maxYoungGenerationSizeMb: 16,
        stackSizeMb: 4,
      },
      // What a thread writes (a runtime's abort notice, say) may carry a script's data: dropped.
      stdout: true,
      stderr: true,
      env: {},
    });
    worker.stdout.resume();
    worker.stderr.resume();
    const slot: Slot = { worker, ready: false, gone: false };
    this.made++;
    this.slots.add(slot);
    // Loading is bounded on its own: a thread that never becomes ready is given up (`replace`).
    slot.timer = setTimeout(() => {
      if (!slot.ready) this.replace(slot, `the script thread did not load within ${START_TIMEOUT_MS} ms`);
    }, START_TIMEOUT_MS);
    slot.timer.unref();
    worker.unref();
    worker.on('message', (message: ScriptAnswer) => this.answered(slot, message));
    worker.on('error', (error: Error) => this.replace(slot, threadFailure(error, this.limits)));
    worker.on('exit', () => this.replace(slot, 'the script thread ended'));
  }

  private answered(slot: Slot, message: ScriptAnswer): void {
    if (slot.gone) return;
    if ('ready' in message) {
      clearTimeout(slot.timer);
      slot.ready = true;
      this.pump();
      if (!slot.job) this.idle(slot);
      return;
    }
    const job = slot.job;
    if (!job || job.request.id !== message.id) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    job.resolve(message.result);
    if (message.broken) this.replace(slot, 'the script thread was left unusable');
    else {
      this.pump();
      if (!slot.job) this.idle(slot);
    }
  }

  /** The deadline passed: the evaluation fails, and its thread is ended whatever it is doing. */
  private expire(slot: Slot): void {
    const job = slot.job;
    if (!job || slot.gone) return;
    const what = job.request.op === 'jq' || job.request.op === 'checkJq' ? 'jq filter' : 'script';
    slot.job = undefined;
    if (job.request.op === 'checkJq' || job.request.op === 'checkJavascript') {
      // A syntax check only compiles; running out of time there says the machine is busy, not that
      // the definition is wrong. Refusing would turn load into 400s for valid definitions, and
      // whatever the text does when it runs is bounded by the same caps then.
      job.resolve({ problem: undefined });
    } else {
      job.resolve({ ok: false, error: `${what} exceeded its time limit of ${this.limits.timeoutMs} ms` });
    }
    this.replace(slot, 'time limit');
  }

  /**
   * Ends a slot's thread (failing its evaluation with `reason`). A loaded thread is replaced at
   * once: the pool is in use. A thread that failed while loading would likely fail again: the
   * evaluations waiting for it fail with the reason unless another thread is alive to take them,
   * and the next evaluation tries a new thread.
   */
  private replace(slot: Slot, reason: string): void {
    if (slot.gone) return;
    void this.retire(slot, reason);
    if (slot.ready) {
      if (!this.closed) this.spawn();
      return;
    }
    if (this.slots.size === 0) {
      const why = `the script threads could not start: ${reason}`;
      for (const job of this.queue.splice(0)) job.resolve({ ok: false, error: why });
    }
  }

  private async retire(slot: Slot, reason: string): Promise<void> {
    slot.gone = true;
    this.slots.delete(slot);
    clearTimeout(slot.timer);
    clearTimeout(slot.idleTimer);
    const job = slot.job;
    slot.job = undefined;
    job?.resolve({ ok: false, error: reason });
    try {
      await slot.worker.terminate();
    } catch {
      // Already ended.
    }
  }
}

function problemOf(outcome: ScriptOutcome): string | undefined {
  if ('problem' in outcome) return outcome.problem;
  // The check itself failed (its thread ran out of memory or broke): the definition is refused for
  // it. A check that ran out of time is answered as passed in expire().
  return outcome.ok ? undefined : `could not be checked: ${outcome.error}`;
}

function threadFailure(error: Error, limits: ScriptLimits): string {
  if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return `script exceeded its memory limit of ${limits.memoryMb} MB`;
  }
  return `the script thread failed: ${error.message}`;
}
