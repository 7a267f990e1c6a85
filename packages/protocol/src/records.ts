import type { TaskDef, WorkflowDef, WorkflowTask } from './definitions.js';
import type { JsonObject } from './json.js';
import type { TaskStatus, WorkflowStatus } from './statuses.js';

/**
 * One task attempt, in Conductor's `Task` shape: this is both what the store keeps and
 * what the API answers. A retry is a new record (new taskId, retryCount + 1, retriedTaskId).
 */
export interface TaskRecord {
  taskId: string;
  workflowInstanceId: string;
  workflowType: string;
  /** For worker tasks, the task type (= the definition name); for system tasks, the kind. */
  taskType: string;
  taskDefName: string;
  referenceTaskName: string;
  status: TaskStatus;
  /** Position of the task in its run, in scheduling order. */
  seq: number;
  /** Attempt number minus one (Conductor's name). */
  retryCount: number;
  inputData: JsonObject;
  outputData: JsonObject;
  reasonForIncompletion?: string;
  workerId?: string;
  pollCount: number;
  scheduledTime: number;
  startTime: number;
  endTime: number;
  updateTime: number;
  startDelayInSeconds: number;
  callbackAfterSeconds: number;
  responseTimeoutSeconds: number;
  retriedTaskId?: string;
  /** True once a later attempt of this task has been made. */
  retried: boolean;
  /** True once the interpreter has acted on this task's end (scheduled what follows, or failed the run). */
  executed: boolean;
  correlationId?: string;
  domain?: string;
  /** The worker queue this task's message goes to (worker tasks only). */
  queueName?: string;
  workflowPriority: number;
  iteration: number;
  /** The definition node this task was made from. */
  workflowTask: WorkflowTask;
  subWorkflowId?: string;
  parentTaskId?: string;
  /**
   * The last time a hand-out found the task over its type's concurrentExecLimit or rate limit
   * and put its message back until `until` (the message's visible time then). Kept afterwards:
   * it explains the wait only while the message is still due at `until`.
   */
  limitDeferral?: { reason: 'concurrency-limit' | 'rate-limit'; until: number };
  /** Why an open task waits and until when; computed when the task is read, never stored. */
  waitingFor?: WaitingFor;
  /** Timeouts under timeoutPolicy ALERT_ONLY recorded on this attempt (the task keeps waiting). */
  alerts?: LifecycleAlert[];
  /** Set when the worker uploaded its output to blob storage (read into `outputData`). */
  externalOutputPayloadStoragePath?: string;
  /** Set on a hand-out whose input was too large to send inline (`inputData` is then `{}`). */
  externalInputPayloadStoragePath?: string;
  /**
   * Where the definition's author wrote `${workflow.secrets.NAME}` in this task's input: the
   * only places a call honours as secret references (a system call's task only). Positions,
   * never values; dropped when the input is changed after it was made.
   */
  templateSecrets?: TemplateSecretRef[];
  /**
   * The task attempt's W3C trace context (`00-<trace id>-<span id>-<flags>`), set while tracing
   * is on: a worker continues the trace under it. Conductor's SDKs ignore the field.
   */
  traceparent?: string;
}

/**
 * One secret reference the definition wrote: the text `inputData` holds at `path`, from
 * `start` to `end` (UTF-16 offsets), is `${workflow.secrets.NAME}` put there by the template,
 * not by data.
 */
export interface TemplateSecretRef {
  path: Array<string | number>;
  start: number;
  end: number;
}

/** A timeout that only alerted (timeoutPolicy ALERT_ONLY): what fired, when, and why. */
export interface LifecycleAlert {
  /** The timer that fired: POLL_TIMEOUT, TASK_TIMEOUT, TOTAL_TIMEOUT or WORKFLOW_TIMEOUT. */
  kind: string;
  time: number;
  message: string;
}

/** A failed run brought back to RUNNING by requeueing its dead-lettered task. */
export interface RunReopening {
  time: number;
  /** The dead-lettered attempt, and the new attempt made for it. */
  taskId: string;
  newTaskId: string;
  taskRef: string;
  previousStatus: WorkflowStatus;
  previousReason?: string;
}

