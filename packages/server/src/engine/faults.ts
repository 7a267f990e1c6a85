import { isTerminalWorkflowStatus } from '@baton/protocol';

import { cancelOpenTasks, failedTaskNames } from './run-end.js';
import type { RunState } from './run-state.js';
import type { Decision, EngineEvent } from './types.js';

/**
 * What a run comes to when a decision on it throws: a fault of the engine, or data it cannot
 * handle. `decide` is a function of the run, its tasks and the event, so the same event throws
 * again on every attempt (a worker's result posted again, a timer claimed again after its lease),
 * and the run would stay RUNNING for good with an error logged on each. Instead the run FAILS with
 * the error as its reason, its open tasks canceled and its timers with them, where an operator
 * sees it, and retries it once the cause is fixed.
 *
 * Kept to the least that can fail: no output is resolved (the run keeps the one it had), and no
 * task is evaluated; only the run's end is written.
 */
export function applyFault(state: RunState, reason: string): Decision {
  if (isTerminalWorkflowStatus(state.run.status)) return state.decision(true);
  state.command({ type: 'CANCEL_TIMERS' });
  cancelOpenTasks(state, reason);
  state.updateRun({
    status: 'FAILED',
    endTime: state.now,
    reasonForIncompletion: reason,
    ...failedTaskNames(state),
  });
  return state.decision();
}

/** The reason a faulted run fails with: what threw, and on which event. */
export function faultReason(error: unknown, event: EngineEvent): string {
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `A decision on this run failed (${event.type}): ${what}. The run was failed so that it does not wait for good; retry it once the cause is fixed`;
}
