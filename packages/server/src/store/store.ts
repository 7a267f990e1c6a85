import type {
  JsonObject,
  RunLinks,
  PollData,
  QueueCounts,
  RunRecord,
  StoredTaskDef,
  TaskDef,
  TaskLog,
  TaskRecord,
  WorkflowDef,
  WorkflowMessage,
  WorkflowStatus,
} from '@baton/protocol';

import type { EventsTx } from './events-port.js';

/**
 * The storage port. Two implementations (SQLite, PostgreSQL) pass one conformance suite.
 *
 * Every change happens inside `transaction`: run state, queue messages and (later) timers are
 * written together, so there is no dual write to keep in step. On PostgreSQL a transaction
 * that hits a serialization failure or deadlock is retried from the start, so `fn` must not
 * have side effects outside the transaction (collect them and act after it resolves).
 */
export interface TransactionOptions {
  /**
   * May share a database transaction with other concurrent transactions of this node that ask
   * the same (group commit on PostgreSQL: one COMMIT for all; SQLite commits its transactions
   * together anyway). Each still locks its run alone and fails alone; `fn` may run more than once.
   * For short transactions that lock at most one run: a worker's result.
   */
  group?: boolean;
}

export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * Applies pending migrations (under an advisory lock on PostgreSQL). Idempotent. Throws
   * SchemaVersionError when the database's schema is newer than this code and not declared
   * compatible with it (schema-versions.ts).
   */
  migrate(): Promise<void>;
  transaction<T>(fn: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Reads outside a write transaction (no row locks taken). */
  read<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Subscribes to queue notifications sent by any node (`Tx.notifyQueues`). Returns an
   * unsubscribe function. SQLite has one node, so it never calls the listener.
   * A notification is a hint: it may be lost or duplicated.
   */
  onQueueNotification(listener: (queueNames: string[]) => void): () => void;
  /** Throws when the database cannot answer a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A message on a worker queue: the interface's `{taskId, workflowId, taskRef, input, attempt}` plus delivery state. */
export interface QueueMessage {
  taskId: string;
  queueName: string;
  workflowId: string;
  taskRef: string;
  attempt: number;
  /** Higher first within a queue. */
  priority: number;
  /** Epoch ms before which the message is not handed out. */
  visibleAt: number;
  /** How long a hand-out locks the message (the task's responseTimeoutSeconds, in ms). */
  lockMs: number;
  /**
   * Set when the message is queued already handed out (update-v2's direct hand-off): it is
   * written locked, as a claim would leave it, with `visibleAt` the lock's end.
   */
  lock?: { lockedUntil: number; lockToken: string; workerId: string };
}

export interface StoredQueueMessage extends QueueMessage {
  lockedUntil: number | null;
  lockToken: string | null;
  workerId: string | null;
  deliveryCount: number;
  deadLettered: boolean;
  createdAt: number;
}

export interface ClaimRequest {
  /** Queues in the order they are drained (e.g. the high-priority queue first). */
  queueNames: string[];
  count: number;
  workerId: string;
  now: number;
  /** Token written on claimed messages, so a later result can be matched to this hand-out. */
  lockToken: string;
}

/**
 * A search condition tree over named fields (never SQL): built by `src/search` from plain
 * parameters or Conductor's query form, compiled by each store into bound SQL (`sql-filter.ts`).
 */
export type FilterValue = string | number;
export type FilterOp = '=' | '!=' | '>' | '>=' | '<' | '<=';
export type SearchFilter<F extends string> =
  | { kind: 'and' | 'or'; items: Array<SearchFilter<F>> }
  | { kind: 'in'; field: F; values: FilterValue[]; negate: boolean }
  | { kind: 'compare'; field: F; op: FilterOp; value: FilterValue };

export const RUN_SEARCH_FIELDS = [
  'workflowId',
  'workflowType',
  'version',
  'status',
  'correlationId',
  'parentWorkflowId',
  'startTime',
  'updateTime',
  'endTime',
] as const;
export type RunSearchField = (typeof RUN_SEARCH_FIELDS)[number];

export const TASK_SEARCH_FIELDS = [
  'taskId',
  'taskType',
  'status',
  'workflowId',
  'workflowType',
  'referenceTaskName',
  'workerId',
  'startTime',
  'scheduledTime',
  'updateTime',
  'endTime',
] as const;
export type TaskSearchField = (typeof TASK_SEARCH_FIELDS)[number];

export const TASK_SORT_FIELDS = [
  'updateTime',
  'startTime',
  'scheduledTime',
  'endTime',
  'status',
  'taskType',
  'taskId',
  'workflowId',
] as const;
export type TaskSortField = (typeof TASK_SORT_FIELDS)[number];

export interface TaskQuery {
  filter?: SearchFilter<TaskSearchField>;
  /** Matched against the task id and the text of its input and output. `*` or empty = all. */
  freeText?: string;
  start: number;
  size: number;
  sort: Array<{ field: TaskSortField; order: 'ASC' | 'DESC' }>;
}

/**
 * The slim index row of a run moved to blob storage
 * (docs/design/payloads-and-archive.md#the-archive); the whole run is the blob.
 */
export interface ArchivedRun {
  workflowId: string;
  workflowName: string;
  workflowVersion: number;
  status: WorkflowStatus;
  correlationId?: string;
  priority: number;
  parentWorkflowId?: string;
  createTime: number;
  updateTime: number;
  endTime: number;
  /** Retry / restart / rerun links, kept current when an archived run is restarted or rerun. */
  links: RunLinks;
  blobKey: string;
  /** SHA-256 (hex) of the compressed document, checked on every read. */
  blobSha256: string;
  archivedAt: number;
}

export interface ArchiveClaim {
  /** Runs that ended at or before this time (epoch ms) are due. */
  endedBefore: number;
  now: number;
  /** Claimed runs are this node's until then; a node that dies lets its claims lapse. */
  leaseUntil: number;
  node: string;
  limit: number;
}

export interface RunQuery {
  /** Conditions of Conductor's query form, and-ed with the plain ones below. */
  filter?: SearchFilter<RunSearchField>;
  name?: string;
  status?: WorkflowStatus[];
  correlationId?: string;
  /** Epoch ms, inclusive, on createTime. */
  from?: number;
  to?: number;
  /** Matched against id, correlation id, name and the run's input/output text. `*` or empty = all. */
  freeText?: string;
  start: number;
  size: number;
  sort: Array<{ field: RunSortField; order: 'ASC' | 'DESC' }>;
}
export const RUN_SORT_FIELDS = [
  'createTime',
  'updateTime',
  'endTime',
  'status',
  'workflowType',
  'workflowId',
] as const;
export type RunSortField = (typeof RUN_SORT_FIELDS)[number];

export interface PollRecord {
  queueName: string;
  taskType: string;
  domain?: string;
  workerId: string;
  now: number;
}

/** The hand-out limit state of a task type, read under its lock (`Tx.lockTaskLimit`). */
export interface TaskLimitState {
  /** Tasks of the type IN_PROGRESS now (committed), for `concurrentExecLimit`. */
  inProgress: number;
  /** Start (epoch ms) of the current rate-limit window; 0 before the first hand-out. */
  windowStart: number;
  /** Hand-outs counted in that window. */
  windowCount: number;
}

/**
 * A durable timer (docs/design/shape.md#durable-timers-the-only-sweeper). `kind` is the engine's
 * TimerKind; the store keeps it as text. A timer is deleted when it fires (in the transaction of
 * the decision it caused) or when the state it guards no longer needs it.
 */
export interface TimerRecord {
  timerId: string;
  workflowId: string;
  /** The task the timer guards; absent for run-level timers. */
  taskId?: string;
  kind: string;
  /** Epoch ms at which it is due. */
  dueAt: number;
  payload: JsonObject;
}

export interface StoredTimer extends TimerRecord {
  /** Set while a node fires it: others leave it alone until then (a dead node's lease lapses). */
  claimedUntil: number | null;
  createTime: number;
}

/** Which timers to cancel or list: by run, by tasks, narrowed by kinds. At least one of workflowId/taskIds. */
export interface TimerFilter {
  workflowId?: string;
  taskIds?: readonly string[];
  kinds?: readonly string[];
}

export interface TimerClaim {
  now: number;
  limit: number;
  /** How long the claimer may take to fire them before another node may claim them again. */
  leaseMs: number;
}

/**
 * A sweep of lapsed locks: messages a worker (or a node's system call) took and never answered
 * within their lock. The lock is the response deadline (the RESPONSE_TIMEOUT of
 * docs/design/task-lifecycle.md#lock-expiry), so no timer row is armed and deleted per hand-out;
 * the sweep claims lapsed ones under a lease.
 */
export interface LockSweep {
  now: number;
  limit: number;
  /** How long the sweeper may take to act on them before another node may sweep them again. */
  leaseMs: number;
  /** Written as the lock token, so the sweeper can tell its lease from a worker's later extension. */
  lockToken: string;
}

/** A secret as stored: its value sealed by the secrets cipher (the store never sees plain text). */
export interface StoredSecret {
  name: string;
  /** base64 of IV, auth tag and ciphertext. */
  sealed: string;
  /** Which key sealed it (a digest of the key, not the key). */
  keyId: string;
  createTime: number;
  updateTime: number;
}

/** A service registry entry; `record` is the registry's own shape (credentials are secret names). */
export interface StoredService {
  name: string;
  record: JsonObject;
  createTime: number;
  updateTime: number;
}

/** A stored authentication record (an application, an access key, the token signing key). */
export interface AuthRecord {
  kind: AuthRecordKind;
  id: string;
  doc: JsonObject;
  createTime: number;
  updateTime: number;
}
export type AuthRecordKind = 'application' | 'access_key' | 'signing_key';

/** An operator's action on a run (pause, resume, terminate, retry, ...), with who and when. */
export interface RunAction {
  workflowId: string;
  action: string;
  /** The caller's identity (subject), or `anonymous` when authentication is off. */
  actor: string;
  at: number;
  detail?: JsonObject;
}

/** A stored workflow definition with the times set by the server. */
export type StoredWorkflowDef = WorkflowDef & { version: number; createTime: number; updateTime: number };

/** Operations available inside a transaction. All times are epoch milliseconds. */
export interface Tx {
  /** Event handlers, inbox, executions, outbox, schedules and instruction texts (`events-port.ts`). */
  readonly events: EventsTx;

  // --- workflow definitions
  getWorkflowDef(name: string, version?: number): Promise<StoredWorkflowDef | undefined>;
  listWorkflowDefs(): Promise<StoredWorkflowDef[]>;
  latestWorkflowVersion(name: string): Promise<number | undefined>;
  /** Inserts; returns false (and changes nothing) when that name and version exist. */
  insertWorkflowDef(def: StoredWorkflowDef): Promise<boolean>;
  /** Inserts or replaces that name and version (createTime of an existing row is kept). */
  upsertWorkflowDef(def: StoredWorkflowDef): Promise<void>;
  deleteWorkflowDef(name: string, version: number): Promise<boolean>;

  // --- task definitions
  getTaskDef(name: string): Promise<StoredTaskDef | undefined>;
  getTaskDefs(names: readonly string[]): Promise<Map<string, StoredTaskDef>>;
  listTaskDefs(): Promise<StoredTaskDef[]>;
  /** Inserts or replaces (createTime of an existing row is kept). */
  upsertTaskDef(def: TaskDef & { createTime: number; updateTime: number }): Promise<void>;
  deleteTaskDef(name: string): Promise<boolean>;

  // --- queues (a queue exists once a task definition or a message names it)
  ensureQueues(queueNames: readonly string[], now: number): Promise<void>;
  listQueues(): Promise<string[]>;

  // --- runs
  insertRun(run: RunRecord): Promise<void>;
  getRun(workflowId: string): Promise<RunRecord | undefined>;
  /** Reads the run and locks its row until the transaction ends (one writer per run). */
  lockRun(workflowId: string): Promise<RunRecord | undefined>;
  updateRun(run: RunRecord): Promise<void>;
  countRunsOfVersion(name: string, version: number): Promise<number>;
  searchRuns(query: RunQuery): Promise<{ totalHits: number; results: RunRecord[] }>;
  runsByCorrelationId(name: string, correlationId: string, includeClosed: boolean): Promise<RunRecord[]>;
  /** Tasks matching the query, served from indexes on type, status, run, run name and times. */
  searchTasks(query: TaskQuery): Promise<{ totalHits: number; results: TaskRecord[] }>;

  // --- the archive (runs moved to blob storage; `archived_runs` is their index)
  /**
   * Claims up to `limit` ended runs due for the archive that no live claim holds, oldest end
   * first, until `leaseUntil`. SKIP LOCKED on PostgreSQL: concurrent archivers never claim the
   * same run. Answers their ids.
   */
  claimRunsToArchive(claim: ArchiveClaim): Promise<string[]>;
  /** Every log line of every task of a run, in insertion order. */
  getRunLogs(workflowId: string): Promise<TaskLog[]>;
  /**
   * Deletes every hot row of a run: the run, its tasks, their logs and latest-by-name rows, its
   * mailbox, queue messages, timers and archive claim. The caller holds the run's lock.
   */
  deleteRunRows(workflowId: string): Promise<void>;
  insertArchivedRun(row: ArchivedRun): Promise<void>;
  getArchivedRun(workflowId: string): Promise<ArchivedRun | undefined>;
  /** The query over archived runs (free text matches id, correlation id and name only). */
  searchArchivedRuns(query: RunQuery): Promise<{ totalHits: number; results: ArchivedRun[] }>;
  archivedRunsByCorrelationId(name: string, correlationId: string): Promise<ArchivedRun[]>;
  updateArchivedRunLinks(workflowId: string, links: RunLinks): Promise<void>;
  deleteArchivedRun(workflowId: string): Promise<boolean>;

  // --- tasks
  insertTasks(tasks: readonly TaskRecord[]): Promise<void>;
  updateTasks(tasks: readonly TaskRecord[]): Promise<void>;
  /**
   * Compare-and-set for writers that do not hold the run lock (hand-out): writes each record only
   * if the stored task is still open (SCHEDULED or IN_PROGRESS), so a task that has just ended is
   * never reopened. Answers the ids that were written.
   */
  updateOpenTasks(tasks: readonly TaskRecord[]): Promise<string[]>;
  getTask(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * The task, read once run `workflowId` is locked as `lockRun` locks it: a worker's result names
   * its run, so the lock its decision takes next goes in the same round trip as the task read. A
   * `lockRun` of that run right after (nothing sent in between) answers without a statement. The
   * task may belong to another run: the caller checks, as after `getTask`. Where transactions are
   * serialised (SQLite) it is `getTask`.
   */
  getTaskLockingRun(taskId: string, workflowId: string): Promise<TaskRecord | undefined>;
  getTasks(taskIds: readonly string[]): Promise<TaskRecord[]>;
  /** All tasks of a run, ordered by seq. */
  getRunTasks(workflowId: string): Promise<TaskRecord[]>;
  /**
   * The tasks a decision on this run needs, ordered by seq: every open task, every ended task
   * not yet acted on (`executed` false), and the latest task (highest seq) of every name of the
   * expression document (a ref without loop suffixes). Bounded by the run's definition and what
   * is in flight, not by how many tasks the run has made (ARCHITECTURE.md "The decide set").
   */
  getDecideTasks(workflowId: string): Promise<TaskRecord[]>;
  appendTaskLogs(logs: readonly TaskLog[]): Promise<void>;
  getTaskLogs(taskId: string): Promise<TaskLog[]>;

  // --- worker queue messages
  enqueue(messages: readonly QueueMessage[], now: number): Promise<void>;
  /**
   * Takes up to `count` visible, unlocked, not dead-lettered messages from the queues in order,
   * highest priority then earliest visible first; locks each for its lockMs,
   * increments deliveryCount, records the worker. One statement per queue with SKIP LOCKED on
   * PostgreSQL, so concurrent claims never take the same message.
   */
  claim(request: ClaimRequest): Promise<StoredQueueMessage[]>;
  getMessage(taskId: string): Promise<StoredQueueMessage | undefined>;
  removeMessages(taskIds: readonly string[]): Promise<void>;
  /** Re-sends a message: visible again at `visibleAt`, unlocked. */
  requeueMessage(taskId: string, visibleAt: number): Promise<boolean>;
  /**
   * Moves the lock of a taken message to `lockedUntil` (lease extension) and clears its token: a
   * sweeper that leased the lapsed lock (`claimLapsedLocks`) then sees that it is no longer its.
   */
  extendLock(taskId: string, lockedUntil: number): Promise<boolean>;
  /**
   * A lock that lapsed is never handed out again by `claim`: this takes up to `limit` messages
   * whose lock lapsed at `now` (not dead-lettered), earliest lapse first, and leases them to the
   * sweeper (`lockedUntil` now + leaseMs, its lockToken; worker kept). Answers them as they were
   * before the lease but for the sweeper's lockToken. SKIP LOCKED on PostgreSQL: concurrent sweepers never take the same one.
   */
  claimLapsedLocks(sweep: LockSweep): Promise<StoredQueueMessage[]>;
  /** When the next held lock lapses (earliest lockedUntil of a message not dead-lettered). */
  nextLockLapseAt(): Promise<number | undefined>;
  /**
   * Moves a message to the dead-letter state (retries exhausted): never handed out again until
   * `requeueMessage` or a new `enqueue` of that taskId. Returns false when there is no such message.
   */
  deadLetterMessage(taskId: string): Promise<boolean>;
  queueCounts(now: number): Promise<QueueCounts[]>;
  /** Earliest visibleAt of a waiting or delayed message on these queues, for long-poll wake-ups. */
  nextVisibleAt(queueNames: readonly string[], now: number): Promise<number | undefined>;
  /** Asks every node to wake long polls on these queues once this transaction commits. */
  notifyQueues(queueNames: readonly string[]): Promise<void>;

  // --- hand-out limits (concurrentExecLimit, rateLimitPerFrequency)
  /**
   * Locks the limit row of a task type (made on first use) until the transaction ends, then
   * answers its state. Hand-outs of a limited type take turns on this row on every node, so the
   * count read here cannot be overtaken by another node's hand-out before this one commits.
   */
  lockTaskLimit(taskType: string): Promise<TaskLimitState>;
  /** Stores the rate-limit window of a task type (after `lockTaskLimit` in the same transaction). */
  setTaskRateWindow(taskType: string, windowStart: number, windowCount: number): Promise<void>;
  /**
   * Gives claimed messages back without handing them out: visible again at `visibleAt`, lock
   * and worker cleared, and the claim's delivery not counted (a task over a limit).
   */
  deferMessages(taskIds: readonly string[], visibleAt: number): Promise<void>;
  /** Dead-lettered messages of these queues, oldest first. */
  deadLetteredMessages(queueNames: readonly string[]): Promise<StoredQueueMessage[]>;

  // --- durable timers
  /** Arms timers (an existing timerId is replaced and unclaimed). */
  armTimers(timers: readonly TimerRecord[], now: number): Promise<void>;
  /** Deletes the matching timers; answers how many. */
  cancelTimers(filter: TimerFilter): Promise<number>;
  /**
   * Deletes the matching timers without saying how many, which lets PostgreSQL send the delete
   * with the transaction's next statement (write-behind.ts). The decision path uses it.
   */
  dropTimers(filter: TimerFilter): Promise<void>;
  /**
   * Claims up to `limit` timers due at `now` that no live lease holds, earliest first, and
   * leases them until `now + leaseMs`. `FOR UPDATE SKIP LOCKED` on PostgreSQL: concurrent
   * claimers never take the same timer.
   */
  claimDueTimers(claim: TimerClaim): Promise<StoredTimer[]>;
  /** Deletes one timer (it fired); false when it was already gone (fired elsewhere, or cancelled). */
  deleteTimer(timerId: string): Promise<boolean>;
  /** When the next timer may be claimed: earliest due time of unclaimed timers, or lease end of claimed ones. */
  nextTimerDueAt(): Promise<number | undefined>;
  listTimers(filter: TimerFilter): Promise<StoredTimer[]>;

  // --- worker liveness
  recordPoll(poll: PollRecord): Promise<void>;
  /** Poll data of a task type across its queues (all domains); all types when omitted. */
  pollData(taskType?: string): Promise<PollData[]>;

  // --- run mailboxes (messages and signals; taken by PULL_WORKFLOW_MESSAGES)
  appendRunMessage(message: WorkflowMessage): Promise<void>;
  /** The oldest `limit` messages of a run's mailbox, oldest first. */
  getRunMessages(workflowId: string, limit: number): Promise<WorkflowMessage[]>;
  deleteRunMessages(workflowId: string, messageIds: readonly string[]): Promise<void>;

  // --- idempotent starts
  /**
   * Records that `key` of definition `name` started `workflowId`, unless the key is already
   * taken: then answers the run id it started and writes nothing. The primary key makes this
   * race-free: a concurrent claim of the same key waits for this transaction and then sees it.
   */
  claimIdempotencyKey(
    name: string,
    key: string,
    workflowId: string,
    now: number,
  ): Promise<string | undefined>;

  // --- secrets and the service registry (integrations)
  /** Inserts or replaces a secret (createTime of an existing row is kept). */
  putSecret(secret: StoredSecret): Promise<void>;
  /** The named secrets that exist, in name order. */
  getSecrets(names: readonly string[]): Promise<StoredSecret[]>;
  /** Every secret without its sealed value, in name order. */
  listSecrets(): Promise<Array<Omit<StoredSecret, 'sealed' | 'keyId'>>>;
  deleteSecret(name: string): Promise<boolean>;
  /** Inserts or replaces a service (createTime of an existing row is kept). */
  putService(service: StoredService): Promise<void>;
  getService(name: string): Promise<StoredService | undefined>;
  /** Every service, in name order. */
  listServices(): Promise<StoredService[]>;
  deleteService(name: string): Promise<boolean>;

  // --- authentication records and operator actions (auth/)
  getAuthRecord(kind: AuthRecordKind, id: string): Promise<AuthRecord | undefined>;
  listAuthRecords(kind: AuthRecordKind): Promise<AuthRecord[]>;
  /** Inserts; false (and nothing written) when that kind and id exist, so a race has one winner. */
  insertAuthRecord(record: AuthRecord): Promise<boolean>;
  /** Replaces the document of an existing record; false when there is none. */
  updateAuthRecord(kind: AuthRecordKind, id: string, doc: JsonObject, now: number): Promise<boolean>;
  deleteAuthRecord(kind: AuthRecordKind, id: string): Promise<boolean>;
  appendRunAction(action: RunAction): Promise<void>;
  /** A run's operator actions, oldest first. */
  getRunActions(workflowId: string): Promise<RunAction[]>;
}

export type * from './events-port.js';

/** Stored JSON object helper type for implementations. */
export type JsonColumn = JsonObject;
