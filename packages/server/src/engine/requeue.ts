import type { RunReopening } from '@baton/protocol';
import { taskKindOf } from './kinds/registry.js';
import { workflowTimeoutTimer } from './attempt-timers.js';
import type { RunState } from './run-state.js';
import { copyWith } from '../copy-with.js';

/**
 * An operator requeues a dead-lettered task (`POST /api/admin/requeue/{type}`,
 * docs/design/task-lifecycle.md#dead-letters-and-repair): the task is reopened as a NEW attempt in
 * the same run (history is never rewritten), queued now. A run that had failed (or timed out)
 * because of this task returns to RUNNING, and that is recorded in the run's `reopened` list with
 * the status and reason it had. Ignored when the attempt is not the latest of its step, has not
 * failed (or failed with a terminal error), or nothing waits on it any more (the run completed, was
 * terminated, or continued past it as optional).
 */
export function applyRequeue(state: RunState, taskId: string): 'ignored' | 'changed' {
  const task = state.task(taskId);
  if (!task || task.retried) return 'ignored';
  // A terminal error is never dead-lettered (attempts.ts deadLetter): nothing to requeue.
  if (task.status !== 'FAILED' && task.status !== 'TIMED_OUT') return 'ignored';
  if (state.latestByRef(task.referenceTaskName)?.taskId !== task.taskId) return 'ignored';
  const kind = taskKindOf(task.workflowTask);
  if (!kind) return 'ignored';
  const run = state.run;
  const failedByIt =
    (run.status === 'FAILED' || run.status === 'TIMED_OUT') &&
    run.failedReferenceTaskNames.includes(task.referenceTaskName);
  if (!failedByIt) return 'ignored';

  const outcome = kind.schedule(state.scheduleContext(), task.workflowTask, { retryOf: task, delayMs: 0 });
  if (!outcome.ok) return 'ignored';
  const reopening: RunReopening = {
    time: state.now,
    taskId: task.taskId,
    newTaskId: outcome.tasks[0]?.taskId ?? '',
    taskRef: task.referenceTaskName,
    previousStatus: run.status,
  };
  if (run.reasonForIncompletion !== undefined) reopening.previousReason = run.reasonForIncompletion;
  const { reasonForIncompletion: _reason, ...rest } = run;
  state.replaceRun(
    copyWith(rest, {
      status: 'RUNNING',
      endTime: 0,
      failedReferenceTaskNames: run.failedReferenceTaskNames.filter((r) => r !== task.referenceTaskName),
      failedTaskNames: run.failedTaskNames.filter((n) => n !== task.taskDefName),
      reopened: [...(run.reopened ?? []), reopening],
    }),
  );
  // The run's deadline starts again from the reopening (Conductor counts from the last retry).
  state.command(...workflowTimeoutTimer(state.ctx.newId, run.workflowDefinition.timeoutSeconds, state.now));
  state.updateTask(task, { retried: true, executed: true });
  state.command({ type: 'DEQUEUE', taskId: task.taskId });
  state.addTasks(outcome.tasks);
  state.command(...outcome.commands);
  return 'changed';
}
