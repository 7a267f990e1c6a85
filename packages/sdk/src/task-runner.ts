import type { JsonObject, TaskRecord, TaskResult } from '@baton/protocol';

import { IdleBackoff } from './backoff.js';
import type { BatonClient } from './client.js';
import { BatonApiError, coerceError, TerminalError } from './errors.js';
import { withTaskSpan } from './tracing.js';
import { isInProgress, type TaskContext, type Worker, type WorkerDefinition } from './worker.js';

/** The contract's long-poll wait: a batch poll waits up to 5000 ms for work. */
export const POLL_TIMEOUT_MS = 5000;
/** Never extend a lease more often than this, whatever the response timeout. */
const MIN_LEASE_EXTENSION_MS = 500;

export type RunnerEvent =
  | { type: 'poll'; taskType: string; count: number }
  | { type: 'idle'; taskType: string; delayMs: number }
  | { type: 'task-done'; taskType: string; taskId: string; status: TaskResult['status'] }
  | { type: 'handed-back'; taskType: string; taskId: string }
  | { type: 'error'; taskType: string; error: Error; during: 'poll' | 'result' | 'lease' };

export interface RunnerOptions {
  workerId: string;
  /** Without one, errors go to stderr (each once until the loop works again). */
  onEvent?: (event: RunnerEvent) => void;
}

interface Running {
  task: TaskRecord;
  controller: AbortController;
  logs: Array<{ log: string; createdTime: number }>;
  done: Promise<void>;
  /** Set once the task was handed back, or found no longer this worker's: no result is posted. */
  handedBack: boolean;
}

/**
 * The worker loop of one task type (the interface's worker contract, rule 2): ask for a batch
 * of as many tasks as there are free slots with timeout 5000; when none arrive wait 1 ms,
 * doubling up to the poll interval; run the handler on each task's inputData and post the
 * result. One poll is outstanding at a time, and none while every slot is busy.
 */
export class TaskRunner {
  private readonly def: WorkerDefinition<JsonObject, JsonObject>;
  private readonly running = new Map<string, Running>();
  private readonly backoff: IdleBackoff;
  private readonly stopController = new AbortController();
  private slotFreed: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  /** The last error written to stderr, so a refused poll is said once, not every back-off step. */
  private lastReported: string | undefined;

  constructor(
    private readonly client: BatonClient,
    worker: Worker,
    private readonly options: RunnerOptions,
  ) {
    this.def = worker as unknown as WorkerDefinition<JsonObject, JsonObject>;
    this.backoff = new IdleBackoff(this.def.pollIntervalMs ?? 1000);
  }

  get taskType(): string {
    return this.def.taskType;
  }

  get inFlight(): number {
    return this.running.size;
  }

  start(): void {
    this.loop ??= this.pollLoop();
  }

  /** Stops polling; waits for the loop to leave (an outstanding long poll is abandoned). */
  async stopPolling(): Promise<void> {
    this.stopController.abort();
    this.slotFreed?.();
    await this.loop;
  }

  /** Resolves when every running handler has ended (or been handed back). */
  async drained(): Promise<void> {
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  /** Hands every task still running back to its queue and aborts its handler. */
  async handBackAll(): Promise<void> {
    await Promise.all([...this.running.values()].map((r) => this.handBack(r)));
  }

  private get stopping(): boolean {
    return this.stopController.signal.aborted;
  }

  private async pollLoop(): Promise<void> {
    const concurrency = this.def.concurrency ?? 1;
    while (!this.stopping) {
      const free = concurrency - this.running.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        this.slotFreed = undefined;
        continue;
      }
      const tasks = await this.poll(free);
      if (this.stopping) {
        // Claimed just as we stopped: give them straight back rather than hold their locks.
        for (const task of tasks) void this.handBackTask(task, []);
        break;
      }
      if (tasks.length === 0) {
        const delayMs = this.backoff.nextDelay();
        this.emit({ type: 'idle', taskType: this.taskType, delayMs });
        await sleep(delayMs, this.stopController.signal);
        continue;
      }
      this.backoff.reset();
      for (const task of tasks) this.run(task);
    }
  }

