import {
  ERROR_CODES,
  ERROR_REGISTRY,
  EXTERNAL_COMPLETION_STATUSES,
  IDEMPOTENCY_STRATEGIES,
  RETRY_LOGICS,
  TASK_RESULT_STATUSES,
  TIMEOUT_POLICIES,
  WORKFLOW_STATUSES,
} from '@baton/protocol';

import {
  count,
  epochMillis,
  int32,
  jsonObject,
  millis32,
  name,
  priority,
  requiredName,
  retryCount,
  seconds32,
  stringMap,
  text,
  version,
} from './bounds.js';

/**
 * JSON Schemas of request bodies and parameters. The same schemas validate requests and
 * generate the OpenAPI document. Definitions are type-checked here and rule-checked by the
 * engine's registration checks, which list every problem at once.
 */

export const workflowTaskSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    name,
    taskReferenceName: name,
    type: name,
    description: text,
    inputParameters: jsonObject,
    optional: { type: 'boolean' },
    startDelay: seconds32,
    retryCount,
    asyncComplete: { type: 'boolean' },
  },
} as const;

export const workflowDefSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    name,
    version,
    description: text,
    tasks: { type: 'array', items: workflowTaskSchema, maxItems: 10_000 },
    inputParameters: { type: 'array', items: text, maxItems: 10_000 },
    outputParameters: jsonObject,
    failureWorkflow: name,
    schemaVersion: int32,
    restartable: { type: 'boolean' },
    ownerEmail: text,
    timeoutPolicy: { type: 'string', enum: ['TIME_OUT_WF', 'ALERT_ONLY'] },
    timeoutSeconds: seconds32,
    variables: jsonObject,
    inputTemplate: jsonObject,
  },
} as const;

export const taskDefSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    name,
    description: text,
    ownerEmail: text,
    retryCount,
    timeoutSeconds: seconds32,
    timeoutPolicy: { type: 'string', enum: TIMEOUT_POLICIES },
    retryLogic: { type: 'string', enum: RETRY_LOGICS },
    retryDelaySeconds: seconds32,
    responseTimeoutSeconds: seconds32,
    concurrentExecLimit: count,
    rateLimitPerFrequency: count,
    rateLimitFrequencyInSeconds: seconds32,
    pollTimeoutSeconds: seconds32,
    backoffScaleFactor: count,
    maxRetryDelaySeconds: seconds32,
    backoffJitterMs: millis32,
    totalTimeoutSeconds: seconds32,
    inputTemplate: jsonObject,
    inputSchema: jsonObject,
    outputSchema: jsonObject,
  },
} as const;

/** The interface's start request body (plus Conductor's `name` on `POST /api/workflow`). */
export const startRequestSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    name: requiredName,
    version,
    input: jsonObject,
    correlationId: text,
    priority,
    taskToDomain: stringMap,
    idempotencyKey: { type: 'string', minLength: 1, maxLength: 1024 },
    idempotencyStrategy: { type: 'string', enum: IDEMPOTENCY_STRATEGIES },
    externalInputPayloadStoragePath: { type: 'string', minLength: 1, maxLength: 512 },
  },
} as const;

/** `POST /api/workflow`'s start request: the start request with Conductor's inline `workflowDef`. */
export const inlineStartRequestSchema = {
  ...startRequestSchema,
  required: ['name'],
  properties: { ...startRequestSchema.properties, workflowDef: { ...workflowDefSchema, required: ['name'] } },
} as const;

const logEntry = {
  anyOf: [
    { type: 'string' },
    {
      type: 'object',
      required: ['log'],
      properties: { log: { type: 'string' }, createdTime: epochMillis, taskId: name },
    },
  ],
} as const;

/** Worker result: the interface's fields and Conductor's `workflowInstanceId`. */
export const taskResultSchema = {
  type: 'object',
  additionalProperties: true,
  required: ['taskId', 'status'],
  properties: {
    taskId: requiredName,
    workflowInstanceId: name,
    workflowId: name,
    status: { type: 'string', enum: TASK_RESULT_STATUSES },
    outputData: jsonObject,
    reasonForIncompletion: text,
    callbackAfterSeconds: seconds32,
    workerId: name,
    logs: { type: 'array', items: logEntry, maxItems: 10_000 },
    extendLease: { type: 'boolean' },
    externalOutputPayloadStoragePath: { type: 'string', minLength: 1, maxLength: 512 },
  },
} as const;

export const externalStatusSchema = { type: 'string', enum: EXTERNAL_COMPLETION_STATUSES } as const;
export const workflowStatusListSchema = { type: 'string', enum: WORKFLOW_STATUSES } as const;

/**
 * The body of every error answer, published as the `ErrorBody` component of the OpenAPI
 * document: `code` is the class (which decides the status), `errorCode` the specific error.
 */
export const errorBodySchema = {
  $id: 'ErrorBody',
  type: 'object',
  required: ['status', 'code', 'errorCode', 'message', 'retryable'],
  properties: {
    status: { type: 'integer' },
    code: { type: 'string', enum: Object.keys(ERROR_CODES) },
    errorCode: { type: 'string', enum: Object.keys(ERROR_REGISTRY) },
    message: { type: 'string' },
    retryable: { type: 'boolean' },
    validationErrors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' }, invalidValue: {} },
      },
    },
  },
} as const;

/** The flags of the correlated-runs reads: ended runs too, and each run's tasks. */
export const correlatedQuery = {
  type: 'object',
  properties: {
    includeClosed: { type: 'boolean', default: false },
    includeTasks: { type: 'boolean', default: false },
  },
} as const;
