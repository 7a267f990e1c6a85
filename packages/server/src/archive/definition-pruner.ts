import type { Logger } from 'pino';

import type { Clock } from '../clock.js';
import { PeriodicPass } from '../store/periodic-pass.js';
import type { Store } from '../store/store.js';

export interface DefinitionPrunerOptions {
  /** Between passes (ms). */
  intervalMs: number;
  /** How long a snapshot stays unused before it is deleted (ms). */
  unusedForMs: number;
  /** Snapshots a page (one transaction) looks at. */
  pageSize: number;
  /** Told how many snapshots each pass deleted (metrics). */
  onDeleted?: (n: number) => void;
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
  private readonly loop: PeriodicPass;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: DefinitionPrunerOptions = DEFINITION_PRUNER_DEFAULTS,
  ) {
    this.loop = new PeriodicPass('definition pruner', logger, options.intervalMs, async () => {
      const pass = await this.runOnce();
      if (pass.deleted > 0)
        this.logger.info({ deleted: pass.deleted }, 'deleted run definitions no run refers to');
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
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
    } while (after !== undefined && !this.loop.halted);
    this.options.onDeleted?.(pass.deleted);
    return pass;
  }
}
