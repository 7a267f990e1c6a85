/* eslint-disable @typescript-eslint/require-await -- better-sqlite3 is synchronous; the port is async. */
import type {
  JsonObject,
  PollData,
  RunLinks,
  RunRecord,
  TaskDef,
  TaskLog,
  TaskRecord,
  WorkflowMessage,
} from '@baton/protocol';

import {
  OPEN_RUN_STATUSES,
  type PollRow,
  inRequestedOrder,
  latestPolls,
  pollFromRow,
  runRecordColumn,
} from '../store/sql-common.js';
import type {
  ArchiveClaim,
  ArchivedRun,
  DefinitionPrunePage,
  DefinitionPruning,
  AuthRecord,
  AuthRecordKind,
  PollRecord,
  RunAction,
  RunQuery,
  StoredSecret,
  StoredService,
  StoredWorkflowDef,
  TaskLimitState,
  TaskQuery,
  Tx,
} from '../store/store.js';
import { SqlEventsTx } from '../store/events-tx.js';
import {
  type StoredTaskRow,
  TASK_ROW_COLUMNS,
  storedTaskParts,
  taskFromRow,
} from '../store/task-record-storage.js';
import { TX_ACCESS, guardMethods } from '../store/tx-access.js';
import { deferMessages, lockTaskLimit, setTaskRateWindow } from './limits.js';
import * as ig from './integrations.js';
import * as auth from './auth.js';
import * as rc from './mailbox.js';
import { upsertLatestByName } from './decide-set.js';
import * as defs from './definitions.js';
import { SqliteRunLockTx } from './run-lock.js';
import * as archive from './archive.js';
import { pruneRunDefinitions } from './definition-pruning.js';
import { searchArchivedRuns, searchRuns, searchTasks } from './search.js';
import {
  RUN_COLUMNS,
  runDefinitionRef,
  type RunRow,
  ensureQueues,
  insertRunSearch,
  list,
  run,
  updateRunSearch,
} from './sql.js';
import { isStorableVersion } from '../bounds/ranges.js';
import { copyWith } from '../copy-with.js';

/** Writes one whole task record; callers may add conditions after the WHERE. */
const UPDATE_TASK = `UPDATE tasks SET workflow_id = @workflowId, seq = @seq, reference_task_name = @ref, task_type = @type,
  status = @status, update_time = @updateTime, record = @record, packed = @packed
  WHERE task_id = @taskId`;

/** `$n` parameters (any order, any repeats) as `?` with the values in the order they appear. */
function positional(sql: string, params: readonly unknown[]): [string, ...unknown[]] {
  const values: unknown[] = [];
  const text = sql.replace(/\$(\d+)/g, (_m, n: string) => {
    values.push(params[Number(n) - 1]);
    return '?';
  });
  return [text, ...values];
}

/**
 * The SQLite `Tx`. Statements run synchronously on the connection; the store has already
 * opened `BEGIN IMMEDIATE` (write) or runs on the read connection (read), so the methods are
 * async only to satisfy the port. Multi-row writes loop one cached statement inside the
 * transaction: with no network round trip, that is SQLite's fastest batch. The run lock and the
 * decide set read with it are in `run-lock.ts`, the worker queues in `queue.ts`: the classes this
 * one extends.
 */
export class SqliteTx extends SqliteRunLockTx implements Tx {
  /** The shared statements, with `$n` parameters rewritten to SQLite's positional `?`. */
  readonly events = new SqlEventsTx(
    {
      rows: async <R>(sql: string, params: readonly unknown[]) => this.c.all<R>(...positional(sql, params)),
      exec: async (sql: string, params: readonly unknown[]) => this.c.run(...positional(sql, params)).changes,
    },
    this.state,
  );

  // --- workflow and task definitions (`definitions.ts`)
  getWorkflowDef(name: string, version?: number) {
    return defs.getWorkflowDef(this.c, name, version);
  }
  listWorkflowDefs() {
    return defs.listWorkflowDefs(this.c);
  }
  latestWorkflowVersion(name: string) {
    return defs.latestWorkflowVersion(this.c, name);
  }
  insertWorkflowDef(def: StoredWorkflowDef) {
    return defs.insertWorkflowDef(this.c, def);
  }
  upsertWorkflowDef(def: StoredWorkflowDef) {
    return defs.upsertWorkflowDef(this.c, def);
  }
  deleteWorkflowDef(name: string, version: number) {
    return defs.deleteWorkflowDef(this.c, name, version);
  }
  getTaskDef(name: string) {
    return defs.getTaskDef(this.c, name);
  }
  getTaskDefs(names: readonly string[]) {
    return defs.getTaskDefs(this.c, names);
  }
  listTaskDefs() {
    return defs.listTaskDefs(this.c);
  }
  upsertTaskDef(def: TaskDef & { createTime: number; updateTime: number }) {
    return defs.upsertTaskDef(this.c, def);
  }
  deleteTaskDef(name: string) {
    return defs.deleteTaskDef(this.c, name);
  }