/** Why an open task waits (docs/design/task-lifecycle.md#explainable-waiting). */
export type WaitingReason =
  /** Queued and visible; a worker of its type polls but has not taken it yet. */
  | 'worker'
  /** Queued and visible, and no worker has polled its queue in the last 10 s. */
  | 'no-worker'
  /** Taken: a worker holds its lock until `until`. */
  | 'lock'
  /** A new attempt after a failure, due at `until`. */
  | 'retry-delay'
  /** The worker answered IN_PROGRESS with callbackAfterSeconds; due again at `until`. */
  | 'callback'
  /** The task's startDelay; due at `until`. */
  | 'start-delay'
  | 'rate-limit'
  | 'concurrency-limit'
  /** Retries exhausted; the message is dead-lettered until requeued. */
  | 'dead-letter'
  /** Completed from outside (HUMAN, WAIT without a timer): `POST /api/tasks/{workflowId}/{ref}/{status}`. */
  | 'external'
  /** A worker task without a queue message: only a repair re-queues it. */
  | 'missing-message'
  /** The run is paused: nothing new is scheduled until it is resumed. */
  | 'paused'
  /** A WAIT with `duration` or `until`: completes by itself at `until`. */
  | 'timer'
  /** A SUB_WORKFLOW task: its child run (`childWorkflowId`, `childStatus`) has not ended. */
  | 'child-run'
  /** A JOIN or EXCLUSIVE_JOIN: the refs in `waitingOn` have not ended. */
  | 'join'
  /** A DO_WHILE: its iteration `iteration` is running. */
  | 'loop'
  /** A blocking PULL_WORKFLOW_MESSAGES: the run's mailbox is empty. */
  | 'messages'
  /** A worker attempt whose lock lapsed: its response timer (due at `until`) makes the next attempt. */
  | 'lock-lapsed'
  /** The stored values of the task do not allow an explanation (a record written by an older version). */
  | 'unknown';

export interface WaitingFor {
  reason: WaitingReason;
  /** For people: "waiting: no worker has polled resize-image for 42 s". */
  message: string;
  /** Epoch ms when the wait ends by itself, when known. */
  until?: number;
  /** The worker holding the task (reason `lock`). */
  workerId?: string;
  /** The worker queue concerned. */
  queueName?: string;
  /** A HUMAN task's assignee (reason `external`). */
  assignee?: string;
  /** The child run a SUB_WORKFLOW task waits on, and its status (reason `child-run`). */
  childWorkflowId?: string;
  childStatus?: WorkflowStatus;
  /** The refs a JOIN still waits on (reason `join`). */
  waitingOn?: string[];
  /** The loop's current iteration (reason `loop`). */
  iteration?: number;
}

/** One open task's wait, in a run's summary. */
export interface RunWaitingFor extends WaitingFor {
  taskId?: string;
  referenceTaskName?: string;
  taskType?: string;
}

/** Links between runs made by retry / restart / rerun. */
export interface RunLinks {
  retry_of?: string;
  restart_of?: string;
  rerun_of?: string;
  retried_by?: string[];
  restarted_by?: string[];
  rerun_by?: string[];
}

/** A run without its tasks, in Conductor's `Workflow` shape (tasks are separate rows). */
export interface RunRecord {
  workflowId: string;
  workflowName: string;
  workflowVersion: number;
  status: WorkflowStatus;
  input: JsonObject;
  output: JsonObject;
  variables: JsonObject;
  correlationId?: string;
  priority: number;
  taskToDomain: Record<string, string>;
  reasonForIncompletion?: string;
  failedReferenceTaskNames: string[];
  failedTaskNames: string[];
  parentWorkflowId?: string;
  parentWorkflowTaskId?: string;
  idempotencyKey?: string;
  event?: string;
  createTime: number;
  updateTime: number;
  endTime: number;
  /**
   * The earliest a task of this run stands in its queue from (epoch ms; the queue order of
   * BATON_QUEUE_RUN_AGE_MS): set on a SUB_WORKFLOW child to its parent's (the parent's own
   * `queueSince`, else its `createTime`), so a child stands with the run under way that started
   * it. Absent: the run's `createTime`.
   */
  queueSince?: number;
  links: RunLinks;
  /** Workflow timeouts under timeoutPolicy ALERT_ONLY. */
  alerts?: LifecycleAlert[];
  /** Each time the run went from FAILED/TIMED_OUT back to RUNNING through a dead-letter requeue. */
  reopened?: RunReopening[];
  /**
   * Set for a run started by a synchronous execute (`POST /api/workflow/execute`): until this
   * time (epoch ms; the caller's deadline plus a margin for clock skew) a caller may be waiting
   * for the run on some node, so every change to it is announced to all nodes. Other runs'
   * changes wake only the node that made them.
   */
  syncWaitUntil?: number;
  /** The definition the run started with; a run never changes version under its feet. */
  workflowDefinition: WorkflowDef;
  /**
   * The definition came from data (a START_WORKFLOW request's `workflowDef`, a SUB_WORKFLOW
   * definition given by an expression, or an inline one inside such a run): no secret reference
   * written in it is honoured, since whoever supplied the data wrote it.
   */
  definitionFromData?: true;
  /** The run's place in a distributed trace, kept with the run so it outlives nodes and restarts. */
  trace?: RunTrace;
}

