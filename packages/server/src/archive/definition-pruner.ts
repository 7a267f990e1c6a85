import type { Logger } from 'pino';

import type { Clock } from '../clock.js';
import { OutageLog } from '../store/outage-log.js';
import type { Store } from '../store/store.js';

export interface DefinitionPrunerOptions {
  /** Between passes (ms). */
  intervalMs: number;
  /** How long a snapshot stays unused before it is deleted (ms). */
  unusedForMs: number;
  /** Snapshots a page (one transaction) looks at. */
  pageSize: number;
}

export const DEFINITION_PRUNER_DEFAULTS: DefinitionPrunerOptions = {
  intervalMs: 10 * 60_000,
  unusedForMs: 60 * 60_000,
  pageSize: 500,
};

export interface DefinitionPrunePass {
  marked: number;
  deleted: number;
}

/**
 * Deletes the run-definition snapshots no run refers to any more. Each distinct definition text a
 * run starts with is stored once and shared by every run of it; when the archive or a removal
 * deletes the last of those runs, the snapshot would otherwise stay forever, and a node that runs
 * one-off definitions (inline in their start requests) grew the table without bound.
 *
 * A pass walks every snapshot in pages, one short transaction each (`Tx.pruneRunDefinitions`):
 * a snapshot first found unused is marked, and deleted by a later pass once it has stayed unused
 * for `unusedForMs`. The wait is what a read that found a run row just before that run was
 * deleted needs to still find its snapshot on PostgreSQL, where the row and the snapshot are two
 * statements (store-postgres/run-definitions.ts); a start that reuses a snapshot at any moment
 * keeps it by the store's own lock. Every node runs passes; two passes at once only do the same
 * work twice.
 */
export class RunDefinitionPruner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  /** Set by stop(): a pass under way ends after its page. */
  private halted = false;
  private readonly outage: OutageLog;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: DefinitionPrunerOptions = DEFINITION_PRUNER_DEFAULTS,
  ) {
    this.outage = new OutageLog(logger, 'definition pruner');
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.halted = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.halted = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass over every snapshot. */
  async runOnce(): Promise<DefinitionPrunePass> {
    const pass: DefinitionPrunePass = { marked: 0, deleted: 0 };
    let after: string | undefined;
    do {
      const now = this.clock.now();
      const page = await this.store.transaction((tx) =>
        tx.pruneRunDefinitions({
          ...(after !== undefined && { after }),
          limit: this.options.pageSize,
          now,
          unusedBefore: now - this.options.unusedForMs,
        }),
      );
      pass.marked += page.marked;
      pass.deleted += page.deleted;
      after = page.next;
    } while (after !== undefined && !this.halted);
    return pass;
  }

  // The first pass waits one interval too: a node that starts has other work first.
  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.loopOnce().finally(() => {
        this.running = undefined;
      });
    }, this.options.intervalMs);
    this.timer.unref();
  }

  private async loopOnce(): Promise<void> {
    try {
      const pass = await this.runOnce();
      this.outage.succeeded();
      if (pass.deleted > 0)
        this.logger.info({ deleted: pass.deleted }, 'deleted run definitions no run refers to');
    } catch (raw) {
      this.outage.failed(raw);
    }
    this.schedule();
  }
}
