import type { JsonObject } from '@baton/protocol';

/**
 * A minimal worker over plain fetch that follows the worker contract, nothing more:
 * batch-poll `GET /api/tasks/poll/batch/{type}?count={free slots}&timeout=…&workerid=…`,
 * run the handler for each task handed out, post the result with `POST /api/tasks`.
 * It remembers every task it was handed, so tests can prove each task went out exactly once.
 */

/** The fields of a handed-out task this worker relies on. */
export interface PolledTask {
  taskId: string;
  workflowInstanceId: string;
  taskType: string;
  referenceTaskName: string;
  status: string;
  inputData: JsonObject;
  pollCount?: number;
  workerId?: string;
}

export interface TaskOutcome {
  status?: 'COMPLETED' | 'FAILED' | 'FAILED_WITH_TERMINAL_ERROR' | 'IN_PROGRESS';
  outputData?: JsonObject;
  reasonForIncompletion?: string;
}

export type TaskHandlerFn = (task: PolledTask) => Promise<TaskOutcome> | TaskOutcome;

export interface HttpWorkerOptions {
  /** Base URL of the Baton node to poll. */
  baseUrl: string;
  taskType: string;
  workerId: string;
  handler: TaskHandlerFn;
  /** Tasks run at once; each poll asks for the free slots (default 4). */
  concurrency?: number;
  /** Long-poll timeout sent to the server, in ms (default 1000). */
  pollTimeoutMs?: number;
  /**
   * How long to keep re-posting a result while the server is unreachable or answers 5xx, with
   * back-off (default 0: post once). A server that restarts finds the result when it is back.
   */
  resultRetryMs?: number;
}

/** One task handed to this worker, as received. */
export interface Receipt {
  taskId: string;
  workflowInstanceId: string;
  referenceTaskName: string;
  workerId: string;
  /** pollCount and status as the poll answer reported them. */
  pollCount: number | undefined;
  status: string;
}

export class HttpWorker {
  readonly workerId: string;
  readonly taskType: string;
  readonly baseUrl: string;
  /** Every task this worker was handed, in order. */
  readonly received: Receipt[] = [];
  /** Task ids whose result the server accepted. */
  readonly completed: string[] = [];
  /** Every problem met: failed polls, rejected results, handler errors, malformed answers. */
  readonly errors: string[] = [];
  /** Results answered 409 (the attempt had ended: its lock lapsed and a successor took over). */
  readonly refused: string[] = [];
  /** Number of poll requests sent. */
  polls = 0;

  private readonly handler: TaskHandlerFn;
  private readonly concurrency: number;
  private readonly pollTimeoutMs: number;
  private readonly resultRetryMs: number;
  private inFlight = 0;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private readonly running = new Set<Promise<void>>();
  private slotWaiter: (() => void) | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(opts: HttpWorkerOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.taskType = opts.taskType;
    this.workerId = opts.workerId;
    this.handler = opts.handler;
    this.concurrency = opts.concurrency ?? 4;
    this.pollTimeoutMs = opts.pollTimeoutMs ?? 1000;
    this.resultRetryMs = opts.resultRetryMs ?? 0;
  }

  start(): this {
    if (this.loop) throw new Error(`worker ${this.workerId} already started`);
    this.loop = this.pollLoop();
    return this;
  }

