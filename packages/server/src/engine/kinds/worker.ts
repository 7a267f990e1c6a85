import type {
  JsonObject,
  TaskRecord,
  TemplateSecretRef,
  ValidationError,
  WorkflowDef,
  WorkflowTask,
} from '@baton/protocol';
import { resolveTemplate, type ExpressionDocument } from '../expressions.js';
import { findTask } from '../graph.js';
import { attemptTimers } from '../attempt-timers.js';
import { queuedAt, runQueueSince } from '../queue-order.js';
import { retryDelaySeconds } from '../retry.js';
import { effectiveTaskDef, taskDefinitionOf, type EffectiveTaskDef } from '../task-config.js';
import type { Command } from '../types.js';
import { describeViolations, schemaViolations } from '../validation/schema-check.js';
import type { CheckContext, ScheduleContext, ScheduleOutcome, ScheduleRequest, TaskKind } from './kind.js';

/**
 * Worker tasks: SIMPLE, and USER_DEFINED (a `type` that is no known kind but names a
 * registered task definition, Conductor's `TaskType.of` fallback). Both are queued on
 * `{type}` (`{domain}-{type}`, `-high` for high-priority runs) for an external worker.
 */

/** Conductor's `taskToDomain` value meaning "no domain". */
const NO_DOMAIN = 'NO_DOMAIN';

export const simpleKind: TaskKind = {
  kind: 'SIMPLE',
  retryable: true,
  waiting: 'queued',
  schedule: scheduleWorkerTask,
  check: () => [],
};

export const userDefinedKind: TaskKind = {
  kind: 'USER_DEFINED',
  retryable: true,
  waiting: 'queued',
  schedule(sctx, workflowTask, request) {
    if (taskDefinitionOf(workflowTask, sctx.ctx.taskDefs) === undefined) {
      // Conductor's UserDefinedTaskMapper message; the definition lost its task definition.
      return {
        ok: false,
        reason: `Invalid task specified. Cannot find task by name ${workflowTask.name} in the task definitions`,
      };
    }
    return scheduleWorkerTask(sctx, workflowTask, request);
  },
  check(workflowTask: WorkflowTask, path: string, cctx: CheckContext): ValidationError[] {
    const inline: unknown = workflowTask.taskDefinition;
    if (cctx.taskDefNames.has(workflowTask.name) || (typeof inline === 'object' && inline !== null))
      return [];
    return [
      {
        path: `${path}.type`,
        message: `unknown task type '${String(workflowTask.type)}' and no task definition named '${workflowTask.name}' is registered`,
        invalidValue: workflowTask.type,
      },
    ];
  },
};

/**
 * Where a queued task goes when it is not a worker task: the engine's own executor takes
 * system calls (HTTP, CALL_TOOL, …) from internal queues, with the same claim and lease.
 */
export interface QueueTarget {
  /** The record's `taskType` (the node's kind, e.g. `HTTP`). */
  readonly taskType: string;
  /** The internal queue (no domain, no `-high` variant). */
  readonly queueName: string;
  /** The lease of one hand-out, in seconds (the record's responseTimeoutSeconds). */
  readonly leaseSeconds: (config: EffectiveTaskDef) => number;
}

export function scheduleWorkerTask(
  sctx: ScheduleContext,
  workflowTask: WorkflowTask,
  request: ScheduleRequest,
  target?: QueueTarget,
): ScheduleOutcome {
  const { ctx, run } = sctx;
  const config = effectiveTaskDef(workflowTask, ctx.taskDefs);
  const taskId = ctx.newId();
  const name = workflowTask.name;
  const domain = target ? undefined : domainFor(run.taskToDomain, name, ctx.isQueuePolled);
  const queueName =
    target?.queueName ?? queueNameFor(name, domain, run.priority >= ctx.settings.highPriorityThreshold);
  const responseTimeoutSeconds = target ? target.leaseSeconds(config) : config.responseTimeoutSeconds;
  const startDelay = nonNegativeInt(workflowTask.startDelay);
  const previous = request.retryOf;
  const delayMs = previous ? Math.max(0, request.delayMs ?? 0) : startDelay * 1000;
  const retryCount = previous ? previous.retryCount + 1 : 0;
  const { input, secretRefs } = workerInput(workflowTask, config, sctx.expressionDocument(), taskId);

  const task: TaskRecord = {
    taskId,
    workflowInstanceId: run.workflowId,
    workflowType: run.workflowName,
    taskType: target?.taskType ?? name,
    taskDefName: name,
    referenceTaskName: workflowTask.taskReferenceName,
    status: 'SCHEDULED',
    seq: sctx.nextSeq,
    retryCount,
    inputData: input,
    outputData: {},
    pollCount: 0,
    scheduledTime: ctx.now,
    startTime: 0,
    endTime: 0,
    updateTime: ctx.now,
    startDelayInSeconds: startDelay,
    callbackAfterSeconds: shownDelaySeconds(config, previous, delayMs),
    responseTimeoutSeconds,
    retried: false,
    executed: false,
    workflowPriority: run.priority,
    iteration: previous?.iteration ?? 0,
    workflowTask,
    queueName,
  };
  if (previous) task.retriedTaskId = previous.taskId;
  if (run.correlationId !== undefined) task.correlationId = run.correlationId;
  if (domain !== undefined) task.domain = domain;
  // Only a call honours secret references, and only those its registered definition wrote: a
  // node made at run time from data (a dynamic fork's, a DYNAMIC task's chosen type), or any
  // node of a run whose definition came from data, has none.
  if (
    target &&
    secretRefs.length > 0 &&
    run.definitionFromData !== true &&
    isDefinitionNode(run.workflowDefinition, workflowTask)
  )
    task.templateSecrets = secretRefs;

  // A bad input fails the task before it is ever queued. FAILED_WITH_TERMINAL_ERROR: a new
  // attempt would resolve the same input from the same run and fail the same way.
  const violations = schemaViolations(config.definition, 'inputSchema', task.inputData);
  if (violations.length > 0) {
    task.status = 'FAILED_WITH_TERMINAL_ERROR';
    task.endTime = ctx.now;
    task.reasonForIncompletion = describeViolations('inputSchema', violations);
    return { ok: true, tasks: [task], commands: [] };
  }

  const enqueue: Command = {
    type: 'ENQUEUE',
    taskId,
    queueName,
    taskRef: task.referenceTaskName,
    attempt: retryCount + 1,
    priority: run.priority,
    visibleAt: queuedAt(ctx.now, runQueueSince(run), delayMs, ctx.settings.queueRunAgeMs),
    lockMs: responseTimeoutSeconds * 1000,
  };
  return {
    ok: true,
    tasks: [task],
    // From when the task can first be handed out, not from where it stands in its queue.
    commands: [enqueue, ...attemptTimers(sctx, task, config, ctx.now + delayMs)],
  };
}