/** A run's trace context (W3C ids as lowercase hex), set when tracing was on at its start. */
export interface RunTrace {
  traceId: string;
  /** The run span's id; its task attempts' spans are its children. */
  spanId: string;
  /** The span that started the run: a caller's (traceparent on the start request), a parent run's task. */
  parentSpanId?: string;
  /** The sampling decision made at the start, kept for every task of the run. */
  sampled: boolean;
}

/** A run with its tasks: the answer of `GET /api/workflow/{id}`. */
export interface Workflow extends RunRecord {
  tasks: TaskRecord[];
  startTime: number;
  /** When the run was retried (Conductor's field): a run made by retry, its creation; a reopened run, its last reopening. */
  lastRetriedTime?: number;
  /** What the open run waits for: one entry per open task (and one when paused); computed on read. */
  waitingFor?: RunWaitingFor[];
  /** True when the run was read from the archive (blob storage), not the hot tables. */
  archived?: boolean;
}

/** A log line of a task (Conductor's `TaskExecLog`). */
export interface TaskLog {
  taskId: string;
  log: string;
  createdTime: number;
}

/** Worker's answer for a task (Conductor's `TaskResult`). */
export interface TaskResult {
  taskId: string;
  workflowInstanceId: string;
  status: 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' | 'FAILED_WITH_TERMINAL_ERROR';
  outputData?: JsonObject;
  reasonForIncompletion?: string;
  callbackAfterSeconds?: number;
  workerId?: string;
  logs?: Array<{ log: string; createdTime?: number; taskId?: string }>;
  extendLease?: boolean;
  /** The output was uploaded to blob storage at this path instead of being sent as `outputData`. */
  externalOutputPayloadStoragePath?: string;
}

/** Start request body (the interface's fields plus Conductor's `name`). */
export interface StartWorkflowRequest {
  name: string;
  version?: number;
  input?: JsonObject;
  correlationId?: string;
  priority?: number;
  taskToDomain?: Record<string, string>;
  idempotencyKey?: string;
  idempotencyStrategy?: 'FAIL' | 'RETURN_EXISTING';
  workflowDef?: WorkflowDef;
  /** The input was uploaded to blob storage at this path instead of being sent as `input`. */
  externalInputPayloadStoragePath?: string;
}

/** Search answer (Conductor's `SearchResult<T>`). */
export interface SearchResult<T> {
  totalHits: number;
  results: T[];
}

/** One row of a run search (Conductor's `WorkflowSummary`; times are ISO-8601 UTC strings). */
export interface WorkflowSummary {
  workflowType: string;
  version: number;
  workflowId: string;
  correlationId?: string;
  startTime: string;
  updateTime: string;
  endTime?: string;
  status: WorkflowStatus;
  input: string;
  output: string;
  reasonForIncompletion?: string;
  executionTime: number;
  failedReferenceTaskNames: string;
  failedTaskNames: string[];
  priority: number;
  idempotencyKey?: string;
  parentWorkflowId?: string;
  /** True when the run lives in the archive (its input and output are then not in the summary). */
  archived?: boolean;
}

/** One row of a task search (Conductor's `TaskSummary`; times are ISO-8601 UTC strings). */
export interface TaskSummary {
  workflowId: string;
  workflowType: string;
  correlationId?: string;
  scheduledTime: string;
  startTime: string;
  updateTime: string;
  endTime?: string;
  status: TaskStatus;
  reasonForIncompletion?: string;
  executionTime: number;
  queueWaitTime: number;
  taskDefName: string;
  taskType: string;
  input: string;
  output: string;
  taskId: string;
  referenceTaskName: string;
  retryCount: number;
  workerId?: string;
  domain?: string;
  workflowPriority: number;
  externalOutputPayloadStoragePath?: string;
}

/** Last poll of a worker on a queue (Conductor's `PollData`). */
export interface PollData {
  queueName: string;
  domain?: string;
  workerId: string;
  lastPollTime: number;
  /** Whether this worker polled in the last 10 s (computed on read). */
  active?: boolean;
}

/** Counts of one worker queue. */
export interface QueueCounts {
  queueName: string;
  /** Visible now and not taken. */
  waiting: number;
  /** Sent with a later visible time (retry delay, callback, start delay). */
  scheduled: number;
  /** Taken by a worker whose lock has not lapsed. */
  inFlight: number;
  deadLettered: number;
  /** Workers that polled this queue in the last 10 s (liveness; computed on read). */
  activeWorkers?: number;
  /** Last poll of the queue by any worker, epoch ms; absent when never polled. */
  lastPollTime?: number;
  /** When the queue lost its last active worker (last poll + 10 s); absent while one is active. */
  noActiveWorkerSince?: number;
}

/** Task definition as stored, with the times set by the server. */
export type StoredTaskDef = TaskDef & { createTime: number; updateTime: number };
