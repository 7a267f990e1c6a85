import type { TaskRecord } from '@baton/protocol';
import { taskKindOf } from './kinds/registry.js';
import { failRun } from './run-end.js';
import type { RunState } from './run-state.js';
import { placeCommand, placeTask, suffixOf } from './scope.js';
import { effectiveTaskDef } from './task-config.js';

/**
 * Attempts of a task (docs/design/task-lifecycle.md#retries): whether an ended attempt gets
 * another, making it, and moving the message of one that gets none to the dead-letter queue. Used
 * by the evaluation loop (failed results, timeouts under RETRY) and by lock expiry (a new attempt
 * at once).
 */

/** The first attempt of the task `task` is an attempt of (following `retriedTaskId`). */
export function firstAttempt(state: RunState, task: TaskRecord): TaskRecord {
  let current = task;
  const seen = new Set<string>();
  while (current.retriedTaskId !== undefined && !seen.has(current.taskId)) {
    seen.add(current.taskId);
    const previous = state.task(current.retriedTaskId);
    if (!previous) break;
    current = previous;
  }
  return current;
}

/**
 * Whether an ended attempt gets another one starting `delayMs` from now: FAILED or TIMED_OUT
 * (never FAILED_WITH_TERMINAL_ERROR or CANCELED), a kind that retries, attempts left
 * (`retryCount` of the workflow task, else of the task definition), and the new attempt would
 * start before the task's `totalTimeoutSeconds` (counted from the first attempt) runs out.
 */
export function canRetry(state: RunState, task: TaskRecord, delayMs: number): boolean {
  if (task.status !== 'FAILED' && task.status !== 'TIMED_OUT') return false;
  const kind = taskKindOf(task.workflowTask);
  if (kind?.retryable !== true) return false;
  const config = effectiveTaskDef(task.workflowTask, state.ctx.taskDefs);
  if (kind.retriesNeedTaskDefinition === true && config.definition === undefined) return false;
  if (task.retryCount >= config.retryCount) return false;
  if (config.totalTimeoutSeconds > 0) {
    const deadline = firstAttempt(state, task).scheduledTime + config.totalTimeoutSeconds * 1000;
    if (state.now + delayMs >= deadline) return false;
  }
  return true;
}

/** Makes the next attempt of an ended task, queued `delayMs` from now; the old one is `retried`. */
export function retryTask(state: RunState, task: TaskRecord, delayMs: number): void {
  const kind = taskKindOf(task.workflowTask);
  if (!kind) return;
  // The new attempt keeps the old one's loop scope (ref `x__N`, iteration N).
  const scope = { suffix: suffixOf(task), iteration: task.iteration };
  const outcome = kind.schedule(state.scheduleContext(), task.workflowTask, {
    retryOf: task,
    delayMs,
    scope,
  });
  if (!outcome.ok) {
    failRun(state, 'FAILED', outcome.reason);
    return;
  }
  state.updateTask(task, { retried: true, executed: true });
  const base = task.workflowTask.taskReferenceName;
  const ref = task.referenceTaskName;
  state.addTasks(outcome.tasks.map((t) => placeTask(t, base, ref, task.iteration)));
  state.command(...outcome.commands.map((c) => placeCommand(c, base, ref)));
}

/**
 * A worker task that ended unsuccessfully and gets no other attempt: its message goes to the
 * dead-letter queue (an operator may requeue it: `POST /api/admin/requeue/{type}`). Not a task
 * that failed with a terminal error: it said another attempt would fail too, so requeueing it
 * would only repeat the failure; its message is dropped with the task.
 */
export function deadLetter(state: RunState, task: TaskRecord): void {
  if (task.queueName === undefined) return;
  if (task.status !== 'FAILED' && task.status !== 'TIMED_OUT') return;
  state.command({
    type: 'DEAD_LETTER',
    taskId: task.taskId,
    queueName: task.queueName,
    taskRef: task.referenceTaskName,
    attempt: task.retryCount + 1,
    priority: task.workflowPriority,
    // The attempt's own lease (a system call's is shorter than its definition's response timeout).
    lockMs: task.responseTimeoutSeconds * 1000,
  });
}
