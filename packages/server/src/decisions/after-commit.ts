import type { EngineAlert } from '../engine/index.js';

/** What a transaction wants done once it has committed (wake-ups are never sent for rolled-back work). */
export interface AfterCommit {
  wakeQueues: Set<string>;
  /** ALERT commands (timeouts under ALERT_ONLY), for the executor's `onAlert` hook: `DecisionApplier.afterCommitted`. */
  alerts: EngineAlert[];
}

export function afterCommit(): AfterCommit {
  return { wakeQueues: new Set(), alerts: [] };
}
