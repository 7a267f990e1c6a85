import type { JsonObject, TaskRecord, TaskStatus, ValidationError, WorkflowTask } from '@baton/protocol';
import { resolveParameters } from '../expressions.js';
import type { ScheduleContext, ScheduleRequest } from './kind.js';

/**
 * A task record for a system kind (run by Baton itself, never queued for a worker): its
 * `inputParameters` resolved against the run, `taskType` = the kind. Synchronous kinds answer
 * it already terminal (`finish`); the evaluation loop then acts on it in the same decide.
 */
export function systemTask(
  sctx: ScheduleContext,
  workflowTask: WorkflowTask,
  kind: string,
  request: ScheduleRequest = {},
): TaskRecord {
  const { ctx, run } = sctx;
  const taskId = ctx.newId();
  const previous = request.retryOf;
  const task: TaskRecord = {
    taskId,
    workflowInstanceId: run.workflowId,
    workflowType: run.workflowName,
    taskType: kind,
    taskDefName: workflowTask.name,
    referenceTaskName: workflowTask.taskReferenceName,
    status: 'SCHEDULED',
    seq: sctx.nextSeq,
    retryCount: previous ? previous.retryCount + 1 : 0,
    inputData: resolveParameters(workflowTask.inputParameters ?? {}, sctx.expressionDocument(), { taskId }),
    outputData: {},
    pollCount: 0,
    scheduledTime: ctx.now,
    startTime: ctx.now,
    endTime: 0,
    updateTime: ctx.now,
    startDelayInSeconds: 0,
    callbackAfterSeconds: 0,
    responseTimeoutSeconds: 0,
    retried: false,
    executed: false,
    workflowPriority: run.priority,
    iteration: previous?.iteration ?? 0,
    workflowTask,
  };
  if (previous) task.retriedTaskId = previous.taskId;
  if (run.correlationId !== undefined) task.correlationId = run.correlationId;
  return task;
}

/** The task ended inside this decide: status, output, reason. */
export function finish(
  task: TaskRecord,
  status: TaskStatus,
  outputData: JsonObject,
  reason?: string,
): TaskRecord {
  const ended: TaskRecord = { ...task, status, outputData, endTime: task.scheduledTime };
  if (reason !== undefined) ended.reasonForIncompletion = reason;
  return ended;
}

/** A required string field of `inputParameters`, in Conductor's words when missing. */
export function requiredInput(
  workflowTask: WorkflowTask,
  field: string,
  path: string,
): { value: string | undefined; problem?: ValidationError } {
  const raw: unknown = workflowTask.inputParameters?.[field];
  if (typeof raw === 'string' && raw.trim() !== '') return { value: raw };
  return {
    value: undefined,
    problem: {
      path: `${path}.inputParameters.${field}`,
      message: `inputParameters.${field} field is required for taskType: ${String(workflowTask.type)} taskName: ${workflowTask.name}`,
      ...(raw !== undefined && { invalidValue: raw }),
    },
  };
}

/** True when a field is an expression resolved at run time: it cannot be checked at registration. */
export function isRunTimeValue(text: string): boolean {
  return text.includes('${');
}
