import type {
  JsonObject,
  PollData,
  RunLinks,
  RunRecord,
  StoredTaskDef,
  TaskDef,
  TaskLog,
  TaskRecord,
  WorkflowDef,
  WorkflowMessage,
} from '@baton/protocol';

import {
  OPEN_RUN_STATUSES,
  type PollRow,
  type TxState,
  definitionColumn,
  latestPolls,
  pollFromRow,
  taskDefFromColumns,
  runSearchText,
  searchTextOnUpdate,
  uniqueSorted,
  workflowDefFromColumns,
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
import * as ig from './integrations.js';
import * as archive from './archive.js';
import { pruneRunDefinitions } from './definition-pruning.js';
import * as mailbox from './mailbox.js';

import { searchArchivedRuns, searchRuns, searchTasks } from './search.js';
import { latestByNameParams } from './decide-set.js';
import type { LatestByNameMode } from '../store/latest-by-name.js';
import * as auth from './auth.js';
import { deferMessages, lockTaskLimit, setTaskRateWindow } from './limits.js';
import { type Query, SQL } from './sql.js';
import { type DefsVersionColumn, PgRunLockTx } from './run-lock.js';
import { type TaskRecordShape, taskRowsJson } from './record-shape.js';
import { type PgTaskRow, taskFromPgRow } from './task-rows.js';
import type { TaskDefCache } from './task-def-cache.js';
import type { WriteBehind } from './write-behind.js';
import { type RunDefinitionCache, definitionDigest } from './run-definitions.js';
import { type RunRow, type RunRowsMode, runRecordJson } from './run-rows.js';
import type { MemberLocks } from './group-commit.js';
import { SqlEventsTx } from '../store/events-tx.js';
import { TX_ACCESS, guardMethods } from '../store/tx-access.js';
import { isStorableVersion } from '../bounds/ranges.js';

interface WorkflowDefRow {
  definition: WorkflowDef;
  version: number;
  create_time: number;
  update_time: number;
}
interface TaskDefRow {
  name: string;
  definition: TaskDef;
  create_time: number;
  update_time: number;
}

const workflowDef = (r: WorkflowDefRow): StoredWorkflowDef =>
  workflowDefFromColumns(r.definition, r.version, r.create_time, r.update_time);
const taskDef = (r: TaskDefRow): StoredTaskDef =>
  taskDefFromColumns(r.definition, r.create_time, r.update_time);

/** The database's settings a node reads when it starts (`store_settings`). */
export interface StoreSettings {
  shape: TaskRecordShape;
  latestByName: LatestByNameMode;
  runRows: RunRowsMode;
}

/**
 * The PostgreSQL `Tx`: inside `transaction` every query runs on the transaction's client;
 * inside `read` on the pool (autocommit, each statement sees the latest commit). JSON goes in
 * as text cast to jsonb and comes back parsed. The run lock and what is read with it are in
 * `run-lock.ts`, the worker queues in `queue.ts`: the classes this one extends.
 */
export class PgTx extends PgRunLockTx implements Tx {
  constructor(
    q: Query,
    state: TxState,
    /** How rows are written: the database's settings, read when the store started. */
    private readonly records: StoreSettings,
    runDefinitions: RunDefinitionCache,
    /** Queue names to NOTIFY once committed (absent in `read`). */
    private readonly notified?: Set<string>,
    writes?: WriteBehind,
    private readonly taskDefCache?: TaskDefCache,
    locks?: MemberLocks,
  ) {
    super(q, state, runDefinitions, records.latestByName, writes, locks);
    this.events = new SqlEventsTx(
      {
        rows: async <R>(sql: string, params: readonly unknown[]) => (await q(sql, params)).rows as R[],
        exec: async (sql: string, params: readonly unknown[]) => (await q(sql, params)).rowCount ?? 0,
      },
      state,
    );
  }

  readonly events: SqlEventsTx;

  // --- workflow definitions

  async getWorkflowDef(name: string, version?: number): Promise<StoredWorkflowDef | undefined> {
    if (version !== undefined && !isStorableVersion(version)) return undefined;
    const { rows } =
      version === undefined
        ? await this.q<WorkflowDefRow & DefsVersionColumn>(SQL.getLatestWorkflowDef, [name])
        : await this.q<WorkflowDefRow & DefsVersionColumn>(SQL.getWorkflowDef, [name, version]);
    // A start reads its tasks' definitions next: from the cache, while the counter holds.
    if (rows[0]) this.sawDefsVersion(rows[0].defs_version);
    return rows[0] && workflowDef(rows[0]);
  }

  async listWorkflowDefs(): Promise<StoredWorkflowDef[]> {
    return (await this.q<WorkflowDefRow>(SQL.listWorkflowDefs)).rows.map(workflowDef);
  }

  async latestWorkflowVersion(name: string): Promise<number | undefined> {
    const { rows } = await this.q<{ v: number | null }>(SQL.latestWorkflowVersion, [name]);
    return rows[0]?.v ?? undefined;
  }

  async insertWorkflowDef(def: StoredWorkflowDef): Promise<boolean> {
    const { rowCount } = await this.q(SQL.insertWorkflowDef, workflowDefParams(def));
    return rowCount === 1;
  }

  async upsertWorkflowDef(def: StoredWorkflowDef): Promise<void> {
    await this.q(SQL.upsertWorkflowDef, workflowDefParams(def));
  }

  async deleteWorkflowDef(name: string, version: number): Promise<boolean> {
    if (!isStorableVersion(version)) return false;
    return ((await this.q(SQL.deleteWorkflowDef, [name, version])).rowCount ?? 0) > 0;
  }

  // --- task definitions

  async getTaskDef(name: string): Promise<StoredTaskDef | undefined> {
    const { rows } = await this.q<TaskDefRow>(SQL.getTaskDef, [name]);
    return rows[0] && taskDef(rows[0]);
  }

  async getTaskDefs(names: readonly string[]): Promise<Map<string, StoredTaskDef>> {
    if (names.length === 0) return new Map();
    const version = this.defsVersion;
    if (version === undefined || !this.taskDefCache) return this.readTaskDefs(uniqueSorted(names));
    const { found, missing } = this.taskDefCache.lookup(version, uniqueSorted(names));
    if (missing.length === 0) return found;
    const read = await this.readTaskDefs(missing);
    this.taskDefCache.remember(version, missing, read);
    for (const [name, def] of read) found.set(name, def);
    return found;
  }

  private async readTaskDefs(names: readonly string[]): Promise<Map<string, StoredTaskDef>> {
    const out = new Map<string, StoredTaskDef>();
    const { rows } = await this.q<TaskDefRow>(SQL.getTaskDefs, [names]);
    for (const row of rows) out.set(row.name, taskDef(row));
    return out;
  }

  async listTaskDefs(): Promise<StoredTaskDef[]> {
    return (await this.q<TaskDefRow>(SQL.listTaskDefs)).rows.map(taskDef);
  }

  async upsertTaskDef(def: TaskDef & { createTime: number; updateTime: number }): Promise<void> {
    this.changedTaskDefs = true;
    this.defsVersion = undefined;
    await this.q(SQL.upsertTaskDef, [
      def.name,
      JSON.stringify(definitionColumn(def)),
      def.createTime,
      def.updateTime,
    ]);
  }

  async deleteTaskDef(name: string): Promise<boolean> {
    this.changedTaskDefs = true;
    this.defsVersion = undefined;
    return ((await this.q(SQL.deleteTaskDef, [name])).rowCount ?? 0) > 0;
  }

  // --- queues

  async ensureQueues(queueNames: readonly string[], now: number): Promise<void> {
    if (queueNames.length === 0) return;
    await this.q(SQL.ensureQueues, [uniqueSorted(queueNames), now]);
  }

  async listQueues(): Promise<string[]> {
    return (await this.q<{ queue_name: string }>(SQL.listQueues)).rows.map((r) => r.queue_name);
  }

  // --- runs: `getRun`, `lockRun` and `getTaskLockingRun` in `run-lock.ts`

  async insertRun(r: RunRecord): Promise<void> {
    const definition = JSON.stringify(r.workflowDefinition);
    const compact = this.records.runRows === 'compact';
    await this.q(compact ? SQL.insertCompactRun : SQL.insertRun, [
      r.workflowId,
      r.workflowName,
      r.workflowVersion,
      r.status,
      r.correlationId ?? null,
      r.priority,
      r.parentWorkflowId ?? null,
      r.idempotencyKey ?? null,
      r.createTime,
      r.updateTime,
      r.endTime,
      runRecordJson(r, this.records.runRows),
      definition,
      runSearchText(r),
      ...(compact ? [definitionDigest(definition)] : []),
    ]);
    this.names.learnNewRun(r.workflowId);
  }

  async updateRun(r: RunRecord): Promise<void> {
    await this.write(SQL.updateRun, [
      r.workflowId,
      r.status,
      r.correlationId ?? null,
      r.priority,
      r.parentWorkflowId ?? null,
      r.idempotencyKey ?? null,
      r.updateTime,
      r.endTime,
      runRecordJson(r, this.records.runRows),
      searchTextOnUpdate(r) ?? null,
    ]);
  }

  async countRunsOfVersion(name: string, version: number): Promise<number> {
    if (!isStorableVersion(version)) return 0;
    const { rows } = await this.q<{ n: number }>(SQL.countRunsOfVersion, [name, version]);
    return rows[0]?.n ?? 0;
  }

  async searchRuns(query: RunQuery): Promise<{ totalHits: number; results: RunRecord[] }> {
    const { totalHits, rows } = await searchRuns(this.q, query);
    return { totalHits, results: await this.runsOf(rows) };
  }

  async runsByCorrelationId(
    name: string,
    correlationId: string,
    includeClosed: boolean,
  ): Promise<RunRecord[]> {
    const { rows } = includeClosed
      ? await this.q<RunRow>(SQL.runsByCorrelation, [correlationId, name])
      : await this.q<RunRow>(SQL.openRunsByCorrelation, [correlationId, name, [...OPEN_RUN_STATUSES]]);
    return this.runsOf(rows);
  }

  async searchTasks(query: TaskQuery): Promise<{ totalHits: number; results: TaskRecord[] }> {
    return searchTasks(this.q, query);
  }

  // --- the archive (statements in archive.ts)

  async claimRunsToArchive(claim: ArchiveClaim): Promise<string[]> {
    return archive.claimRunsToArchive(this.q, claim);
  }

  async getRunLogs(workflowId: string): Promise<TaskLog[]> {
    return archive.getRunLogs(this.q, workflowId);
  }

  async deleteRunRows(workflowId: string): Promise<void> {
    await archive.deleteRunRows(this.q, workflowId);
    this.names.forget(workflowId);
  }

  async deleteRunTraces(workflowId: string): Promise<void> {
    await archive.deleteRunTraces(this.q, workflowId);
  }

  async pruneRunDefinitions(page: DefinitionPruning): Promise<DefinitionPrunePage> {
    return pruneRunDefinitions(this.q, page);
  }

  async insertArchivedRun(row: ArchivedRun): Promise<void> {
    await archive.insertArchivedRun(this.q, row);
  }

  async getArchivedRun(workflowId: string): Promise<ArchivedRun | undefined> {
    return archive.getArchivedRun(this.q, workflowId);
  }

  async searchArchivedRuns(query: RunQuery): Promise<{ totalHits: number; results: ArchivedRun[] }> {
    return searchArchivedRuns(this.q, query);
  }

  async archivedRunsByCorrelationId(name: string, correlationId: string): Promise<ArchivedRun[]> {
    return archive.archivedRunsByCorrelationId(this.q, name, correlationId);
  }

  async updateArchivedRunLinks(workflowId: string, links: RunLinks): Promise<void> {
    await archive.updateArchivedRunLinks(this.q, workflowId, links);
  }

  async deleteArchivedRun(workflowId: string): Promise<boolean> {
    return archive.deleteArchivedRun(this.q, workflowId);
  }

  // --- tasks: `getTasks` and `getDecideTasks` in `run-lock.ts`

  async insertTasks(tasks: readonly TaskRecord[]): Promise<void> {
    if (tasks.length === 0) return;
    await this.write(SQL.insertTasks, [
      taskRowsJson(tasks, this.records.shape),
      ...latestByNameParams(await this.latestRowsFor(tasks)),
    ]);
  }

  async updateTasks(tasks: readonly TaskRecord[]): Promise<void> {
    if (tasks.length === 0) return;
    // Last record per taskId wins (one UPDATE … FROM cannot apply two rows to one target).
    const byId = new Map(tasks.map((t) => [t.taskId, t]));
    const latest = [...byId.values()];
    await this.write(SQL.updateTasks, [
      taskRowsJson(latest, this.records.shape),
      ...latestByNameParams(await this.latestRowsFor(latest)),
      byId.size,
      [...byId.keys()],
    ]);
  }

  async updateOpenTasks(tasks: readonly TaskRecord[]): Promise<string[]> {
    if (tasks.length === 0) return [];
    const byId = new Map(tasks.map((t) => [t.taskId, t]));
    const json = taskRowsJson([...byId.values()], this.records.shape);
    // A group commit's member assumes every task is still open and defers the write to COMMIT,
    // where it fails the batch if one is not: its members then run again alone and take the
    // path below. A task ends between its claim and this write only in a race with a cancel or
    // a timeout, and the write no longer takes a round trip of its own between the claim and COMMIT.
    if (this.locks !== undefined && this.writes !== undefined) {
      await this.write(SQL.updateOpenTasksExpected, [json, [...byId.keys()], byId.size]);
      return [...byId.keys()];
    }
    // Under READ COMMITTED the WHERE is re-checked on the newest row version after any lock
    // wait, so a task ended by a concurrent commit is skipped, not overwritten.
    const { rows } = await this.q<{ task_id: string }>(SQL.updateOpenTasks, [json, [...byId.keys()]]);
    return rows.map((r) => r.task_id);
  }

  async getTask(taskId: string): Promise<TaskRecord | undefined> {
    const { rows } = await this.q<PgTaskRow>(SQL.getTask, [taskId]);
    const row = rows[0];
    return row ? taskFromPgRow(row) : undefined;
  }

  async getRunTasks(workflowId: string): Promise<TaskRecord[]> {
    const tasks = (await this.q<PgTaskRow>(SQL.getRunTasks, [workflowId])).rows.map(taskFromPgRow);
    if (this.state.writable) this.names.learnAllTasks(workflowId, tasks);
    return tasks;
  }

  async appendTaskLogs(logs: readonly TaskLog[]): Promise<void> {
    if (logs.length === 0) return;
    await this.write(SQL.appendTaskLogs, [
      logs.map((l) => l.taskId),
      logs.map((l) => l.log),
      logs.map((l) => l.createdTime),
    ]);
  }

  async getTaskLogs(taskId: string): Promise<TaskLog[]> {
    const { rows } = await this.q<{ log: string; created_time: number }>(SQL.getTaskLogs, [taskId]);
    return rows.map((r) => ({ taskId, log: r.log, createdTime: r.created_time }));
  }

  // --- worker queue messages: the rest in `queue.ts`

  /** Collected here; the store sends one `pg_notify` just before COMMIT (nothing on rollback). */
  async notifyQueues(queueNames: readonly string[]): Promise<void> {
    for (const name of queueNames) this.notified?.add(name);
    return Promise.resolve();
  }

  // --- hand-out limits

  async lockTaskLimit(taskType: string): Promise<TaskLimitState> {
    this.locks?.claim(`limit:${taskType}`);
    return lockTaskLimit(this.q, taskType);
  }

  async setTaskRateWindow(taskType: string, windowStart: number, windowCount: number): Promise<void> {
    await setTaskRateWindow(this.q, taskType, windowStart, windowCount);
  }

  async deferMessages(taskIds: readonly string[], visibleAt: number): Promise<void> {
    if (taskIds.length === 0) return;
    await deferMessages(this.q, uniqueSorted(taskIds), visibleAt);
  }

  // --- worker liveness

  async recordPolls(polls: readonly PollRecord[]): Promise<void> {
    if (polls.length === 0) return;
    const rows = latestPolls(polls);
    await this.q(SQL.recordPolls, [
      rows.map((p) => p.queueName),
      rows.map((p) => p.workerId),
      rows.map((p) => p.taskType),
      rows.map((p) => p.domain ?? null),
      rows.map((p) => p.now),
    ]);
  }

  async pollData(taskType?: string): Promise<PollData[]> {
    const { rows } =
      taskType === undefined
        ? await this.q<PollRow>(SQL.allPollData)
        : await this.q<PollRow>(SQL.pollData, [taskType]);
    return rows.map(pollFromRow);
  }

  // --- run mailboxes and idempotent starts (`mailbox.ts`)
  appendRunMessage(message: WorkflowMessage): Promise<void> {
    return mailbox.appendRunMessage(this.q, message);
  }
  getRunMessages(workflowId: string, limit: number): Promise<WorkflowMessage[]> {
    return mailbox.getRunMessages(this.q, workflowId, limit);
  }
  deleteRunMessages(workflowId: string, messageIds: readonly string[]): Promise<void> {
    return mailbox.deleteRunMessages(this.q, workflowId, messageIds);
  }
  claimIdempotencyKey(
    name: string,
    key: string,
    workflowId: string,
    now: number,
  ): Promise<string | undefined> {
    // In a group commit, one member per key: the key's row lock would not keep two apart.
    this.locks?.claim(`idempotency:${name}:${key}`);
    return mailbox.claimIdempotencyKey(this.q, name, key, workflowId, now);
  }

  // --- secrets and the service registry
  putSecret(s: StoredSecret) {
    return ig.putSecret(this.q, s);
  }
  getSecrets(names: readonly string[]) {
    return ig.getSecrets(this.q, names);
  }
  listSecrets() {
    return ig.listSecrets(this.q);
  }
  deleteSecret(name: string) {
    return ig.deleteSecret(this.q, name);
  }
  putService(s: StoredService) {
    return ig.putService(this.q, s);
  }
  getService(name: string) {
    return ig.getService(this.q, name);
  }
  listServices() {
    return ig.listServices(this.q);
  }
  deleteService(name: string) {
    return ig.deleteService(this.q, name);
  }

  // --- authentication records and operator actions (`auth.ts`)

  async getAuthRecord(kind: AuthRecordKind, id: string): Promise<AuthRecord | undefined> {
    return auth.getAuthRecord(this.q, kind, id);
  }

  async listAuthRecords(kind: AuthRecordKind): Promise<AuthRecord[]> {
    return auth.listAuthRecords(this.q, kind);
  }

  async insertAuthRecord(r: AuthRecord): Promise<boolean> {
    return auth.insertAuthRecord(this.q, r);
  }

  async updateAuthRecord(kind: AuthRecordKind, id: string, doc: JsonObject, now: number): Promise<boolean> {
    return auth.updateAuthRecord(this.q, kind, id, doc, now);
  }

  async deleteAuthRecord(kind: AuthRecordKind, id: string): Promise<boolean> {
    return auth.deleteAuthRecord(this.q, kind, id);
  }

  async appendRunAction(a: RunAction): Promise<void> {
    await auth.appendRunAction(this.q, a);
  }

  async getRunActions(workflowId: string): Promise<RunAction[]> {
    return auth.getRunActions(this.q, workflowId);
  }
}

// Every port method checks its transaction first (refused after it ended, writes refused in read()).
guardMethods(PgTx, TX_ACCESS);

function workflowDefParams(def: StoredWorkflowDef): unknown[] {
  return [def.name, def.version, JSON.stringify(definitionColumn(def)), def.createTime, def.updateTime];
}