  /**
   * Stops polling. The poll in flight is allowed to finish (a task it brings back is still run,
   * never dropped), then every running task is finished and its result posted.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeSlotWaiter();
    await this.loop;
    await Promise.all([...this.running]);
  }

  /** Called after every accepted result or recorded error (for tests that wait on progress). */
  onProgress(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  private error(message: string): void {
    this.errors.push(`[${this.workerId}] ${message}`);
    this.notify();
  }

  private wakeSlotWaiter(): void {
    const wake = this.slotWaiter;
    this.slotWaiter = undefined;
    wake?.();
  }

  private async pollLoop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      if (this.inFlight >= this.concurrency) {
        await new Promise<void>((resolve) => (this.slotWaiter = resolve));
        continue;
      }
      const count = this.concurrency - this.inFlight;
      let tasks: PolledTask[];
      try {
        tasks = await this.pollBatch(count);
        failures = 0;
      } catch (err) {
        this.error(`poll failed: ${err instanceof Error ? err.message : String(err)}`);
        failures++;
        // Back off a little so a broken server is not hammered; this is a retry pause, not a settle wait.
        await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** failures)));
        continue;
      }
      if (tasks.length > count) this.error(`asked for ${count} tasks, was handed ${tasks.length}`);
      for (const task of tasks) this.dispatch(task);
    }
  }

  private async pollBatch(count: number): Promise<PolledTask[]> {
    const query = new URLSearchParams({
      count: String(count),
      timeout: String(this.pollTimeoutMs),
      workerid: this.workerId,
    });
    const url = `${this.baseUrl}/api/tasks/poll/batch/${encodeURIComponent(this.taskType)}?${query.toString()}`;
    this.polls++;
    const res = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(this.pollTimeoutMs + 30_000),
    });
    const text = await res.text();
    if (res.status === 204) return [];
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${text.slice(0, 500)}`);
    const body: unknown = text.length === 0 ? [] : JSON.parse(text);
    if (!Array.isArray(body)) throw new Error(`GET ${url} answered a non-array: ${text.slice(0, 500)}`);
    const tasks: PolledTask[] = [];
    for (const item of body as unknown[]) {
      if (!isPolledTask(item)) {
        this.error(`malformed task in poll answer: ${JSON.stringify(item).slice(0, 500)}`);
        continue;
      }
      tasks.push(item);
    }
    return tasks;
  }

  private dispatch(task: PolledTask): void {
    this.received.push({
      taskId: task.taskId,
      workflowInstanceId: task.workflowInstanceId,
      referenceTaskName: task.referenceTaskName,
      workerId: this.workerId,
      pollCount: task.pollCount,
      status: task.status,
    });
    if (task.taskType !== this.taskType)
      this.error(`polled ${this.taskType}, got ${task.taskType} (${task.taskId})`);
    this.inFlight++;
    const run = this.execute(task).finally(() => {
      this.inFlight--;
      this.running.delete(run);
      this.wakeSlotWaiter();
    });
    this.running.add(run);
  }

  private async execute(task: PolledTask): Promise<void> {
    let outcome: TaskOutcome;
    try {
      outcome = await this.handler(task);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.error(`handler threw on ${task.taskId}: ${reason}`);
      outcome = { status: 'FAILED', reasonForIncompletion: reason };
    }
    const result = {
      taskId: task.taskId,
      workflowInstanceId: task.workflowInstanceId,
      workerId: this.workerId,
      status: outcome.status ?? 'COMPLETED',
      outputData: outcome.outputData ?? {},
      ...(outcome.reasonForIncompletion ? { reasonForIncompletion: outcome.reasonForIncompletion } : {}),
    };
    const deadline = Date.now() + this.resultRetryMs;
    for (let attempt = 1; ; attempt++) {
      let problem: string;
      try {
        const res = await fetch(`${this.baseUrl}/api/tasks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/plain, application/json' },
          body: JSON.stringify(result),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        // A late result of this worker's own lapsed attempt answers 200 (as Conductor does) but
        // says it was not recorded: that is a refusal to the recovery checks.
        if (res.status === 200 && res.headers.get('baton-result-applied') === 'false') {
          this.refused.push(task.taskId);
          this.notify();
          return;
        }
        if (res.status === 200) {
          this.completed.push(task.taskId);
          this.notify();
          return;
        }
        if (res.status === 409) {
          this.refused.push(task.taskId);
          this.notify();
          return;
        }
        problem = `POST /api/tasks for ${task.taskId} answered ${res.status}: ${text.slice(0, 500)}`;
        if (res.status < 500) {
          this.error(problem);
          return;
        }
      } catch (err) {
        problem = `POST /api/tasks for ${task.taskId} failed: ${err instanceof Error ? err.message : String(err)}`;
      }
      if (Date.now() >= deadline) {
        this.error(problem);
        return;
      }
      // The server is down or restarting: try again after a back-off (not a settle wait).
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
    }
  }
}

function isPolledTask(value: unknown): value is PolledTask {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.taskId === 'string' &&
    typeof v.workflowInstanceId === 'string' &&
    typeof v.taskType === 'string' &&
    typeof v.referenceTaskName === 'string' &&
    typeof v.status === 'string' &&
    typeof v.inputData === 'object' &&
    v.inputData !== null
  );
}

/** Every task id handed out more than once across `workers`, with who got it. */
export function duplicateReceipts(
  workers: readonly HttpWorker[],
): Array<{ taskId: string; holders: string[] }> {
  const holders = new Map<string, string[]>();
  for (const worker of workers) {
    for (const receipt of worker.received) {
      const list = holders.get(receipt.taskId) ?? [];
      list.push(receipt.workerId);
      holders.set(receipt.taskId, list);
    }
  }
  return [...holders]
    .filter(([, list]) => list.length > 1)
    .map(([taskId, list]) => ({ taskId, holders: list }));
}
