import { isTerminalTaskStatus, isTerminalWorkflowStatus } from '@baton/protocol';
import { evaluate } from './evaluate.js';
import { taskKindOf } from './kinds/registry.js';
import type { RunState } from './run-state.js';
import type { Decision, RunControlEvent } from './types.js';

/**
 * Signals and mailbox arrivals. A signal goes to the first open task (in seq order) whose kind
 * takes it (`TaskKind.onSignal`: a WAIT without a timer, a HUMAN task, a blocking
 * PULL_WORKFLOW_MESSAGES); new mailbox messages go to blocked readers (`onMailbox`). Either
 * way the run then moves on at once (a PAUSED run records the change and waits).
 */

export function applySignal(state: RunState, event: Extract<RunControlEvent, { type: 'SIGNAL' }>): Decision {
  if (isTerminalWorkflowStatus(state.run.status)) return state.decision(true);
  for (const task of state.tasks) {
    if (isTerminalTaskStatus(task.status)) continue;
    const kind = taskKindOf(task.workflowTask);
    if (!kind?.onSignal) continue;
    if (kind.onSignal(state, task, { status: event.status, output: event.output }) === 'ignored') continue;
    // A kind that does not read the mailbox took the signal's message as its payload.
    if (event.messageId !== undefined && !kind.onMailbox)
      state.command({ type: 'TAKE_MESSAGES', messageIds: [event.messageId] });
    evaluate(state);
    return state.decision();
  }
  return state.decision(true);
}

export function applyMailbox(state: RunState): Decision {
  if (isTerminalWorkflowStatus(state.run.status)) return state.decision(true);
  let changed = false;
  for (const task of state.tasks) {
    if (isTerminalTaskStatus(task.status)) continue;
    const kind = taskKindOf(task.workflowTask);
    if (kind?.onMailbox?.(state, task) === 'changed') changed = true;
  }
  if (!changed) return state.decision(true);
  evaluate(state);
  return state.decision();
}

/** Which open task a signal reached: the first one the decision ended (for the caller's answer). */
export function signaledTaskId(decision: Decision): string | undefined {
  if (decision.ignored) return undefined;
  return decision.updatedTasks.find((task) => isTerminalTaskStatus(task.status) && task.status !== 'CANCELED')
    ?.taskId;
}