/**
 * The task input: `inputParameters` resolved, with the task definition's `inputTemplate` keys
 * added when absent (resolved too), and a key that resolved to null taking the template's
 * value (Conductor's `ParametersUtils.getTaskInputV2`).
 */
function workerInput(
  workflowTask: WorkflowTask,
  config: EffectiveTaskDef,
  doc: ExpressionDocument,
  taskId: string,
): { input: JsonObject; secretRefs: TemplateSecretRef[] } {
  const params: JsonObject = { ...(workflowTask.inputParameters ?? {}) };
  const template = config.inputTemplate;
  for (const [key, value] of Object.entries(template)) {
    if (!Object.hasOwn(params, key)) params[key] = value;
  }
  const { input, secretRefs } = resolveTemplate(params, doc, { taskId });
  const replaced = new Set<string>();
  for (const [key, value] of Object.entries(template)) {
    if (input[key] === null) {
      input[key] = structuredClone(value);
      replaced.add(key);
    }
  }
  return { input, secretRefs: secretRefs.filter((ref) => !replaced.has(String(ref.path[0]))) };
}

/** The node is the one the run's definition holds under its ref (not one made from data). */
function isDefinitionNode(definition: WorkflowDef, node: WorkflowTask): boolean {
  const written = findTask(definition, node.taskReferenceName);
  return written !== undefined && (written === node || JSON.stringify(written) === JSON.stringify(node));
}

/**
 * The domain of a task type: `taskToDomain[type]`, else `taskToDomain['*']`. A value may be a
 * comma list: as Conductor's `getActiveDomain`, the first domain (NO_DOMAIN entries skipped)
 * whose queue a worker has polled lately, else the last entry. `NO_DOMAIN` (or an empty value)
 * means none.
 */
export function domainFor(
  taskToDomain: Readonly<Record<string, string>>,
  type: string,
  isQueuePolled?: (queueName: string) => boolean,
): string | undefined {
  const value = Object.hasOwn(taskToDomain, type) ? taskToDomain[type] : taskToDomain['*'];
  if (typeof value !== 'string') return undefined;
  const candidates = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const live =
    isQueuePolled === undefined || candidates.length < 2
      ? undefined
      : candidates.find((d) => d !== NO_DOMAIN && isQueuePolled(`${d}-${type}`));
  const chosen = live ?? candidates[candidates.length - 1];
  return chosen === undefined || chosen === NO_DOMAIN ? undefined : chosen;
}

/**
 * `{type}`, `{domain}-{type}`, each with `-high` for high-priority runs
 * (docs/design/task-lifecycle.md#queues).
 */
export function queueNameFor(type: string, domain: string | undefined, high: boolean): string {
  const base = domain === undefined ? type : `${domain}-${type}`;
  return high ? `${base}-high` : base;
}

function nonNegativeInt(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 0;
}

/**
 * The delay a new task shows as `callbackAfterSeconds`: a retry shows its backoff without the
 * jitter (Conductor keeps the jitter in the message's delay only, so the same retry shows the
 * same value); a requeue made due at once (`delayMs` 0) shows 0.
 */
function shownDelaySeconds(
  config: EffectiveTaskDef,
  previous: TaskRecord | undefined,
  delayMs: number,
): number {
  const whole = Math.floor(delayMs / 1000);
  return previous ? Math.min(whole, retryDelaySeconds(config, previous.retryCount)) : whole;
}