  // --- queues

  async ensureQueues(queueNames: readonly string[], now: number): Promise<void> {
    ensureQueues(this.c, queueNames, now);
  }

  async listQueues(): Promise<string[]> {
    return this.c
      .all<{ queue_name: string }>('SELECT queue_name FROM queues ORDER BY queue_name')
      .map((r) => r.queue_name);
  }

  // --- runs: `getRun` and `lockRun` in `run-lock.ts`

  async insertRun(r: RunRecord): Promise<void> {
    this.names.learnNewRun(r.workflowId);
    const searchRowid = insertRunSearch(this.c, r);
    this.c.run(
      `INSERT INTO runs (workflow_id, workflow_name, workflow_version, status, correlation_id, priority,
         parent_workflow_id, idempotency_key, create_time, update_time, end_time, record, definition, search_rowid)
       VALUES (@workflowId, @workflowName, @workflowVersion, @status, @correlationId, @priority,
         @parentWorkflowId, @idempotencyKey, @createTime, @updateTime, @endTime, @record, @definition, @searchRowid)`,
      copyWith(runColumns(r), {
        workflowName: r.workflowName,
        workflowVersion: r.workflowVersion,
        createTime: r.createTime,
        definition: runDefinitionRef(this.c, JSON.stringify(r.workflowDefinition)),
        searchRowid,
      }),
    );
  }

  async updateRun(r: RunRecord): Promise<void> {
    const result = this.c.run(
      `UPDATE runs SET status = @status, correlation_id = @correlationId, priority = @priority,
         parent_workflow_id = @parentWorkflowId, idempotency_key = @idempotencyKey, update_time = @updateTime,
         end_time = @endTime, record = @record
       WHERE workflow_id = @workflowId`,
      runColumns(r),
    );
    if (result.changes !== 1) throw new Error(`updateRun: no run ${r.workflowId}`);
    updateRunSearch(this.c, r);
  }

  async countRunsOfVersion(name: string, version: number): Promise<number> {
    if (!isStorableVersion(version)) return 0;
    const row = this.c.get<{ n: number }>(
      'SELECT count(*) AS n FROM runs WHERE workflow_name = ? AND workflow_version = ?',
      name,
      version,
    );
    return row?.n ?? 0;
  }

  async searchRuns(query: RunQuery): Promise<{ totalHits: number; results: RunRecord[] }> {
    return searchRuns(this.c, query);
  }

  async searchTasks(query: TaskQuery): Promise<{ totalHits: number; results: TaskRecord[] }> {
    return searchTasks(this.c, query);
  }

  // --- the archive (statements in archive.ts)

  async claimRunsToArchive(claim: ArchiveClaim): Promise<string[]> {
    return archive.claimRunsToArchive(this.c, claim);
  }

  async getRunLogs(workflowId: string): Promise<TaskLog[]> {
    return archive.getRunLogs(this.c, workflowId);
  }

  async deleteRunRows(workflowId: string): Promise<void> {
    archive.deleteRunRows(this.c, workflowId);
    this.names.forget(workflowId);
  }

  async deleteRunTraces(workflowId: string): Promise<void> {
    archive.deleteRunTraces(this.c, workflowId);
  }

  async pruneRunDefinitions(page: DefinitionPruning): Promise<DefinitionPrunePage> {
    return pruneRunDefinitions(this.c, page);
  }

  async insertArchivedRun(row: ArchivedRun): Promise<void> {
    archive.insertArchivedRun(this.c, row);
  }

  async getArchivedRun(workflowId: string): Promise<ArchivedRun | undefined> {
    return archive.getArchivedRun(this.c, workflowId);
  }

  async searchArchivedRuns(query: RunQuery): Promise<{ totalHits: number; results: ArchivedRun[] }> {
    return searchArchivedRuns(this.c, query);
  }

  async archivedRunsByCorrelationId(name: string, correlationId: string): Promise<ArchivedRun[]> {
    return archive.archivedRunsByCorrelationId(this.c, name, correlationId);
  }

  async updateArchivedRunLinks(workflowId: string, links: RunLinks): Promise<void> {
    archive.updateArchivedRunLinks(this.c, workflowId, links);
  }

