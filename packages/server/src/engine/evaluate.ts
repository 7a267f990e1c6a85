import {
  isSuccessfulTaskStatus,
  isTerminalTaskStatus,
  type TaskRecord,
  type WorkflowTask,
} from '@baton/protocol';
import { canRetry, deadLetter, retryTask } from './attempts.js';
import { firstTask, nextAfter } from './graph.js';
import { kindNameOf, taskKindOf, unsupportedKindMessage } from './kinds/registry.js';
import { retryDelayMs } from './retry.js';
import { failRun, runOutput, runStatusForFailedTask, taskFailureReason } from './run-end.js';
import type { RunState } from './run-state.js';
import { effectiveTaskDef } from './task-config.js';

/**
 * Acts on every ended task not yet acted on, in seq order, until none is left: a success
 * schedules what follows it, a failure retries, continues (optional) or fails the run. Then
 * completes the run when everything is done. Only a RUNNING run moves.
 */
export function evaluate(state: RunState): void {
  if (state.run.status !== 'RUNNING') return;
  if (state.tasks.length === 0) {
    const first = firstTask(state.run.workflowDefinition);
    if (first) scheduleNode(state, first);
  }
  while (state.run.status === 'RUNNING') {
    const pending = state.tasks.find((task) => !task.executed && isTerminalTaskStatus(task.status));
    if (!pending) break;
    actOnEndedTask(state, pending);
  }
  if (state.run.status === 'RUNNING' && isRunComplete(state)) {
    state.updateRun({ status: 'COMPLETED', endTime: state.now, output: runOutput(state) });
  }
}

function actOnEndedTask(state: RunState, ended: TaskRecord): void {
  const task = state.updateTask(ended, { executed: true });
  if (task.retried || isSuccessfulTaskStatus(task.status)) {
    if (!task.retried) scheduleNext(state, task);
    return;
  }
  const workflowTask = task.workflowTask;
  const config = effectiveTaskDef(workflowTask, state.ctx.taskDefs);
  const delayMs = retryDelayMs(config, task.retryCount, state.ctx.random);
  if (canRetry(state, task, delayMs)) {
    retryTask(state, task, delayMs);
    return;
  }
  // No other attempt: a worker task's message goes to the dead-letter queue (DESIGN §6).
  deadLetter(state, task);
  if (workflowTask.optional === true) {
    const continued = state.updateTask(task, { status: 'COMPLETED_WITH_ERRORS' });
    scheduleNext(state, continued);
    return;
  }
  const status = runStatusForFailedTask(task);
  failRun(state, status, taskFailureReason(task, status), task);
}

function scheduleNext(state: RunState, task: TaskRecord): void {
  const step = nextAfter(state.run.workflowDefinition, task.referenceTaskName);
  // 'end': the completion check after the loop decides. 'branch-end': the container kind's
  // business (SWITCH, FORK_JOIN, DO_WHILE) once those kinds exist; none is registered yet.
  if (step?.type === 'task') scheduleNode(state, step.task);
}

export function scheduleNode(state: RunState, workflowTask: WorkflowTask): void {
  if (state.latestByRef(workflowTask.taskReferenceName)) return;
  const kind = taskKindOf(workflowTask);
  if (!kind) {
    failRun(state, 'FAILED', unsupportedKindMessage(kindNameOf(workflowTask)));
    return;
  }
  const outcome = kind.schedule(state.scheduleContext(), workflowTask, {});
  if (!outcome.ok) {
    failRun(state, 'FAILED', outcome.reason);
    return;
  }
  state.addTasks(outcome.tasks);
  state.command(...outcome.commands);
}

/**
 * Complete when nothing is open or waiting to be acted on and every top-level task of the
 * definition has ended successfully (Conductor's `checkForWorkflowCompletion`).
 */
function isRunComplete(state: RunState): boolean {
  if (state.tasks.some((task) => !isTerminalTaskStatus(task.status) || !task.executed)) return false;
  return state.run.workflowDefinition.tasks.every((workflowTask) => {
    const latest = state.latestByRef(workflowTask.taskReferenceName);
    return latest !== undefined && isSuccessfulTaskStatus(latest.status);
  });
}
