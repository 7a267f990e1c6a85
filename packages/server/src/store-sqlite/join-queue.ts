import type { Joinable, Tx } from '../store/store.js';
import type { CommitBatch } from './commit-batch.js';

/** Transactions one joint function takes at most, as on PostgreSQL (group-commit.ts). */
export const MAX_JOINED = 16;

/** How a joinable transaction ended: its outcome, and the batch whose COMMIT it waits for. */
export interface JoinOutcome {
  batch?: CommitBatch;
  result: PromiseSettledResult<unknown>;
}

/** A joinable transaction waiting for SQLite's writer. */
export interface JoinUnit {
  readonly join: Joinable;
  readonly fn: (tx: Tx) => Promise<unknown>;
  /** Taken by a joint (or by its own turn): its turn in the writer's queue then does nothing. */
  taken: boolean;
  settle(outcome: JoinOutcome): void;
}

/**
 * The joinable transactions (`Joinable`: results that name one run) waiting for SQLite's writer,
 * by key, in arrival order. The first of a key to get the writer takes the others of its key
 * waiting behind it, so that a fork's branches that end together are one decision: a decision
 * reads its run's decide set, which in a wide fork is every branch, so deciding sixteen results
 * at once reads it once instead of sixteen times.
 */
export class JoinQueue {
  private readonly waiting = new Map<string, JoinUnit[]>();
  private count = 0;

  /** How many wait, not yet taken. */
  get size(): number {
    return this.count;
  }

  add(unit: JoinUnit): void {
    this.count++;
    const list = this.waiting.get(unit.join.key);
    if (list) list.push(unit);
    else this.waiting.set(unit.join.key, [unit]);
  }

  /** `unit` and up to MAX_JOINED − 1 of its key waiting behind it, in order, all taken. */
  take(unit: JoinUnit): JoinUnit[] {
    const key = unit.join.key;
    const list = this.waiting.get(key) ?? [];
    const others = list.filter((u) => u !== unit);
    const together = [unit, ...others.slice(0, MAX_JOINED - 1)];
    const left = others.slice(MAX_JOINED - 1);
    if (left.length > 0) this.waiting.set(key, left);
    else this.waiting.delete(key);
    for (const u of together) u.taken = true;
    this.count -= together.length;
    return together;
  }
}
