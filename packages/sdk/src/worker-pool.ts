import { hostname } from 'node:os';

import type { BatonClient } from './client.js';
import { TaskRunner, type RunnerEvent } from './task-runner.js';
import type { Worker } from './worker.js';

export type WorkerPoolState = 'CREATED' | 'RUNNING' | 'STOPPING' | 'STOPPED';

export interface WorkerPoolOptions {
  client: BatonClient;
  workers: Worker[];
  /** Sent with every poll and result (poll data, the task's workerId); default host-pid. */
  workerId?: string;
  /** Polls, idle waits, results, hand-backs and errors, for logs and metrics. */
  onEvent?: (event: RunnerEvent) => void;
}

export interface StopOptions {
  /** How long running handlers may take to finish before their tasks are handed back (default 10 s). */
  graceMs?: number;
}

/**
 * Runs the workers of one process: one poll loop per task type, each with its own bounded
 * concurrency. `stop()` stops polling, lets running handlers finish within the grace period and
 * hands the rest back to their queues (another worker takes them at once), so a deploy loses
 * no work and waits for no lock to lapse.
 */
export class WorkerPool {
  private readonly runners: TaskRunner[];
  private current: WorkerPoolState = 'CREATED';
  private stopping: Promise<void> | undefined;

  constructor(options: WorkerPoolOptions) {
    const types = new Set<string>();
    for (const worker of options.workers) {
      if (types.has(worker.taskType)) throw new Error(`two workers for task type ${worker.taskType}`);
      types.add(worker.taskType);
    }
    const workerId = options.workerId ?? `${hostname()}-${process.pid}`;
    this.runners = options.workers.map(
      (worker) =>
        new TaskRunner(options.client, worker, {
          workerId,
          ...(options.onEvent !== undefined && { onEvent: options.onEvent }),
        }),
    );
  }

  state(): WorkerPoolState {
    return this.current;
  }

  /** Tasks being handled now, per task type. */
  inFlight(): Record<string, number> {
    return Object.fromEntries(this.runners.map((r) => [r.taskType, r.inFlight]));
  }

  start(): this {
    if (this.current !== 'CREATED') throw new Error(`cannot start a worker pool that is ${this.current}`);
    this.current = 'RUNNING';
    for (const runner of this.runners) runner.start();
    return this;
  }

  /** Graceful stop; concurrent and repeated calls share the same stop. */
  stop(options: StopOptions = {}): Promise<void> {
    this.stopping ??= (async () => {
      this.current = 'STOPPING';
      await Promise.all(this.runners.map((r) => r.stopPolling()));
      const graceMs = options.graceMs ?? 10_000;
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.all(this.runners.map((r) => r.drained())), grace]);
      clearTimeout(timer);
      // Handlers still running have their signal aborted and their tasks handed back; a handler
      // that ignores its signal is not waited for (its late result is dropped).
      await Promise.all(this.runners.map((r) => r.handBackAll()));
      this.current = 'STOPPED';
    })();
    return this.stopping;
  }
}

/** Starts the workers and stops them gracefully on SIGTERM or SIGINT (a second signal exits at once). */
export function runWorkers(options: WorkerPoolOptions & StopOptions): WorkerPool {
  const pool = new WorkerPool(options).start();
  let signals = 0;
  const onSignal = (): void => {
    signals += 1;
    if (signals > 1) process.exit(1);
    pool.stop(options).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return pool;
}
