import {
  EXTERNAL_COMPLETION_STATUSES,
  IDEMPOTENCY_STRATEGIES,
  RETRY_LOGICS,
  TASK_RESULT_STATUSES,
  TIMEOUT_POLICIES,
  WORKFLOW_STATUSES,
} from '@baton/protocol';

/**
 * JSON Schemas of request bodies and parameters. The same schemas validate requests and
 * generate the OpenAPI document. Definitions are type-checked here and rule-checked by the
 * engine's registration checks, which list every problem at once.
 */
const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;
const jsonObject = { type: 'object', additionalProperties: true } as const;
const nonNegative = { type: 'integer', minimum: 0 } as const;

export const workflowTaskSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    name: { type: 'string' },
    taskReferenceName: { type: 'string' },
    type: { type: 'string' },
    description: { type: 'string' },
    inputParameters: jsonObject,
    optional: { type: 'boolean' },
    startDelay: nonNegative,
    retryCount: nonNegative,
    asyncComplete: { type: 'boolean' },
  },
} as const;

export const workflowDefSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    name: { type: 'string' },
    version: { type: 'integer', minimum: 1 },
    description: { type: 'string' },
    tasks: { type: 'array', items: workflowTaskSchema },
    inputParameters: { type: 'array', items: { type: 'string' } },
    outputParameters: jsonObject,
    failureWorkflow: { type: 'string' },
    schemaVersion: { type: 'integer' },
    restartable: { type: 'boolean' },
    ownerEmail: { type: 'string' },
    timeoutPolicy: { type: 'string', enum: ['TIME_OUT_WF', 'ALERT_ONLY'] },
    timeoutSeconds: nonNegative,
    variables: jsonObject,
    inputTemplate: jsonObject,
  },
} as const;

export const taskDefSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    retryCount: nonNegative,
    timeoutSeconds: nonNegative,
    timeoutPolicy: { type: 'string', enum: TIMEOUT_POLICIES },
    retryLogic: { type: 'string', enum: RETRY_LOGICS },
    retryDelaySeconds: nonNegative,
    responseTimeoutSeconds: nonNegative,
    concurrentExecLimit: nonNegative,
    rateLimitPerFrequency: nonNegative,
    rateLimitFrequencyInSeconds: nonNegative,
    pollTimeoutSeconds: nonNegative,
    backoffScaleFactor: nonNegative,
    maxRetryDelaySeconds: nonNegative,
    backoffJitterMs: nonNegative,
    totalTimeoutSeconds: nonNegative,
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
    name: { type: 'string', minLength: 1 },
    version: { type: 'integer', minimum: 1 },
    input: jsonObject,
    correlationId: { type: 'string' },
    priority: { type: 'integer', minimum: 0, maximum: 99 },
    taskToDomain: stringMap,
    idempotencyKey: { type: 'string', minLength: 1 },
    idempotencyStrategy: { type: 'string', enum: IDEMPOTENCY_STRATEGIES },
    externalInputPayloadStoragePath: { type: 'string', minLength: 1, maxLength: 512 },
  },
} as const;

const logEntry = {
  anyOf: [
    { type: 'string' },
    {
      type: 'object',
      required: ['log'],
      properties: { log: { type: 'string' }, createdTime: { type: 'integer' }, taskId: { type: 'string' } },
    },
  ],
} as const;

/** Worker result: the interface's fields and Conductor's `workflowInstanceId`. */
export const taskResultSchema = {
  type: 'object',
  additionalProperties: true,
  required: ['taskId', 'status'],
  properties: {
    taskId: { type: 'string', minLength: 1 },
    workflowInstanceId: { type: 'string' },
    workflowId: { type: 'string' },
    status: { type: 'string', enum: TASK_RESULT_STATUSES },
    outputData: jsonObject,
    reasonForIncompletion: { type: 'string' },
    callbackAfterSeconds: nonNegative,
    workerId: { type: 'string' },
    logs: { type: 'array', items: logEntry },
    extendLease: { type: 'boolean' },
    externalOutputPayloadStoragePath: { type: 'string', minLength: 1, maxLength: 512 },
  },
} as const;

export const externalStatusSchema = { type: 'string', enum: EXTERNAL_COMPLETION_STATUSES } as const;
export const workflowStatusListSchema = { type: 'string', enum: WORKFLOW_STATUSES } as const;

export const errorBodySchema = {
  type: 'object',
  properties: {
    status: { type: 'integer' },
    code: { type: 'string' },
    message: { type: 'string' },
    retryable: { type: 'boolean' },
    validationErrors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { path: { type: 'string' }, message: { type: 'string' }, invalidValue: {} },
      },
    },
  },
} as const;
