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

export function afterCommit(): AfterCommit {
  return { wakeQueues: new Set(), alerts: [] };
}
