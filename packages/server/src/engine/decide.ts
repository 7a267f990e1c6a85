import {
  isSuccessfulTaskStatus,
  isTerminalTaskStatus,
  isTerminalWorkflowStatus,
  type JsonObject,
  type TaskRecord,
  type TaskResult,
  type WorkflowStatus,
  type WorkflowTask,
} from '@baton/protocol';
import { buildExpressionDocument, resolveParameters } from './expressions.js';
import { firstTask, nextAfter } from './graph.js';
import { kindNameOf, taskKindOf, unsupportedKindMessage } from './kinds/registry.js';
import { retryDelayMs } from './retry.js';
import { RunState } from './run-state.js';
import { effectiveTaskDef } from './task-config.js';
import type { DecideContext, Decision, EngineEvent } from './types.js';

/**
 * The interpreter: given a run, its tasks and one event, says what changes. Pure: it reads
 * time, ids and randomness only from `ctx`, and never changes `ctx` (changed records are
 * copies). See ARCHITECTURE.md.
 */
export function decide(ctx: DecideContext, event: EngineEvent): Decision {
  const state = new RunState(ctx);
  switch (event.type) {
    case 'START':
    case 'DECIDE':
      evaluate(state);
      return state.decision();
    case 'TASK_RESULT': {
      const outcome = applyResult(state, event.result);
      if (outcome === 'ignored') return state.decision(true);
      if (outcome === 'ended') evaluate(state);
      return state.decision();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Task results

type ResultOutcome = 'ignored' | 'ended' | 'open';

function applyResult(state: RunState, result: TaskResult): ResultOutcome {
  const task = state.task(result.taskId);
  if (!task || isTerminalTaskStatus(task.status) || isTerminalWorkflowStatus(state.run.status))
    return 'ignored';
  const now = state.now;
  if (result.status === 'IN_PROGRESS') {
    if (result.extendLease === true) {
      state.updateTask(task, { updateTime: now });
      state.command({
        type: 'EXTEND_LOCK',
        taskId: task.taskId,
        lockedUntil: now + task.responseTimeoutSeconds * 1000,
      });
      return 'open';
    }
    // Conductor: a worker's IN_PROGRESS puts the task back on its queue, due after the callback.
    const callback = Math.max(0, Math.floor(result.callbackAfterSeconds ?? 0));
    state.updateTask(task, {
      status: 'SCHEDULED',
      callbackAfterSeconds: callback,
      updateTime: now,
      ...resultFields(result),
    });
    state.command({ type: 'REQUEUE', taskId: task.taskId, visibleAt: now + callback * 1000 });
    return 'open';
  }
  state.updateTask(task, { status: result.status, endTime: now, updateTime: now, ...resultFields(result) });
  state.command({ type: 'DEQUEUE', taskId: task.taskId });
  return 'ended';
}

function resultFields(result: TaskResult): Partial<TaskRecord> {
  const fields: Partial<TaskRecord> = {};
  if (result.outputData !== undefined) fields.outputData = result.outputData;
  if (result.reasonForIncompletion !== undefined) fields.reasonForIncompletion = result.reasonForIncompletion;
  if (result.workerId !== undefined) fields.workerId = result.workerId;
  return fields;
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/**
 * Acts on every ended task not yet acted on, in seq order, until none is left: a success
 * schedules what follows it, a failure retries, continues (optional) or fails the run. Then
 * completes the run when everything is done. Only a RUNNING run moves.
 */
function evaluate(state: RunState): void {
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
  const kind = taskKindOf(workflowTask);
  const config = effectiveTaskDef(workflowTask, state.ctx.taskDefs);
  const retriable = task.status === 'FAILED' || task.status === 'TIMED_OUT';
  if (retriable && kind?.retryable === true && task.retryCount < config.retryCount) {
    const sctx = state.scheduleContext();
    const delayMs = retryDelayMs(config, task.retryCount, state.ctx.random);
    const outcome = kind.schedule(sctx, workflowTask, { retryOf: task, delayMs });
    if (!outcome.ok) {
      failRun(state, 'FAILED', outcome.reason);
      return;
    }
    state.updateTask(task, { retried: true });
    state.addTasks(outcome.tasks);
    state.command(...outcome.commands);
    return;
  }
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

function scheduleNode(state: RunState, workflowTask: WorkflowTask): void {
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

/** Conductor's `DeciderService.retry`: CANCELED → TERMINATED, TIMED_OUT → TIMED_OUT, else FAILED. */
export function runStatusForFailedTask(task: Pick<TaskRecord, 'status'>): WorkflowStatus {
  if (task.status === 'CANCELED') return 'TERMINATED';
  if (task.status === 'TIMED_OUT') return 'TIMED_OUT';
  return 'FAILED';
}

/**
 * The reason of a run ended by a task, in Conductor's words (`DeciderService.retry`):
 * `Task %s failed with status: %s and reason: '%s'` with the run's new status and the task's
 * reason (`null` when it has none, as Java prints it). Conductor puts the task *id* first;
 * Baton puts the reference name, which says which step failed.
 */
export function taskFailureReason(
  task: Pick<TaskRecord, 'referenceTaskName' | 'reasonForIncompletion'>,
  runStatus: WorkflowStatus,
): string {
  return `Task ${task.referenceTaskName} failed with status: ${runStatus} and reason: '${task.reasonForIncompletion ?? 'null'}'`;
}

/** Ends the run: status, reason, failed task names, output, and every open task canceled. */
function failRun(state: RunState, status: WorkflowStatus, reason: string, failedTask?: TaskRecord): void {
  const now = state.now;
  for (const task of state.tasks) {
    if (isTerminalTaskStatus(task.status)) continue;
    state.updateTask(task, { status: 'CANCELED', endTime: now, updateTime: now, executed: true });
    state.command({ type: 'DEQUEUE', taskId: task.taskId });
  }
  const run = state.run;
  const failedRefs = [...run.failedReferenceTaskNames];
  const failedNames = [...run.failedTaskNames];
  if (failedTask) {
    if (!failedRefs.includes(failedTask.referenceTaskName)) failedRefs.push(failedTask.referenceTaskName);
    if (!failedNames.includes(failedTask.taskDefName)) failedNames.push(failedTask.taskDefName);
  }
  state.updateRun({
    status,
    endTime: now,
    reasonForIncompletion: reason,
    failedReferenceTaskNames: failedRefs,
    failedTaskNames: failedNames,
    output: runOutput(state, failedTask),
  });
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

/**
 * The run's output (Conductor's `updateWorkflowOutput`): the definition's `outputParameters`
 * resolved when it has any, else the output of the given task or of the last task.
 */
function runOutput(state: RunState, task?: TaskRecord): JsonObject {
  const params = state.run.workflowDefinition.outputParameters;
  if (params && Object.keys(params).length > 0) {
    return resolveParameters(params, buildExpressionDocument(state.run, state.tasks));
  }
  const source = task ?? state.tasks[state.tasks.length - 1];
  return source ? structuredClone(source.outputData) : {};
}
