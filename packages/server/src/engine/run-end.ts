import {
  isTerminalTaskStatus,
  type JsonObject,
  type RunRecord,
  type TaskRecord,
  type WorkflowStatus,
} from '@baton/protocol';
import { resolveParameters } from './expressions.js';
import { taskKindOf } from './kinds/registry.js';
import { runOutputRefusal } from './payload-bounds.js';
import type { RunState } from './run-state.js';

/** How a run ends when a task fails it, and what it answers as output. */

/** Conductor's `DeciderService.retry`: CANCELED → TERMINATED, TIMED_OUT → TIMED_OUT, else FAILED. */
export function runStatusForFailedTask(task: Pick<TaskRecord, 'status'>): WorkflowStatus {
  if (task.status === 'CANCELED') return 'TERMINATED';
  if (task.status === 'TIMED_OUT') return 'TIMED_OUT';
  return 'FAILED';
}

/**
 * The reason of a run ended by a task, in Conductor's words (`DeciderService.retry`):
 * `Task %s failed with status: %s and reason: '%s'` with the task's reason (`null` when it has
 * none, as Java prints it). The status is the run's new one, as Conductor's, except for a task
 * that failed with a terminal error: that status says why no retry was made, so it is named
 * (FAILED would read as if retries ran out). A reason already in quotes is quoted once.
 * Conductor puts the task *id* first; Baton puts the reference name, which says which step failed.
 */
export function taskFailureReason(
  task: Pick<TaskRecord, 'referenceTaskName' | 'reasonForIncompletion' | 'status'>,
  runStatus: WorkflowStatus,
): string {
  const status = task.status === 'FAILED_WITH_TERMINAL_ERROR' ? task.status : runStatus;
  const reason = unquoted(task.reasonForIncompletion ?? 'null');
  return `Task ${task.referenceTaskName} failed with status: ${status} and reason: '${reason}'`;
}

/** `'text'` → `text`: a reason that arrives quoted is not quoted twice. */
function unquoted(reason: string): string {
  return reason.length >= 2 && reason.startsWith("'") && reason.endsWith("'") ? reason.slice(1, -1) : reason;
}

/** Ends the run: status, reason, failed task names, output, and every open task canceled. */
export function failRun(
  state: RunState,
  status: WorkflowStatus,
  reason: string,
  failedTask?: TaskRecord,
): void {
  const now = state.now;
  cancelOpenTasks(state, reason);
  const output = runOutput(state, failedTask);
  state.updateRun({
    status,
    endTime: now,
    reasonForIncompletion: reason,
    ...failedTaskNames(state, failedTask),
    // A run that fails keeps its reason; an output over the bound is not kept with it.
    output: runOutputRefusal(state, output) === undefined ? output : {},
  });
}

/**
 * The run's failed task names when it ends (Conductor's `completeWorkflow`/`terminateWorkflow`):
 * every task that ended FAILED or FAILED_WITH_TERMINAL_ERROR, even one a later attempt made
 * good, in seq order, each once; the task that ended the run last.
 */
export function failedTaskNames(
  state: RunState,
  failedTask?: TaskRecord,
): Pick<RunRecord, 'failedReferenceTaskNames' | 'failedTaskNames'> {
  const refs = new Set(state.run.failedReferenceTaskNames);
  const names = new Set(state.run.failedTaskNames);
  for (const task of state.tasks) {
    if (task.status !== 'FAILED' && task.status !== 'FAILED_WITH_TERMINAL_ERROR') continue;
    refs.add(task.referenceTaskName);
    names.add(task.taskDefName);
  }
  if (failedTask) {
    // Last: the failure workflow's `failureTaskId` names the last one.
    refs.delete(failedTask.referenceTaskName);
    refs.add(failedTask.referenceTaskName);
    names.delete(failedTask.taskDefName);
    names.add(failedTask.taskDefName);
  }
  return { failedReferenceTaskNames: [...refs], failedTaskNames: [...names] };
}

/**
 * Cancels every open task: CANCELED, its queue message removed, and its kind's `cancel` hook
 * called (a sub-workflow terminates its child). The one place open tasks are canceled, whether
 * the run failed or was terminated.
 */
export function cancelOpenTasks(state: RunState, reason: string): void {
  const now = state.now;
  for (const task of state.tasks) {
    if (isTerminalTaskStatus(task.status)) continue;
    state.updateTask(task, { status: 'CANCELED', endTime: now, updateTime: now, executed: true });
    state.command({ type: 'DEQUEUE', taskId: task.taskId });
    state.command(...(taskKindOf(task.workflowTask)?.cancel?.(task, reason) ?? []));
  }
}

/**
 * The run's output (Conductor's `updateWorkflowOutput`): the definition's `outputParameters`
 * resolved when it has any, else the output of the given task or of the last task.
 */
export function runOutput(state: RunState, task?: TaskRecord): JsonObject {
  const params = state.run.workflowDefinition.outputParameters;
  if (params && Object.keys(params).length > 0) {
    return resolveParameters(params, state.expressionDocument());
  }
  const source = task ?? state.tasks[state.tasks.length - 1];
  return source ? structuredClone(source.outputData) : {};
}
