import type { EngineAlert, EngineEvent } from '../engine/index.js';
import type { HandOffAttempt } from '../handout/parked-polls.js';

/** What a transaction wants done once it has committed (wake-ups are never sent for rolled-back work). */
export interface AfterCommit {
  wakeQueues: Set<string>;
  /** ALERT commands (timeouts under ALERT_ONLY), for the executor's `onAlert` hook: `DecisionApplier.afterCommitted`. */
  alerts: EngineAlert[];
  /**
   * Decisions that threw and failed their runs instead (`decide-or-fault.ts`), reported by
   * `DecisionApplier.afterCommitted` once the transaction has committed: an attempt that rolled
   * back, or was run again, reports nothing of its own.
   */
  faults: DecisionFault[];
  /**
   * Set by a caller that settles it after the transaction (delivered on commit, released
   * otherwise): the decisions may then hand the tasks they queue to this node's waiting polls
   * (handout/parked-polls.ts). A new one for each attempt of the transaction.
   */
  parked?: HandOffAttempt;
}

/** A decision that threw: the run it failed, the event decided, and the error with its stack. */
export interface DecisionFault {
  workflowId: string;
  event: EngineEvent['type'];
  error: unknown;
}

/** Makes each attempt's reservations in this node's waiting polls (`ParkedPolls.attempt`). */
export type HandOffAttempts = () => HandOffAttempt;

export function afterCommit(): AfterCommit {
  return { wakeQueues: new Set(), alerts: [], faults: [] };
}

/**
 * Before each attempt of a transaction that keeps one AfterCommit across its attempts: what the
 * last attempt asked for (wake-ups, alerts, faults) forgotten, since it did not commit, and its
 * hand-offs to waiting polls renewed (`renewHandOffs`).
 */
export function renewAttempt(after: AfterCommit, make?: HandOffAttempts): void {
  after.wakeQueues.clear();
  after.alerts.length = 0;
  after.faults.length = 0;
  renewHandOffs(after, make);
}

/**
 * Before each attempt of a transaction whose decisions may hand tasks to waiting polls: the last
 * attempt's reservations given back (it did not commit), and a fresh set made with `make` (none
 * without it).
 */
export function renewHandOffs(holder: { parked?: HandOffAttempt }, make?: HandOffAttempts): void {
  holder.parked?.release();
  if (make) holder.parked = make();
  else delete holder.parked;
}

/**
 * For a transaction that makes a fresh AfterCommit in each attempt (one run again must not report
 * twice): the attempt's own, carrying new reservations in the waiting polls, which `held` keeps
 * across attempts for `settledWith` (the last attempt's given back first).
 */
export function attemptAfterCommit(held: { parked?: HandOffAttempt }, make?: HandOffAttempts): AfterCommit {
  renewHandOffs(held, make);
  const after = afterCommit();
  if (held.parked) after.parked = held.parked;
  return after;
}

/**
 * Awaits such a transaction and settles the reservations of its last attempt with it: delivered
 * when it committed, given back when it failed.
 */
export async function settledWith<T>(
  holder: { parked?: HandOffAttempt },
  transaction: Promise<T>,
): Promise<T> {
  let out: T;
  try {
    out = await transaction;
  } catch (err) {
    holder.parked?.release();
    throw err;
  }
  holder.parked?.deliver();
  return out;
}
