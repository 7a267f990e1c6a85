import { isTerminalTaskStatus, type TaskRecord } from '@baton/protocol';
import { taskKindOf } from './kinds/registry.js';
import type { RunState } from './run-state.js';
import { applyTimeout } from './timeouts.js';
import type { FiredTimer, StartCommand } from './types.js';

/**
 * A due timer, applied to the run. WAIT timers belong to their task's kind (`onTimer`); the
 * lifecycle timeouts (poll, response, task, total, workflow) are applied here. A timer whose
 * task or run has already ended is stale and ignored (cancellation is best effort: a timer
 * claimed just before its cancelling commit may still arrive).
 * Returns whether anything changed, so the caller knows to evaluate the run.
 */
export function applyTimer(state: RunState, timer: FiredTimer): 'ignored' | 'changed' {
  if (state.run.status !== 'RUNNING' && state.run.status !== 'PAUSED') return 'ignored';
  const task = timer.taskId === undefined ? undefined : state.task(timer.taskId);
  if (timer.taskId !== undefined && (!task || isTerminalTaskStatus(task.status))) return 'ignored';
  if (timer.kind === 'CONTINUE') return state.run.status === 'RUNNING' ? 'changed' : 'ignored';
  if (timer.kind === 'START_RUN') return startPutOff(state, timer, task);
  if (timer.kind === 'WAIT') {
    if (!task) return 'ignored';
    const kind = taskKindOf(task.workflowTask);
    return kind?.onTimer ? kind.onTimer(state, task, timer) : 'ignored';
  }
  return applyTimeout(state, timer, task);
}

/**
 * A run start the loop guard put off (`START_RUN`): asked for again, as it was, while its task
 * still waits for it (a paused run's too: the task was under way before the pause). A task that
 * has moved on (retried with another child, ended) leaves it unasked.
 */
function startPutOff(
  state: RunState,
  timer: FiredTimer,
  task: TaskRecord | undefined,
): 'ignored' | 'changed' {
  const command = timer.payload?.command as unknown as StartCommand | undefined;
  if (task === undefined || command === undefined || command.taskId !== task.taskId) return 'ignored';
  if (task.status !== 'IN_PROGRESS' && task.status !== 'SCHEDULED') return 'ignored';
  if (command.type === 'START_CHILD' && task.subWorkflowId !== command.childWorkflowId) return 'ignored';
  state.command(command);
  return 'changed';
}
