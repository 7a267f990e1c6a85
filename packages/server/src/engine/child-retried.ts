import { isSuccessfulTaskStatus, isTerminalTaskStatus, type RunReopening } from '@baton/protocol';
import { kindNameOf } from './graph.js';
import { taskKindOf } from './kinds/registry.js';
import { workflowTimeoutTimer } from './attempt-timers.js';
import type { RunState } from './run-state.js';
import { placeCommand, placeTask, suffixOf } from './scope.js';
import type { EngineEvent } from './types.js';
import { copyWith } from '../copy-with.js';

/**
 * A child run of this run was retried (Baton's retry makes a new linked child run) or reopened
 * (`CHILD_RETRIED`, sent in that transaction to the child's parent, and on up the chain as each
 * ancestor reopens). As Conductor's `updateAndPushParents`: when the SUB_WORKFLOW task that
 * followed the old child is the one that ended this run, the run returns to RUNNING, the task
 * to IN_PROGRESS following the new child, the JOIN/DO_WHILE its end canceled to IN_PROGRESS,
 * and every other task its end canceled gets a new attempt. An optional task, a superseded
 * attempt, or a run retried already (its successor carries on) is left alone.
 */
export function applyChildRetried(
  state: RunState,
  event: Extract<EngineEvent, { type: 'CHILD_RETRIED' }>,
): 'ignored' | 'reopened' {
  const run = state.run;
  if (run.status !== 'FAILED' && run.status !== 'TIMED_OUT' && run.status !== 'TERMINATED') return 'ignored';
  if ((run.links.retried_by ?? []).length > 0) return 'ignored';
  const task = state.task(event.taskId);
  if (!task || task.retried || kindNameOf(task.workflowTask) !== 'SUB_WORKFLOW') return 'ignored';
  if (task.workflowTask.optional === true) return 'ignored';
  if (!isTerminalTaskStatus(task.status) || isSuccessfulTaskStatus(task.status)) return 'ignored';
  if (task.subWorkflowId !== event.previousChildId) return 'ignored';
  if (state.latestByRef(task.referenceTaskName)?.taskId !== task.taskId) return 'ignored';

  const now = state.now;
  // The tasks the run's end canceled, but not the task itself: a run that timed out or was
  // terminated canceled its SUB_WORKFLOW task too, and that task follows the new child below
  // (another attempt of it would start a second child).
  const canceled = state.tasks.filter(
    (t) =>
      t.taskId !== task.taskId &&
      t.status === 'CANCELED' &&
      !t.retried &&
      state.latestByRef(t.referenceTaskName)?.taskId === t.taskId,
  );
  const reopening: RunReopening = {
    time: now,
    taskId: task.taskId,
    newTaskId: task.taskId,
    taskRef: task.referenceTaskName,
    previousStatus: run.status,
  };
  if (run.reasonForIncompletion !== undefined) reopening.previousReason = run.reasonForIncompletion;
  const { reasonForIncompletion: _reason, ...rest } = run;
  state.replaceRun(
    copyWith(rest, {
      status: 'RUNNING',
      endTime: 0,
      failedReferenceTaskNames: [],
      failedTaskNames: [],
      reopened: [...(run.reopened ?? []), reopening],
    }),
  );
  state.command(...workflowTimeoutTimer(state.ctx.newId, run.workflowDefinition.timeoutSeconds, now));
  state.updateTask(task, {
    status: 'IN_PROGRESS',
    subWorkflowId: event.childWorkflowId,
    outputData: { subWorkflowId: event.childWorkflowId },
    reasonForIncompletion: undefined,
    endTime: 0,
    updateTime: now,
    executed: false,
  });
  for (const t of canceled) {
    const kind = kindNameOf(t.workflowTask);
    if (kind === 'JOIN' || kind === 'DO_WHILE' || kind === 'EXCLUSIVE_JOIN') {
      state.updateTask(t, { status: 'IN_PROGRESS', endTime: 0, updateTime: now, executed: false });
      continue;
    }
    const taskKind = taskKindOf(t.workflowTask);
    if (!taskKind) continue;
    const scope = { suffix: suffixOf(t), iteration: t.iteration };
    const outcome = taskKind.schedule(state.scheduleContext(), t.workflowTask, {
      retryOf: t,
      delayMs: 0,
      scope,
    });
    if (!outcome.ok) continue;
    state.updateTask(t, { retried: true, executed: true });
    const base = t.workflowTask.taskReferenceName;
    state.addTasks(outcome.tasks.map((n) => placeTask(n, base, t.referenceTaskName, t.iteration)));
    state.command(...outcome.commands.map((c) => placeCommand(c, base, t.referenceTaskName)));
  }
  return 'reopened';
}
