import type { JsonObject } from '@baton/protocol';

import type { PortAccess } from './access.js';

/**
 * A durable timer (the only sweeper). `kind` is the engine's TimerKind; the store
 * keeps it as text. A timer is deleted when it fires (in the transaction of the decision it
 * caused) or when the state it guards no longer needs it.
 */
export interface TimerRecord {
  timerId: string;
  workflowId: string;
  /** The task the timer guards; absent for run-level timers. */
  taskId?: string;
  kind: string;
  /** Epoch ms at which it is due. */
  dueAt: number;
  payload: JsonObject;
}

export interface StoredTimer extends TimerRecord {
  /** Set while a node fires it: others leave it alone until then (a dead node's lease lapses). */
  claimedUntil: number | null;
  createTime: number;
}

/** Which timers to cancel or list: by run, by tasks, narrowed by kinds. At least one of workflowId/taskIds. */
export interface TimerFilter {
  workflowId?: string;
  taskIds?: readonly string[];
  kinds?: readonly string[];
}

export interface TimerClaim {
  now: number;
  limit: number;
  /** How long the claimer may take to fire them before another node may claim them again. */
  leaseMs: number;
}

/** Durable timers. */
export interface TimersPort {
  /** Arms timers (an existing timerId is replaced and unclaimed). */
  armTimers(timers: readonly TimerRecord[], now: number): Promise<void>;
  /** Deletes the matching timers; answers how many. */
  cancelTimers(filter: TimerFilter): Promise<number>;
  /**
   * Deletes the matching timers without saying how many, which lets PostgreSQL send the delete
   * with the transaction's next statement (write-behind.ts). The decision path uses it.
   */
  dropTimers(filter: TimerFilter): Promise<void>;
  /**
   * Claims up to `limit` timers due at `now` that no live lease holds, earliest first, and
   * leases them until `now + leaseMs`. `FOR UPDATE SKIP LOCKED` on PostgreSQL: concurrent
   * claimers never take the same timer.
   */
  claimDueTimers(claim: TimerClaim): Promise<StoredTimer[]>;
  /** Deletes one timer (it fired); false when it was already gone (fired elsewhere, or cancelled). */
  deleteTimer(timerId: string): Promise<boolean>;
  /** When the next timer may be claimed: earliest due time of unclaimed timers, or lease end of claimed ones. */
  nextTimerDueAt(): Promise<number | undefined>;
  listTimers(filter: TimerFilter): Promise<StoredTimer[]>;
}

/** Which `TimersPort` methods write (refused inside `read()`); every method is checked (tx-access.ts). */
export const TIMERS_ACCESS = {
  armTimers: 'write',
  cancelTimers: 'write',
  dropTimers: 'write',
  claimDueTimers: 'write',
  deleteTimer: 'write',
  nextTimerDueAt: 'read',
  listTimers: 'read',
} as const satisfies PortAccess<TimersPort>;