  private async poll(count: number): Promise<TaskRecord[]> {
    this.emit({ type: 'poll', taskType: this.taskType, count });
    try {
      const tasks = await this.client.pollBatch(this.taskType, {
        count,
        timeout: POLL_TIMEOUT_MS,
        workerId: this.options.workerId,
        signal: this.stopController.signal,
        ...(this.def.domain !== undefined && { domain: this.def.domain }),
      });
      this.lastReported = undefined;
      return tasks;
    } catch (raw) {
      if (!this.stopping)
        this.emit({ type: 'error', taskType: this.taskType, error: coerceError(raw), during: 'poll' });
      return [];
    }
  }

  private run(task: TaskRecord): void {
    const controller = new AbortController();
    const running: Running = { task, controller, logs: [], done: Promise.resolve(), handedBack: false };
    running.done = this.execute(running).finally(() => {
      this.running.delete(task.taskId);
      this.slotFreed?.();
    });
    this.running.set(task.taskId, running);
  }

  private async execute(running: Running): Promise<void> {
    const { task } = running;
    const context: TaskContext = {
      taskId: task.taskId,
      workflowId: task.workflowInstanceId,
      attempt: task.retryCount + 1,
      pollCount: task.pollCount,
      task,
      signal: running.controller.signal,
      log: (line) => running.logs.push({ log: String(line), createdTime: Date.now() }),
    };
    const lease = this.startLeaseExtension(running);
    let result: TaskResult;
    try {
      // A traced task's handler runs under a span continuing the task attempt's trace.
      const answer = await withTaskSpan(task, this.options.workerId, () =>
        Promise.resolve(this.def.handler(task.inputData, context)),
      );
      result = isInProgress(answer)
        ? this.resultOf(task, 'IN_PROGRESS', (answer.outputData ?? {}) as JsonObject, {
            callbackAfterSeconds: answer.callbackAfterSeconds,
          })
        : this.resultOf(task, 'COMPLETED', toJsonObject(answer));
    } catch (raw) {
      const error = coerceError(raw);
      const terminal = TerminalError.is(error);
      const output = TerminalError.is(error) ? (error.outputData as JsonObject | undefined) : undefined;
      result = this.resultOf(task, terminal ? 'FAILED_WITH_TERMINAL_ERROR' : 'FAILED', output ?? {}, {
        reasonForIncompletion: error.message || error.name,
      });
    } finally {
      clearInterval(lease);
    }
    if (running.handedBack) return;
    result.logs = running.logs;
    await this.post(result);
  }

  private resultOf(
    task: Pick<TaskRecord, 'taskId' | 'workflowInstanceId'>,
    status: TaskResult['status'],
    outputData: JsonObject,
    extra: Partial<TaskResult> = {},
  ): TaskResult {
    return {
      taskId: task.taskId,
      workflowInstanceId: task.workflowInstanceId,
      workerId: this.options.workerId,
      status,
      outputData,
      ...extra,
    };
  }

