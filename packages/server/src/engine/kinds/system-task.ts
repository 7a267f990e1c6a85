import {
  isTerminalTaskStatus,
  type JsonObject,
  type JsonValue,
  type TaskRecord,
  type TaskStatus,
  type ValidationError,
  type WorkflowTask,
} from '@baton/protocol';
import { resolveParameters } from '../expressions.js';
import type { ScheduleContext, ScheduleOutcome, ScheduleRequest } from './kind.js';
import { copyWith } from '../../copy-with.js';

/** Shared pieces of the system kinds (those the interpreter runs itself, with no worker queue). */

export interface SystemTaskFields {
  readonly status: TaskStatus;
  readonly inputData: JsonObject;
  readonly outputData?: JsonObject;
  readonly reasonForIncompletion?: string;
  /** Defaults to the node's kind; Conductor calls FORK_JOIN(_DYNAMIC) tasks `FORK`. */
  readonly taskType?: string;
  readonly taskId?: string;
  readonly iteration?: number;
  readonly callbackAfterSeconds?: number;
}

/** A system task record for `node`, started now (and ended now when `status` is terminal). */
export function systemTask(
  sctx: ScheduleContext,
  node: WorkflowTask,
  request: ScheduleRequest,
  fields: SystemTaskFields,
): TaskRecord {
  const { ctx, run } = sctx;
  const previous = request.retryOf;
  const type = fields.taskType ?? (typeof node.type === 'string' ? node.type : 'SIMPLE');
  const task: TaskRecord = {
    taskId: fields.taskId ?? ctx.newId(),
    workflowInstanceId: run.workflowId,
    workflowType: run.workflowName,
    taskType: type,
    taskDefName: node.name,
    referenceTaskName: previous?.referenceTaskName ?? node.taskReferenceName + (request.scope?.suffix ?? ''),
    status: fields.status,
    seq: sctx.nextSeq,
    retryCount: previous ? previous.retryCount + 1 : 0,
    inputData: fields.inputData,
    outputData: fields.outputData ?? {},
    pollCount: 0,
    scheduledTime: ctx.now,
    startTime: ctx.now,
    endTime: isTerminalTaskStatus(fields.status) ? ctx.now : 0,
    updateTime: ctx.now,
    startDelayInSeconds: 0,
    callbackAfterSeconds: fields.callbackAfterSeconds ?? 0,
    responseTimeoutSeconds: 0,
    retried: false,
    executed: false,
    workflowPriority: run.priority,
    iteration: fields.iteration ?? previous?.iteration ?? request.scope?.iteration ?? 0,
    workflowTask: node,
  };
  if (previous) task.retriedTaskId = previous.taskId;
  if (fields.reasonForIncompletion !== undefined) task.reasonForIncompletion = fields.reasonForIncompletion;
  if (run.correlationId !== undefined) task.correlationId = run.correlationId;
  return task;
}

/**
 * Schedules the node as one task that completes at once with its resolved input (NOOP,
 * SET_VARIABLE, FORK_JOIN); what it does then is the kind's `onSuccess`.
 */
export function scheduleCompleted(
  sctx: ScheduleContext,
  node: WorkflowTask,
  request: ScheduleRequest,
  taskType?: string,
): ScheduleOutcome {
  const taskId = sctx.ctx.newId();
  const task = systemTask(sctx, node, request, {
    taskId,
    taskType,
    status: 'COMPLETED',
    inputData: resolvedInput(sctx, node, taskId),
  });
  return { ok: true, tasks: [task], commands: [] };
}

/** The node's `inputParameters` resolved against the run as it stands. */
export function resolvedInput(sctx: ScheduleContext, node: WorkflowTask, taskId: string): JsonObject {
  const input = resolveParameters(node.inputParameters ?? {}, sctx.expressionDocument(), { taskId });
  // Conductor's rerun sets the task's input before it runs, so a system task that runs at once
  // (JSON_JQ_TRANSFORM in JsonJQTransformSpec's rerun) works on the new input.
  const rerun = sctx.rerunInput;
  return rerun !== undefined && rerun.ref === node.taskReferenceName ? copyWith(input, rerun.input) : input;
}

/** Conductor's `"%s field is required for taskType: %s taskName: %s"` at `path.field`. */
export function requiredField(
  path: string,
  field: string,
  node: WorkflowTask,
  value?: unknown,
): ValidationError {
  const problem: ValidationError = {
    path: `${path}.${field}`,
    message: `${field} field is required for taskType: ${String(node.type)} taskName: ${node.name}`,
  };
  return value === undefined ? problem : copyWith(problem, { invalidValue: value });
}

/** A problem at `path.field` whose message names the task. */
export function fieldProblem(
  path: string,
  field: string,
  node: WorkflowTask,
  message: string,
  value?: unknown,
): ValidationError {
  const problem: ValidationError = {
    path: `${path}.${field}`,
    message: `${message} (taskType: ${String(node.type)} taskName: ${node.name})`,
  };
  return value === undefined ? problem : copyWith(problem, { invalidValue: value });
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for a string holding a `${…}` expression: its value is known only at run time. */
export function isExpression(value: unknown): boolean {
  return typeof value === 'string' && value.includes('${');
}

/** Java's `"" + value` for a JSON value (how Conductor turns an evaluation result into a case). */
export function javaString(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return javaMapString(value);
}

/** Java's `Map.toString()`/`List.toString()` shape, for Conductor's messages that print inputs. */
export function javaMapString(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map((item) => javaMapString(item)).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, item]) => `${key}=${javaMapString(item)}`)
      .join(', ')}}`;
  return value === null ? 'null' : String(value);
}

/**
 * A SCHEDULED system task of `kind` with its `inputParameters` resolved: the script and
 * child-run kinds then end it with `finish` (or leave it open while a child runs).
 */
export function startedSystemTask(
  sctx: ScheduleContext,
  node: WorkflowTask,
  kind: string,
  request: ScheduleRequest = {},
): TaskRecord {
  const taskId = sctx.ctx.newId();
  return systemTask(sctx, node, request, {
    status: 'SCHEDULED',
    taskType: kind,
    taskId,
    inputData: resolvedInput(sctx, node, taskId),
  });
}

/** The task ended inside this decide: status, output, reason. */
export function finish(
  task: TaskRecord,
  status: TaskStatus,
  outputData: JsonObject,
  reason?: string,
): TaskRecord {
  const ended: TaskRecord = copyWith(task, { status, outputData, endTime: task.scheduledTime });
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