  async deleteArchivedRun(workflowId: string): Promise<boolean> {
    return archive.deleteArchivedRun(this.c, workflowId);
  }

  async runsByCorrelationId(
    name: string,
    correlationId: string,
    includeClosed: boolean,
  ): Promise<RunRecord[]> {
    const sql = `SELECT ${RUN_COLUMNS} FROM runs WHERE correlation_id = ? AND workflow_name = ?`;
    const rows = includeClosed
      ? this.c.all<RunRow>(`${sql} ORDER BY create_time, workflow_id`, correlationId, name)
      : this.c.all<RunRow>(
          `${sql} AND status IN (SELECT value FROM json_each(?)) ORDER BY create_time, workflow_id`,
          correlationId,
          name,
          JSON.stringify(OPEN_RUN_STATUSES),
        );
    return rows.map(run);
  }

  // --- tasks: `getTaskLockingRun` and `getDecideTasks` in `run-lock.ts`

  async insertTasks(tasks: readonly TaskRecord[]): Promise<void> {
    // Before the writes: a run not yet learned is read as it was, without the tasks written here.
    const latest = this.latestRowsFor(tasks);
    for (const t of tasks) {
      this.c.run(
        `INSERT INTO tasks (task_id, workflow_id, seq, reference_task_name, task_type, status, update_time, record, packed)
         VALUES (@taskId, @workflowId, @seq, @ref, @type, @status, @updateTime, @record, @packed)`,
        taskColumns(t),
      );
    }
    upsertLatestByName(this.c, latest);
  }

  async updateTasks(tasks: readonly TaskRecord[]): Promise<void> {
    const latest = this.latestRowsFor(tasks);
    for (const t of tasks) {
      const result = this.c.run(UPDATE_TASK, taskColumns(t));
      if (result.changes !== 1) throw new Error(`updateTasks: no task ${t.taskId}`);
    }
    upsertLatestByName(this.c, latest);
  }

  async updateOpenTasks(tasks: readonly TaskRecord[]): Promise<string[]> {
    const written: string[] = [];
    for (const t of tasks) {
      const result = this.c.run(`${UPDATE_TASK} AND status IN ('SCHEDULED', 'IN_PROGRESS')`, taskColumns(t));
      if (result.changes === 1) written.push(t.taskId);
    }
    return written;
  }

  async getTask(taskId: string): Promise<TaskRecord | undefined> {
    const row = this.c.get<StoredTaskRow>(`SELECT ${TASK_ROW_COLUMNS} FROM tasks WHERE task_id = ?`, taskId);
    return row && taskFromRow(row);
  }

  async getTasks(taskIds: readonly string[]): Promise<TaskRecord[]> {
    if (taskIds.length === 0) return [];
    const rows = this.c.all<StoredTaskRow>(
      `SELECT ${TASK_ROW_COLUMNS} FROM tasks WHERE task_id IN (SELECT value FROM json_each(?))`,
      list(taskIds),
    );
    return inRequestedOrder(taskIds, rows, taskFromRow);
  }

  async getRunTasks(workflowId: string): Promise<TaskRecord[]> {
    const tasks = this.c
      .all<StoredTaskRow>(
        `SELECT ${TASK_ROW_COLUMNS} FROM tasks WHERE workflow_id = ? ORDER BY seq, task_id`,
        workflowId,
      )
      .map(taskFromRow);
    if (this.state.writable) this.names.learnAllTasks(workflowId, tasks);
    return tasks;
  }

  async appendTaskLogs(logs: readonly TaskLog[]): Promise<void> {
    for (const l of logs) {
      this.c.run(
        'INSERT INTO task_logs (task_id, log, created_time) VALUES (?, ?, ?)',
        l.taskId,
        l.log,
        l.createdTime,
      );
    }
  }

  async getTaskLogs(taskId: string): Promise<TaskLog[]> {
    return this.c
      .all<{ log: string; created_time: number }>(
        'SELECT log, created_time FROM task_logs WHERE task_id = ? ORDER BY id',
        taskId,
      )
      .map((r) => ({ taskId, log: r.log, createdTime: r.created_time }));
  }

  // --- worker queue messages: the rest in `queue.ts`

  /** SQLite is one node: long polls are woken in-process by the caller, nothing to send. */
  async notifyQueues(_queueNames: readonly string[]): Promise<void> {}