  /**
   * Posts a result. A result the server could not take (down, restarting) is tried again with
   * the same back-off as polls, until it is taken or the task's lock would have lapsed anyway.
   * A result the server refuses (4xx: too large, not JSON it accepts) will never be taken, so
   * the task is failed with the server's reason instead of being left to time out; a 409 (the
   * attempt has ended, or another worker holds the task) ends the post: nothing is sent again.
   */
  private async post(result: TaskResult): Promise<void> {
    const task = this.running.get(result.taskId)?.task;
    const deadline = Date.now() + Math.max(5, task?.responseTimeoutSeconds ?? 60) * 1000;
    const backoff = new IdleBackoff(this.def.pollIntervalMs ?? 1000);
    let current = result;
    for (;;) {
      try {
        await this.client.updateTask(current);
        this.emit({
          type: 'task-done',
          taskType: this.taskType,
          taskId: current.taskId,
          status: current.status,
        });
        return;
      } catch (raw) {
        const error = coerceError(raw);
        this.emit({ type: 'error', taskType: this.taskType, error, during: 'result' });
        // 409: the attempt has ended or another worker holds the task; no post will change
        // that (an exact repeat of a recorded result is answered 2xx, so this is not one).
        if (error instanceof BatonApiError && error.status === 409) return;
        if (error instanceof BatonApiError && error.status >= 400 && error.status < 500) {
          if (current !== result) return; // the failure report itself was refused
          const reason = `the server refused the worker's result (HTTP ${error.status}): ${error.message}`;
          current = this.resultOf(
            result,
            'FAILED',
            {},
            { reasonForIncompletion: reason.slice(0, 2000), logs: result.logs ?? [] },
          );
          continue;
        }
        if (Date.now() > deadline) return;
        await sleep(Math.max(50, backoff.nextDelay()), undefined);
      }
    }
  }

  /** Re-posts IN_PROGRESS with extendLease at half the response timeout while the handler runs. */
  private startLeaseExtension(running: Running): NodeJS.Timeout | undefined {
    const seconds = running.task.responseTimeoutSeconds;
    if (this.def.leaseExtension === false || !(seconds > 0)) return undefined;
    const every = Math.max(MIN_LEASE_EXTENSION_MS, (seconds * 1000) / 2);
    const timer = setInterval(() => {
      if (running.handedBack) return;
      this.client
        .updateTask({ ...this.resultOf(running.task, 'IN_PROGRESS', {}), extendLease: true })
        .catch((raw: unknown) => {
          this.emit({ type: 'error', taskType: this.taskType, error: coerceError(raw), during: 'lease' });
          // 409: the task is no longer this worker's (timed out, canceled, held by another):
          // stop the handler and post nothing for it.
          if (raw instanceof BatonApiError && raw.status === 409) {
            clearInterval(timer);
            running.handedBack = true;
            running.controller.abort();
          }
        });
    }, every);
    timer.unref();
    return timer;
  }

  private async handBack(running: Running): Promise<void> {
    if (running.handedBack) return;
    running.handedBack = true;
    running.controller.abort();
    await this.handBackTask(running.task, running.logs);
  }

  /** IN_PROGRESS with callbackAfterSeconds 0: the task is visible on its queue again at once. */
  private async handBackTask(task: TaskRecord, logs: Running['logs']): Promise<void> {
    try {
      await this.client.updateTask({
        ...this.resultOf(task, 'IN_PROGRESS', {}, { callbackAfterSeconds: 0 }),
        logs: [
          ...logs,
          { log: `handed back by ${this.options.workerId}: the worker stopped`, createdTime: Date.now() },
        ],
      });
      this.emit({ type: 'handed-back', taskType: this.taskType, taskId: task.taskId });
    } catch (raw) {
      // The lock lapses by itself (responseTimeoutSeconds): the task is retried, never lost.
      this.emit({ type: 'error', taskType: this.taskType, error: coerceError(raw), during: 'result' });
    }
  }

  private emit(event: RunnerEvent): void {
    if (this.options.onEvent === undefined) {
      if (event.type !== 'error') return;
      const line = `baton worker ${event.taskType}: ${event.during} failed: ${event.error.message}`;
      if (line !== this.lastReported) console.error(line);
      this.lastReported = line;
      return;
    }
    try {
      this.options.onEvent(event);
    } catch {
      // A listener can never break the loop.
    }
  }
}

/** A handler's answer as outputData: objects as they are, anything else under `result`. */
function toJsonObject(value: unknown): JsonObject {
  if (value === undefined || value === null) return {};
  if (typeof value === 'object' && !Array.isArray(value)) return value as JsonObject;
  return { result: value as JsonObject[string] };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
