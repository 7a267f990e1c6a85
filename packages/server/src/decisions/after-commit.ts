import type { EngineAlert } from '../engine/index.js';
import type { HandOffAttempt } from '../handout/parked-polls.js';

/** What a transaction wants done once it has committed (wake-ups are never sent for rolled-back work). */
export interface AfterCommit {
  wakeQueues: Set<string>;
  /** ALERT commands (timeouts under ALERT_ONLY), for the executor's `onAlert` hook: `DecisionApplier.afterCommitted`. */
  alerts: EngineAlert[];
  /**
   * Set by a caller that settles it after the transaction (delivered on commit, released
   * otherwise): the decisions may then hand the tasks they queue to this node's waiting polls
   * (handout/parked-polls.ts). A new one for each attempt of the transaction.
   */
  parked?: HandOffAttempt;
}

/** Makes each attempt's reservations in this node's waiting polls (`ParkedPolls.attempt`). */
export type HandOffAttempts = () => HandOffAttempt;

export function afterCommit(): AfterCommit {
  return { wakeQueues: new Set(), alerts: [] };
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