  // --- hand-out limits (SQLite has one writer: BEGIN IMMEDIATE already serialises hand-outs)
  lockTaskLimit(type: string): Promise<TaskLimitState> {
    return lockTaskLimit(this.c, type);
  }
  setTaskRateWindow(type: string, start: number, count: number): Promise<void> {
    return setTaskRateWindow(this.c, type, start, count);
  }
  deferMessages(ids: readonly string[], visibleAt: number): Promise<void> {
    return deferMessages(this.c, ids, visibleAt);
  }

  // --- worker liveness

  async recordPolls(polls: readonly PollRecord[]): Promise<void> {
    for (const poll of latestPolls(polls))
      this.c.run(
        `INSERT INTO poll_data (queue_name, worker_id, task_type, domain, last_poll_time) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (queue_name, worker_id) DO UPDATE SET task_type = excluded.task_type, domain = excluded.domain,
           last_poll_time = excluded.last_poll_time`,
        poll.queueName,
        poll.workerId,
        poll.taskType,
        poll.domain ?? null,
        poll.now,
      );
  }

  async pollData(taskType?: string): Promise<PollData[]> {
    const sql = 'SELECT queue_name, worker_id, domain, last_poll_time FROM poll_data';
    const rows =
      taskType === undefined
        ? this.c.all<PollRow>(`${sql} ORDER BY queue_name, worker_id`)
        : this.c.all<PollRow>(`${sql} WHERE task_type = ? ORDER BY queue_name, worker_id`, taskType);
    return rows.map(pollFromRow);
  }

  // --- run mailboxes and idempotent starts (`mailbox.ts`)
  appendRunMessage(m: WorkflowMessage): Promise<void> {
    return rc.appendRunMessage(this.c, m);
  }
  getRunMessages(id: string, limit: number) {
    return rc.getRunMessages(this.c, id, limit);
  }
  deleteRunMessages(id: string, ids: readonly string[]) {
    return rc.deleteRunMessages(this.c, id, ids);
  }
  claimIdempotencyKey(name: string, key: string, id: string, now: number) {
    return rc.claimIdempotencyKey(this.c, name, key, id, now);
  }

  // --- secrets and the service registry
  putSecret(s: StoredSecret) {
    return ig.putSecret(this.c, s);
  }
  getSecrets(names: readonly string[]) {
    return ig.getSecrets(this.c, names);
  }
  listSecrets() {
    return ig.listSecrets(this.c);
  }
  deleteSecret(name: string) {
    return ig.deleteSecret(this.c, name);
  }
  putService(s: StoredService) {
    return ig.putService(this.c, s);
  }
  getService(name: string) {
    return ig.getService(this.c, name);
  }
  listServices() {
    return ig.listServices(this.c);
  }
  deleteService(name: string) {
    return ig.deleteService(this.c, name);
  }

  // --- authentication records and operator actions (`auth.ts`)
  getAuthRecord(kind: AuthRecordKind, id: string) {
    return auth.getAuthRecord(this.c, kind, id);
  }
  listAuthRecords(kind: AuthRecordKind) {
    return auth.listAuthRecords(this.c, kind);
  }
  insertAuthRecord(r: AuthRecord) {
    return auth.insertAuthRecord(this.c, r);
  }
  updateAuthRecord(kind: AuthRecordKind, id: string, doc: JsonObject, now: number) {
    return auth.updateAuthRecord(this.c, kind, id, doc, now);
  }
  deleteAuthRecord(kind: AuthRecordKind, id: string) {
    return auth.deleteAuthRecord(this.c, kind, id);
  }
  appendRunAction(a: RunAction) {
    return auth.appendRunAction(this.c, a);
  }
  getRunActions(workflowId: string) {
    return auth.getRunActions(this.c, workflowId);
  }
}

// Every port method checks its transaction first (refused after it ended, writes refused in read()).
guardMethods(SqliteTx, TX_ACCESS);

function runColumns(r: RunRecord): Record<string, string | number | null> {
  return {
    workflowId: r.workflowId,
    status: r.status,
    correlationId: r.correlationId ?? null,
    priority: r.priority,
    parentWorkflowId: r.parentWorkflowId ?? null,
    idempotencyKey: r.idempotencyKey ?? null,
    updateTime: r.updateTime,
    endTime: r.endTime,
    record: JSON.stringify(runRecordColumn(r)),
  };
}

function taskColumns(t: TaskRecord): Record<string, string | number | Buffer | null> {
  const { record, packed } = storedTaskParts(t);
  return {
    taskId: t.taskId,
    workflowId: t.workflowInstanceId,
    seq: t.seq,
    ref: t.referenceTaskName,
    type: t.taskType,
    status: t.status,
    updateTime: t.updateTime,
    record,
    packed,
  };
}
