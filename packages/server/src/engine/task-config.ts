import type { JsonObject, RetryLogic, TaskDef, TimeoutPolicy, WorkflowTask } from '@baton/protocol';
import { INT32_MAX, MAX_RETRY_COUNT } from '../bounds/ranges.js';

/**
 * The settings a task runs with: its task definition (inline `taskDefinition` first, else the
 * registered one) with the defaults of docs/design/definitions.md#task-defaults for whatever is not
 * set, and the workflow task's own `retryCount` override applied.
 */
export interface EffectiveTaskDef {
  readonly name: string;
  /** The definition the settings came from; undefined when only defaults apply. */
  readonly definition: TaskDef | undefined;
  readonly retryCount: number;
  readonly retryLogic: RetryLogic;
  readonly retryDelaySeconds: number;
  readonly backoffScaleFactor: number;
  /** 0 = no cap. */
  readonly maxRetryDelaySeconds: number;
  readonly backoffJitterMs: number;
  readonly responseTimeoutSeconds: number;
  /** 0 = no timeout. */
  readonly timeoutSeconds: number;
  /** 0 = no timeout. */
  readonly totalTimeoutSeconds: number;
  /** undefined = no poll timeout. */
  readonly pollTimeoutSeconds: number | undefined;
  readonly timeoutPolicy: TimeoutPolicy;
  readonly inputTemplate: JsonObject;
  readonly concurrentExecLimit: number | undefined;
  readonly rateLimitPerFrequency: number | undefined;
  readonly rateLimitFrequencyInSeconds: number | undefined;
}

export const TASK_DEFAULTS = {
  retryCount: 3,
  retryLogic: 'FIXED',
  retryDelaySeconds: 60,
  backoffScaleFactor: 1,
  maxRetryDelaySeconds: 0,
  backoffJitterMs: 0,
  responseTimeoutSeconds: 3600,
  timeoutSeconds: 0,
  totalTimeoutSeconds: 0,
  timeoutPolicy: 'TIME_OUT_WF',
} as const satisfies Partial<EffectiveTaskDef>;

/** The task definition a workflow task uses, if any: inline wins over registered. */
export function taskDefinitionOf(
  workflowTask: WorkflowTask,
  taskDefs: ReadonlyMap<string, TaskDef>,
): TaskDef | undefined {
  const inline = workflowTask.taskDefinition;
  if (inline !== undefined && inline !== null && typeof inline === 'object') return inline;
  return taskDefs.get(workflowTask.name);
}

export function effectiveTaskDef(
  workflowTask: WorkflowTask,
  taskDefs: ReadonlyMap<string, TaskDef>,
): EffectiveTaskDef {
  const def = taskDefinitionOf(workflowTask, taskDefs);
  return {
    name: workflowTask.name,
    definition: def,
    retryCount: Math.min(
      nonNegInt(workflowTask.retryCount) ?? nonNegInt(def?.retryCount) ?? TASK_DEFAULTS.retryCount,
      MAX_RETRY_COUNT,
    ),
    retryLogic: def?.retryLogic ?? TASK_DEFAULTS.retryLogic,
    retryDelaySeconds: nonNegInt(def?.retryDelaySeconds) ?? TASK_DEFAULTS.retryDelaySeconds,
    backoffScaleFactor: positiveInt(def?.backoffScaleFactor) ?? TASK_DEFAULTS.backoffScaleFactor,
    maxRetryDelaySeconds: nonNegInt(def?.maxRetryDelaySeconds) ?? TASK_DEFAULTS.maxRetryDelaySeconds,
    backoffJitterMs: nonNegInt(def?.backoffJitterMs) ?? TASK_DEFAULTS.backoffJitterMs,
    responseTimeoutSeconds: positiveInt(def?.responseTimeoutSeconds) ?? TASK_DEFAULTS.responseTimeoutSeconds,
    timeoutSeconds: nonNegInt(def?.timeoutSeconds) ?? TASK_DEFAULTS.timeoutSeconds,
    totalTimeoutSeconds: nonNegInt(def?.totalTimeoutSeconds) ?? TASK_DEFAULTS.totalTimeoutSeconds,
    pollTimeoutSeconds: nonNegInt(def?.pollTimeoutSeconds),
    timeoutPolicy: def?.timeoutPolicy ?? TASK_DEFAULTS.timeoutPolicy,
    inputTemplate: def?.inputTemplate ?? {},
    concurrentExecLimit: nonNegInt(def?.concurrentExecLimit),
    rateLimitPerFrequency: nonNegInt(def?.rateLimitPerFrequency),
    rateLimitFrequencyInSeconds: nonNegInt(def?.rateLimitFrequencyInSeconds),
  };
}

/**
 * Stored definitions may hold numbers from before the bounds policy (1e308 is an integer to
 * JavaScript): every setting is read clamped to 2^31 − 1, so nothing derived from it overflows.
 */
function nonNegInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0
    ? Math.min(value, INT32_MAX)
    : undefined;
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1
    ? Math.min(value, INT32_MAX)
    : undefined;
}
