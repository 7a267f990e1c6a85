import type { SpecificErrorCode } from '@baton/protocol';

/**
 * The message of every specific error: a template whose `{name}` parameters the throw site
 * fills (typed: a site cannot forget one or name one the template lacks). `{detail}` carries a
 * text built elsewhere: a list of validation problems, the engine's words on why a run refuses
 * an operation (the engine is pure and does not import the server's templates), a library's
 * error. Texts Conductor answers with are kept word for word, since clients match on them.
 */
export const ERROR_MESSAGES = {
  REQUEST_INVALID: { message: '{detail}' },
  REQUEST_MALFORMED: { message: '{detail}' },
  REQUEST_TIMEOUT: { message: 'The request was not received in time', retryable: true },
  REQUEST_HEADERS_TOO_LARGE: { message: 'The request headers are larger than the server accepts' },
  REQUEST_NOT_HTTP: { message: 'The request is not valid HTTP/1.1' },
  REQUEST_TARGET_INVALID: {
    message: 'The request target must be a path on this server (origin form, e.g. /api/workflow)',
  },
  HOST_HEADER_INVALID: { message: 'The Host header must be a host name or address with an optional port' },
  BODY_NOT_JSON: { message: '{detail}' },
  BODY_TOO_DEEP: { message: '{path} {problem}; flatten the value or keep it within {maxDepth} levels' },
  BODY_TEXT_INVALID: { message: '{path} {problem}' },
  BODY_TOO_LARGE: { message: '{detail}' },
  MEDIA_TYPE_UNSUPPORTED: { message: '{detail}' },
  ROUTE_NOT_FOUND: { message: 'No route for {method} {path}' },
  CONDUCTOR_ENDPOINT_UNSUPPORTED: { message: "Conductor's {method} {url}: {feature}" },
  QUERY_PARAMETER_INVALID: { message: '{detail}' },
  DATABASE_UNAVAILABLE: {
    message: 'The database is unavailable; try again later ({reason})',
    retryable: true,
  },
  INTERNAL_ERROR: { message: 'Internal error; the request may be retried', retryable: true },

  AUTH_OFF: { message: 'Authentication is off on this server' },
  TOKEN_REQUIRED: {
    message: 'a token is required: send "Authorization: Bearer <token>" or "X-Authorization: <token>"',
  },
  AUTHORIZATION_HEADER_INVALID: { message: '{detail}' },
  TOKEN_INVALID: { message: '{reason}' },
  TOKEN_EXPIRED: { message: 'token expired' },
  TOKEN_REVOKED: { message: 'the access key of this token was revoked or turned inactive' },
  TOKEN_LIFETIME_TOO_LONG: {
    message: 'token lifetime exceeds {maxSeconds} seconds (BATON_AUTH_MAX_TOKEN_LIFETIME_SECONDS)',
  },
  ACCESS_KEY_INVALID: { message: 'invalid key id or secret' },
  ACCESS_KEY_INACTIVE: { message: 'access key is inactive' },
  IDENTITY_PROVIDER_MISMATCH: {
    message: 'the identity provider discovery document does not match BATON_AUTH_ISSUER',
    retryable: true,
  },
  IDENTITY_PROVIDER_UNREACHABLE: {
    message: 'the identity provider cannot be reached to check the token: {reason}',
    retryable: true,
  },
  ROLE_REQUIRED: { message: "Forbidden: {method} {url} needs the role '{role}'" },
  WORKER_ROLE_REQUIRED: {
    message: "Forbidden: task type '{taskType}' needs the role 'worker:{taskType}' (or '{taskRole}')",
  },
  RATE_LIMIT_EXCEEDED: { message: 'Rate limit of {max} requests per {after} exceeded', retryable: true },
  ROLE_UNKNOWN: { message: "Unknown role '{role}': use one of {roles} or worker:<taskType>" },
  APPLICATION_NOT_FOUND: { message: 'Application not found: {id}' },
  ACCESS_KEY_NOT_FOUND: { message: 'Access key not found: {keyId}' },

  DEFINITION_INVALID: { message: '{what} failed validation: {path}: {problem}{more}' },
  DEFINITION_NOT_FOUND: { message: 'No such workflow found by name: {name}' },
  DEFINITION_VERSION_NOT_FOUND: { message: 'No such workflow found by name: {name}, version: {version}' },
  DEFINITION_VERSION_EXISTS: { message: 'Workflow with {name}.{version} already exists!' },
  DEFINITION_VERSION_LIMIT: { message: 'Workflow {name} is at the highest version ({max}); give a version' },
  DEFINITION_VERSION_IN_USE: {
    message:
      'Workflow {name} version {version} has {runs} run(s); a version cannot be removed while runs exist (Conductor would remove it): remove those runs first ({removeRoute}), or register a new version',
  },
  INLINE_DEFINITION_NAME_MISMATCH: {
    message: "workflowDef.name {inlineName} differs from the start request's name {name}",
  },
  DEFINITION_REMOVAL_NOT_FOUND: { message: 'No such workflow definition: {name} version: {version}' },
  TASK_DEF_NOT_FOUND: { message: 'No such taskType found by name: {name}' },
  TASK_DEF_UPDATE_NOT_FOUND: { message: 'No such task by name {name}' },
  TASK_DEF_REMOVAL_NOT_FOUND: { message: 'No such task definition: {name}' },
  INSTRUCTION_NOT_FOUND: { message: 'No such instruction: {name}' },
  INSTRUCTION_VERSION_NOT_FOUND: { message: 'No such instruction: {name} version {version}' },
  INSTRUCTION_VERSION_EXISTS: { message: 'Instruction {name} version {version} already exists' },
  INSTRUCTION_VERSION_LIMIT: {
    message: 'Instruction {name} is at the highest version ({max}); give a version',
  },

  START_REQUEST_INVALID: { message: '{detail}' },
  TEST_RUN_DEFINITION_MISSING: {
    message: 'a test run needs workflowDef, or the name (and version) of a registered definition',
  },
  IDEMPOTENCY_KEY_USED: {
    message:
      "A run of {name} was already started with idempotencyKey '{key}': {workflowId} (idempotencyStrategy FAIL)",
  },
  RUN_NOT_FOUND: { message: 'No such workflow found by id: {workflowId}' },
  RUN_ENDED: { message: '{detail}' },
  RUN_ARCHIVED: { message: '{detail}' },
  RUN_NOT_PAUSABLE: { message: '{detail}' },
  RUN_NOT_RESUMABLE: { message: '{detail}' },
  RUN_NOT_TERMINABLE: { message: '{detail}' },
  RUN_ALREADY_RETRIED: { message: '{detail}' },
  RUN_NOT_RETRYABLE: { message: '{detail}' },
  RUN_NOT_RESTARTABLE: { message: '{detail}' },
  RUN_NOT_ENDED: { message: '{detail}' },
  RUN_NOT_RUNNING: { message: '{detail}' },
  RUN_NOT_REMOVABLE: { message: 'Workflow {workflowId} is {status}: terminate it before removing it' },
  RUN_CHANGED_WHILE_ARCHIVING: {
    message: 'Workflow {workflowId} changed while it was being archived; try again',
  },
  RUN_VARIABLES_TOO_LARGE: {
    message:
      'The variables payload size: {size} of workflow: {workflowId} is greater than the permissible limit: {maxKb} kilobytes',
  },
  RERUN_TASK_NOT_IN_RUN: { message: 'Task {taskId} is not a task of this workflow: nothing to rerun from' },
  RERUN_TASK_NOT_IN_DEFINITION: { message: 'Workflow {workflowId} has no task {ref} in its definition' },
  RERUN_TASK_NEVER_RAN: { message: 'Task {ref} never ran in workflow {workflowId}: nothing to rerun from' },
  SKIP_TASK_NOT_IN_DEFINITION: { message: '{detail}' },
  SKIP_TASK_NOT_WAITING: { message: '{detail}' },
  RUN_DOCUMENT_UNAVAILABLE: {
    message: 'Run {workflowId} is archived and blob storage does not answer: {reason}',
    retryable: true,
  },
  RUN_DOCUMENT_MISSING: {
    message: 'Run {workflowId} is archived but its document is missing from blob storage',
    retryable: true,
  },
  RUN_DOCUMENT_UNREADABLE: {
    message: 'Run {workflowId} is archived but its document cannot be read: {reason}',
  },
  SIGNAL_TARGET_NOT_FOUND: { message: 'Found no blocked task in workflow {workflowId} to signal' },

  TASK_NOT_FOUND: { message: 'No such task found by id: {taskId}' },
  TASK_TYPE_RESERVED: {
    message: 'task type {taskType} is reserved: its tasks are calls the engine makes itself',
  },
  TASK_RESULT_RUN_MISMATCH: { message: 'Task {taskId} belongs to workflow {actual}, not {given}' },
  TASK_ATTEMPT_ENDED: { message: '{detail}' },
  TASK_HELD_BY_OTHER_WORKER: { message: '{detail}' },
  TASK_NOT_IN_PROGRESS: { message: 'Task {taskId} has ended ({status})' },
  TASK_TOOK_NO_RESULT: { message: 'Task {taskId} took no result' },
  TASK_NOT_NAMED: { message: 'No task named: give taskId, or workflowId and taskRefName' },
  OPEN_TASK_NOT_FOUND: { message: 'Found no open task {ref} of workflow {workflowId} to update' },
  OPEN_TASK_BY_REF_NOT_FOUND: { message: 'Workflow {workflowId} has no open task {ref}' },
  POLL_TIMEOUT_TOO_LONG: { message: 'Long Poll Timeout value cannot be more than 5 seconds' },
  TASK_LOG_EMPTY: { message: 'A log line is required' },

  SEARCH_QUERY_INVALID: { message: 'query: {problem}' },
  SEARCH_SORT_INVALID: { message: 'sort must be field:ASC|DESC with field one of {fields}' },
  SEARCH_WINDOW_TOO_LARGE: {
    message:
      'start + size may be at most {max} when the search also finds archived runs; narrow the search (name, status, time range)',
  },
  STATUS_UNKNOWN: { message: 'status must be one of {statuses}' },
  TIME_INVALID: { message: '{field} must be epoch milliseconds or an ISO-8601 date' },

  PAYLOAD_PATH_REQUIRED: { message: 'path is required to read a payload' },
  PAYLOAD_PATH_INVALID: {
    message:
      '{field} must be a path inside the payload area ({area}…) as answered by GET /api/tasks/external-storage-location',
  },
  PAYLOAD_NOT_FOUND: { message: 'No payload has been uploaded at {path}' },
  PAYLOAD_NOT_UPLOADED: { message: 'No payload has been uploaded at {path}' },
  PAYLOAD_NOT_OBJECT: { message: 'The payload at {path} is not a JSON object' },
  PAYLOAD_OVER_INLINE_LIMIT: {
    message:
      '{what} of {bytes} bytes is over the inline limit of {limit} bytes (BATON_PAYLOAD_INLINE_MAX_BYTES). {advice}',
  },
  PAYLOAD_OVER_MAX: {
    message:
      'The payload at {path} is {size}, over the {limit} bytes Baton takes through external storage (BATON_PAYLOAD_MAX_BYTES)',
  },
  PAYLOAD_URL_EXPIRED: { message: 'This payload URL has expired: ask for a new one' },
  PAYLOAD_URL_INVALID: { message: 'This payload URL is not valid (bad signature)' },
  PAYLOAD_URL_MISUSED: { message: '{detail}' },
  BLOB_STORAGE_UNAVAILABLE: { message: 'Blob storage does not answer: {reason}', retryable: true },

  EVENT_HANDLER_INVALID: { message: '{detail}' },
  EVENT_HANDLER_EXISTS: { message: 'EventHandler with name {name} already exists!{note}' },
  EVENT_HANDLER_NOT_FOUND: { message: 'EventHandler with name {name} not found!' },
  SCHEDULE_INVALID: { message: '{detail}' },
  SCHEDULE_NOT_FOUND: { message: "Schedule '{name}' not found" },
  CRON_EXPRESSION_INVALID: { message: '{detail}' },
  SCHEDULE_SLOTS_UNAVAILABLE: { message: 'no slots can be computed from {from}: {reason}' },

  SECRETS_NOT_CONFIGURED: { message: '{detail}' },
  SECRET_NAME_INVALID: { message: "Invalid secret name '{name}': use 1 to 128 letters, digits, '_' or '-'" },
  SECRET_NOT_FOUND: { message: 'No such secret: {name}' },
  SERVICE_INVALID: { message: 'Service {name} failed validation: {path}: {problem}' },
  SERVICE_NOT_FOUND: { message: 'No such service: {name}' },
  SERVICE_METHOD_NOT_FOUND: { message: 'Service {name} has no method {method}' },
  SERVICE_IS_CONNECTOR: {
    message: 'Service {name} is a connector: its operations come from its OpenAPI document',
  },
  SERVICE_TOOLS_UNAVAILABLE: {
    message: 'Could not list the tools of service {name}: {reason}',
    retryable: true,
  },
  SERVICE_TEXT_HAS_NUL: { message: 'body: text may not contain NUL (\\u0000) characters' },
  SERVICE_FIELD_REQUIRED: { message: '{field} is required' },
  INTEGRATION_INVALID: { message: 'Invalid integration' },
  INTEGRATION_PROVIDER_NOT_FOUND: { message: 'No such integration provider: {name}' },
  PROMPT_INVALID: { message: 'Invalid prompt template' },
  PROMPT_NOT_FOUND: { message: 'No such prompt: {name}' },
  INTEGRATION_MODEL_NOT_FOUND: { message: 'No such integration {model} on provider {name}' },
} as const satisfies Record<SpecificErrorCode, { message: string; retryable?: boolean }>;
