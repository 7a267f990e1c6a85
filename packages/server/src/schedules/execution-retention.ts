import type { Logger } from 'pino';

import type { Clock } from '../clock.js';
import { PeriodicPass } from '../store/periodic-pass.js';
import type { Store } from '../store/store.js';

export interface ScheduleRetentionOptions {
  /** Executions older than this are deleted (ms; `BATON_SCHEDULE_RETENTION_DAYS`). */
  retentionMs: number;
  /** Between passes (ms; default 10 minutes). */
  intervalMs?: number;
  /** Executions one transaction deletes (default 1,000). */
  batch?: number;
  /** Told how many executions each pass deleted (metrics). */
  onDeleted?: (n: number) => void;
}

/**
 * Keeps the history of schedule firings bounded. Every fired slot leaves a row in
 * `schedule_executions` (the claim that starts its run once across all nodes, and what
 * `GET /api/schedule/{name}/executions` lists); a schedule every ten seconds leaves 60,000 a week,
 * and nothing deleted them. A pass deletes those older than the retention, in batches of short
 * transactions, keeping each schedule's latest slot, which the next firing starts after. Every
 * node runs passes; two at once only share the work.
 */
export class ScheduleExecutionRetention {
  private readonly loop: PeriodicPass;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: ScheduleRetentionOptions,
  ) {
    this.loop = new PeriodicPass(
      'schedule history pruner',
      logger,
      options.intervalMs ?? 10 * 60_000,
      async () => {
        const deleted = await this.runOnce();
        if (deleted > 0) this.logger.info({ deleted }, 'pruned schedule executions past their retention');
      },
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass: deletes every execution past the retention but the latest of each schedule. */
  async runOnce(): Promise<number> {
    const batch = this.options.batch ?? 1000;
    const before = this.clock.now() - this.options.retentionMs;
    let deleted = 0;
    for (;;) {
      const n = await this.store.transaction((tx) => tx.events.pruneScheduleExecutions(before, batch));
      deleted += n;
      this.options.onDeleted?.(n);
      if (n < batch || this.loop.halted) return deleted;
    }
  }
}
