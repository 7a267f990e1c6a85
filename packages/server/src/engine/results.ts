import {
  isTerminalTaskStatus,
  isTerminalWorkflowStatus,
  type TaskRecord,
  type TaskResult,
} from '@baton/protocol';
import { taskKindOf } from './kinds/registry.js';
import { hasWaitTimer } from './kinds/wait.js';
import type { RunState } from './run-state.js';
import { effectiveTaskDef } from './task-config.js';
import { describeViolations, schemaViolations } from './validation/schema-check.js';

/**
 * A worker's (or an external caller's) result for one task, applied to the task record and
 * its queue message. Whether the run then moves is the evaluation's business (`evaluate.ts`).
 */

export type ResultOutcome = 'ignored' | 'ended' | 'open';

export function applyResult(state: RunState, result: TaskResult, detach = false): ResultOutcome {
  const task = state.task(result.taskId);
  if (!task || isTerminalTaskStatus(task.status) || isTerminalWorkflowStatus(state.run.status))
    return 'ignored';
  // JOIN, DO_WHILE, …: only the interpreter ends them (an outside result would skip their work).
  if (taskKindOf(task.workflowTask)?.engineOnly === true) return 'ignored';
  const now = state.now;
  if (result.status === 'IN_PROGRESS' && task.queueName === undefined) {
    // A task with no worker queue (WAIT, HUMAN) stays IN_PROGRESS: record what was sent.
    state.updateTask(task, { updateTime: now, ...resultFields(result) });
    return 'open';
  }
  if (result.status === 'IN_PROGRESS' && detach) {
    // asyncComplete: the call was made; the task now waits, off its queue and with no lease,
    // for an outside completion (`POST /api/tasks`, by name), like a HUMAN task.
    state.updateTask(task, {
      status: 'IN_PROGRESS',
      queueName: undefined,
      updateTime: now,
      ...resultFields(result),
    });
    // Off its queue, its lock (the response deadline) goes with the message.
    state.command({ type: 'DEQUEUE', taskId: task.taskId });
    return 'open';
  }
  if (result.status === 'IN_PROGRESS') {
    if (result.extendLease === true) {
      state.updateTask(task, { updateTime: now });
      // The lock is the response deadline: moving it moves the response timeout.
      const lockedUntil = now + task.responseTimeoutSeconds * 1000;
      state.command({ type: 'EXTEND_LOCK', taskId: task.taskId, lockedUntil });
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
    // Back on its queue, unlocked: no worker holds it, so no response timeout runs.
    state.command({ type: 'REQUEUE', taskId: task.taskId, visibleAt: now + callback * 1000 });
    return 'open';
  }
  const fields = resultFields(result);
  const status = result.status === 'COMPLETED' ? outputCheck(state, task, fields) : result.status;
  state.updateTask(task, { status, endTime: now, updateTime: now, ...fields });
  state.command({ type: 'DEQUEUE', taskId: task.taskId });
  // A WAIT completed from outside before its timer: the timer has nothing left to do.
  if (hasWaitTimer(task)) state.command({ type: 'CANCEL_TIMERS', taskId: task.taskId, kinds: ['WAIT'] });
  return 'ended';
}

/**
 * A COMPLETED result whose output breaks the task definition's outputSchema fails the attempt
 * instead (FAILED, so the normal retry rules apply), with the schema errors as its reason.
 */
function outputCheck(state: RunState, task: TaskRecord, fields: Partial<TaskRecord>): 'COMPLETED' | 'FAILED' {
  const definition = effectiveTaskDef(task.workflowTask, state.ctx.taskDefs).definition;
  const violations = schemaViolations(definition, 'outputSchema', fields.outputData ?? task.outputData);
  if (violations.length === 0) return 'COMPLETED';
  fields.reasonForIncompletion = describeViolations('outputSchema', violations);
  return 'FAILED';
}

function resultFields(result: TaskResult): Partial<TaskRecord> {
  const fields: Partial<TaskRecord> = {};
  if (result.outputData !== undefined) fields.outputData = result.outputData;
  if (result.reasonForIncompletion !== undefined) fields.reasonForIncompletion = result.reasonForIncompletion;
  if (result.workerId !== undefined) fields.workerId = result.workerId;
  if (result.externalOutputPayloadStoragePath !== undefined)
    fields.externalOutputPayloadStoragePath = result.externalOutputPayloadStoragePath;
  return fields;
}
