import type { JsonObject, JsonValue } from './json.js';

export const TIMEOUT_POLICIES = ['RETRY', 'TIME_OUT_WF', 'ALERT_ONLY'] as const;
export type TimeoutPolicy = (typeof TIMEOUT_POLICIES)[number];
export const WORKFLOW_TIMEOUT_POLICIES = ['TIME_OUT_WF', 'ALERT_ONLY'] as const;
export type WorkflowTimeoutPolicy = (typeof WORKFLOW_TIMEOUT_POLICIES)[number];
export const RETRY_LOGICS = ['FIXED', 'LINEAR_BACKOFF', 'EXPONENTIAL_BACKOFF'] as const;
export type RetryLogic = (typeof RETRY_LOGICS)[number];

/** Task definition (Conductor's `TaskDef`). Unknown fields are kept as given. */
export interface TaskDef {
  name: string;
  description?: string;
  retryCount?: number;
  timeoutSeconds?: number;
  inputKeys?: string[];
  outputKeys?: string[];
  timeoutPolicy?: TimeoutPolicy;
  retryLogic?: RetryLogic;
  retryDelaySeconds?: number;
  responseTimeoutSeconds?: number;
  concurrentExecLimit?: number;
  inputTemplate?: JsonObject;
  rateLimitPerFrequency?: number;
  rateLimitFrequencyInSeconds?: number;
  ownerEmail?: string;
  /** Who registered it and who changed it last (set by the server when authentication is on). */
  createdBy?: string;
  updatedBy?: string;
  pollTimeoutSeconds?: number;
  backoffScaleFactor?: number;
  maxRetryDelaySeconds?: number;
  backoffJitterMs?: number;
  totalTimeoutSeconds?: number;
  inputSchema?: JsonObject;
  outputSchema?: JsonObject;
  enforceSchema?: boolean;
  createTime?: number;
  updateTime?: number;
  [extra: string]: JsonValue | undefined;
}

/** Sub-workflow parameters of a SUB_WORKFLOW / START_WORKFLOW task. */
export interface SubWorkflowParams {
  name?: string;
  version?: number;
  taskToDomain?: Record<string, string>;
  workflowDefinition?: WorkflowDef;
  idempotencyKey?: string;
  idempotencyStrategy?: IdempotencyStrategy;
  priority?: number;
}

/** A task inside a workflow definition (Conductor's `WorkflowTask`). */
export interface WorkflowTask {
  name: string;
  taskReferenceName: string;
  type?: string;
  description?: string;
  inputParameters?: JsonObject;
  optional?: boolean;
  startDelay?: number;
  retryCount?: number;
  asyncComplete?: boolean;
  taskDefinition?: TaskDef;
  // Control-flow fields; each task kind checks the ones it uses.
  dynamicTaskNameParam?: string;
  caseValueParam?: string;
  caseExpression?: string;
  scriptExpression?: string;
  evaluatorType?: string;
  expression?: string;
  decisionCases?: Record<string, WorkflowTask[]>;
  defaultCase?: WorkflowTask[];
  forkTasks?: WorkflowTask[][];
  joinOn?: string[];
  dynamicForkTasksParam?: string;
  dynamicForkTasksInputParamName?: string;
  dynamicForkJoinTasksParam?: string;
  defaultExclusiveJoinTask?: string[];
  loopCondition?: string;
  loopOver?: WorkflowTask[];
  items?: string;
  subWorkflowParam?: SubWorkflowParams;
  sink?: string;
  permissive?: boolean;
  [extra: string]: unknown;
}

/** Workflow definition (Conductor's `WorkflowDef`). */
export interface WorkflowDef {
  name: string;
  version?: number;
  description?: string;
  tasks: WorkflowTask[];
  inputParameters?: string[];
  outputParameters?: JsonObject;
  failureWorkflow?: string;
  failureWorkflowVersion?: number;
  schemaVersion?: number;
  restartable?: boolean;
  workflowStatusListenerEnabled?: boolean;
  ownerEmail?: string;
  /** Who registered it and who changed it last (set by the server when authentication is on). */
  createdBy?: string;
  updatedBy?: string;
  timeoutPolicy?: WorkflowTimeoutPolicy;
  timeoutSeconds?: number;
  variables?: JsonObject;
  inputTemplate?: JsonObject;
  createTime?: number;
  updateTime?: number;
  [extra: string]: unknown;
}

export const IDEMPOTENCY_STRATEGIES = ['FAIL', 'RETURN_EXISTING'] as const;
export type IdempotencyStrategy = (typeof IDEMPOTENCY_STRATEGIES)[number];
