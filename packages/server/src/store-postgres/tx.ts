import type pg from 'pg';
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
  inRequestedOrder,
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
import {
  DECIDE_TASKS,
  type DecideSetRow,
  RUN_HAS_LATEST,
  decideTasks,
  latestByNameParams,
} from './decide-set.js';
import { LatestByName, type LatestByNameMode } from './latest-by-name.js';
import type { LatestByNameRow } from '../store/decide-set.js';
import * as auth from './auth.js';
import { deferMessages, lockTaskLimit, setTaskRateWindow } from './limits.js';
import { type Query, SQL } from './sql.js';
import { type ClaimedRow, PgQueueTx } from './queue.js';
import { type TaskRecordShape, taskRowsJson } from './record-shape.js';
import { type PgTaskRow, taskFromKeptPgRow, taskFromPgColumns, taskFromPgRow } from './task-rows.js';
import type { TaskDefCache } from './task-def-cache.js';
import type { WriteBehind } from './write-behind.js';
import { type RunDefinitionCache, definitionDigest } from './run-definitions.js';
import { type RunRow, type RunRowsMode, runFromPgRow, runRecordJson } from './run-rows.js';
import { LockedElsewhere, type MemberLocks } from './group-commit.js';
import { SqlEventsTx } from '../store/events-tx.js';
import { TX_ACCESS, guardMethods } from '../store/tx-access.js';
import { isStorableVersion } from '../bounds/ranges.js';

interface WorkflowDefRow {
  definition: WorkflowDef;
  version: number;
  create_time: number;
  update_time: number;
}
/** The task definitions' change counter, read with another row (null: never, the table has its row). */
interface DefsVersionColumn {
  defs_version: number | null;
}
interface TaskDefRow {
  name: string;
  definition: TaskDef;
  create_time: number;
  update_time: number;
}
/** A task read back whole (task-rows.ts), with its id for putting reads in order. */
interface TaskRow {
  task_id: string;
  task: TaskRecord;
}
const taskRow = (r: PgTaskRow): TaskRow => ({ task_id: r.task_id, task: taskFromPgRow(r) });

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
 * as text cast to jsonb and comes back parsed.
 */
export class PgTx extends PgQueueTx implements Tx {
  constructor(
    q: Query,
    state: TxState,
    /** How rows are written: the database's settings, read when the store started. */
    private readonly records: StoreSettings,
    /** The shared run definitions this node has read (run-definitions.ts). */
    private readonly runDefinitions: RunDefinitionCache,
    /** Queue names to NOTIFY once committed (absent in `read`). */
    private readonly notified?: Set<string>,
    writes?: WriteBehind,
    private readonly taskDefCache?: TaskDefCache,
    /** A group commit's member: what it locks, so that no other member locks it too (group-commit.ts). */
    private readonly locks?: MemberLocks,
  ) {
    super(q, state, writes);
    this.names = new LatestByName(records.latestByName);
    this.events = new SqlEventsTx(
      {
        rows: async <R>(sql: string, params: readonly unknown[]) => (await q(sql, params)).rows as R[],
        exec: async (sql: string, params: readonly unknown[]) => (await q(sql, params)).rowCount ?? 0,
      },
      state,
    );
  }

  readonly events: SqlEventsTx;

  /** The task definitions' change counter read with the run lock; unset once this transaction changes one. */
  private defsVersion: number | undefined;
  private changedTaskDefs = false;
  /** The run locked by getTaskLockingRun, good until another statement is sent or queued. */
  private locked: { workflowId: string; at: number; run: RunRecord | undefined } | undefined;
  /** The decide set read with the last run lock, good until another statement is sent or queued. */
  private prefetched: { workflowId: string; at: number; tasks: TaskRecord[] } | undefined;
  /** What this transaction knows of its runs' names, for the `task_latest` rows its writes keep. */
  private readonly names: LatestByName;
  /** The tasks of the messages the last claim took (`ids`: all of them, `rows`: those that still exist), good as `prefetched` is. */
  private claimedTasks: { at: number; ids: Set<string>; rows: TaskRow[] } | undefined;

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

  // --- runs

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

  async getRun(workflowId: string): Promise<RunRecord | undefined> {
    const { rows } = await this.q<RunRow>(SQL.getRun, [workflowId]);
    return (await this.runsOf(rows))[0];
  }

  /** `SELECT … FOR UPDATE`: a second transaction locking the same run waits until this one ends. */
  async lockRun(workflowId: string): Promise<RunRecord | undefined> {
    // Outside a transaction a row lock would end with the statement: read plainly.
    if (!this.state.writable) return this.getRun(workflowId);
    // Locked by getTaskLockingRun with nothing sent since: the lock is held, the row unchanged.
    const locked = this.locked;
    this.locked = undefined;
    if (locked?.workflowId === workflowId && locked.at === this.writes?.statements) return locked.run;
    this.locks?.claim(`run:${workflowId}`);
    // The decide set goes in the same message, read once the lock is held: a decision asks for
    // it next (executor `handleIn`), and this saves that round trip.
    const skip = this.skipsLockedRuns;
    const [lock, decideSet] = this.writes
      ? await this.writes.queryMany([
          { sql: skip ? SQL.lockRunInBatch : SQL.lockRun, values: [workflowId] },
          { sql: DECIDE_TASKS, values: [workflowId] },
        ])
      : [await this.q(SQL.lockRun, [workflowId])];
    if (skip) await this.notLockedElsewhere(workflowId, lock);
    return await this.lockedRow(workflowId, lock, decideSet);
  }

  /**
   * Whether a run lock skips a run another transaction holds (group-commit.ts, `LockedElsewhere`):
   * for a group commit's member that has written nothing, so that leaving its batch takes nothing
   * back. One that has (a second run locked after writing for the first) waits for the lock, as
   * leaving would roll the whole batch back.
   */
  private get skipsLockedRuns(): boolean {
    return this.locks !== undefined && this.writes?.clean === true;
  }

  /**
   * For a lock statement that skipped locked rows and found none: a run that exists was skipped
   * because another transaction holds its lock (another node's, or one of this node's outside
   * the batch), and the member leaves its batch (`LockedElsewhere`). A run that does not exist
   * reads as missing, as it always has.
   */
  private async notLockedElsewhere(workflowId: string, lock: pg.QueryResult | undefined): Promise<void> {
    if ((lock?.rows.length ?? 0) > 0) return;
    const { rows } = await this.q<{ found: boolean }>(SQL.runExists, [workflowId]);
    if (rows[0]?.found === true) throw new LockedElsewhere(`run:${workflowId}`);
  }

  async getTaskLockingRun(taskId: string, workflowId: string): Promise<TaskRecord | undefined> {
    if (!this.state.writable || !this.writes) return this.getTask(taskId);
    this.locks?.claim(`run:${workflowId}`);
    // The run lock and the decide set in one message, read once the lock is held. The task is
    // nearly always in the decide set (it is open, or the latest of its name): then it is read
    // from there, as new as the run it is decided against, and a task of another run, an older
    // attempt or a task that does not exist costs one more round trip.
    const skip = this.skipsLockedRuns;
    const [lock, decideSet] = await this.writes.queryMany([
      { sql: skip ? SQL.lockRunInBatch : SQL.lockRun, values: [workflowId] },
      { sql: DECIDE_TASKS, values: [workflowId] },
    ]);
    if (skip) await this.notLockedElsewhere(workflowId, lock);
    const inSet = (decideSet?.rows as PgTaskRow[] | undefined)?.find((r) => r.task_id === taskId);
    // A fresh restore: the caller may change its task, and the decide set must stay as read.
    const task = inSet ? taskFromKeptPgRow(inSet) : await this.getTask(taskId);
    const locked = await this.lockedRow(workflowId, lock, decideSet);
    this.locked = { workflowId, at: this.writes.statements, run: locked };
    return task;
  }

  /** The run a lock statement answered, remembering the decide set read with it. */
  private async lockedRow(
    workflowId: string,
    lock: pg.QueryResult | undefined,
    decideSet: pg.QueryResult | undefined,
  ): Promise<RunRecord | undefined> {
    const row = lock?.rows[0] as (RunRow & DefsVersionColumn) | undefined;
    // First, as it may read a definition this node has not met: the decide set is kept as of
    // the statements sent so far.
    const locked = row && (await this.runsOf([row]))[0];
    if (row && decideSet && this.writes) {
      const rows = decideSet.rows as DecideSetRow[];
      const tasks = rows.map(taskFromKeptPgRow);
      this.prefetched = { workflowId, at: this.writes.statements, tasks };
      this.names.learnDecideSet(workflowId, tasks, rows[0]?.by_name);
    }
    if (!row) return undefined;
    this.sawDefsVersion(row.defs_version);
    return locked;
  }

  /**
   * Runs as read, each with its definition: from its row, or shared by digest, from this node's
   * cache or else read in one statement for all the digests it has not met.
   */
  private async runsOf(rows: readonly RunRow[]): Promise<RunRecord[]> {
    const definitionOf = await this.runDefinitions.resolve(
      rows,
      async (digests) =>
        (await this.q<{ digest: string; definition: WorkflowDef }>(SQL.runDefinitions, [digests])).rows,
    );
    return rows.map((r) => runFromPgRow(r, definitionOf(r)));
  }

  protected override claimedWith(rows: readonly ClaimedRow[]): void {
    if (!this.writes) return;
    const found: TaskRow[] = [];
    for (const r of rows) {
      const task = taskFromPgColumns({
        task_id: r.task_id,
        workflow_id: r.task_workflow_id,
        seq: r.task_seq,
        reference_task_name: r.task_ref_name,
        task_type: r.task_type,
        status: r.task_status,
        update_time: r.task_update_time,
        record: r.task_record,
        packed: r.task_packed,
      });
      if (task) found.push({ task_id: r.task_id, task });
    }
    this.claimedTasks = { at: this.writes.statements, ids: new Set(rows.map((r) => r.task_id)), rows: found };
    // As with a run lock: definitions read next come from the cache while the counter holds.
    if (rows[0]) this.sawDefsVersion(rows[0].defs_version);
  }

  /**
   * The task definitions' change counter, read with a statement of this transaction: the
   * definitions it reads next come from the node's cache at that value. Kept only while this
   * transaction has not changed a definition itself.
   */
  private sawDefsVersion(version: number | null): void {
    if (!this.changedTaskDefs) this.defsVersion = version ?? undefined;
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

  // --- tasks

  async insertTasks(tasks: readonly TaskRecord[]): Promise<void> {
    if (tasks.length === 0) return;
    await this.write(SQL.insertTasks, [
      taskRowsJson(tasks, this.records.shape),
      ...latestByNameParams(await this.latestRowsFor(tasks)),
    ]);
  }

  /** The `task_latest` rows a write of `tasks` keeps (latest-by-name.ts), learning their runs first. */
  private async latestRowsFor(tasks: readonly TaskRecord[]): Promise<LatestByNameRow[]> {
    for (const workflowId of this.names.unknownRuns(tasks)) {
      // No row came back to say whether the run has `task_latest` rows: ask on its own.
      if ((await this.readDecideSet(workflowId)).length === 0) {
        const { rows: has } = await this.q<{ by_name: boolean }>(RUN_HAS_LATEST, [workflowId]);
        this.names.learnDecideSet(workflowId, [], has[0]?.by_name === true);
      }
    }
    return this.names.rowsFor(tasks);
  }

  /** A run's decide set read on its own, remembered for the `task_latest` rows of later writes. */
  private async readDecideSet(workflowId: string): Promise<TaskRecord[]> {
    const rows = await decideTasks(this.q, workflowId);
    const tasks = rows.map(taskFromPgRow);
    if (this.state.writable) this.names.learnDecideSet(workflowId, tasks, rows[0]?.by_name);
    return tasks;
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

  async getTasks(taskIds: readonly string[]): Promise<TaskRecord[]> {
    if (taskIds.length === 0) return [];
    // A hand-out reads the tasks of what it has just claimed: the claim read them already.
    const claimed = this.claimedTasks;
    this.claimedTasks = undefined;
    if (claimed && claimed.at === this.writes?.statements && taskIds.every((id) => claimed.ids.has(id)))
      return inRequestedOrder(taskIds, claimed.rows, (r) => r.task);
    const { rows } = await this.q<PgTaskRow>(SQL.getTasks, [uniqueSorted(taskIds)]);
    return inRequestedOrder(taskIds, rows.map(taskRow), (r) => r.task);
  }

  async getRunTasks(workflowId: string): Promise<TaskRecord[]> {
    const tasks = (await this.q<PgTaskRow>(SQL.getRunTasks, [workflowId])).rows.map(taskFromPgRow);
    if (this.state.writable) this.names.learnAllTasks(workflowId, tasks);
    return tasks;
  }

  async getDecideTasks(workflowId: string): Promise<TaskRecord[]> {
    const prefetched = this.prefetched;
    this.prefetched = undefined;
    if (prefetched?.workflowId === workflowId && prefetched.at === this.writes?.statements)
      return prefetched.tasks;
    return this.readDecideSet(workflowId);
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

  async recordPoll(poll: PollRecord): Promise<void> {
    await this.q(SQL.recordPoll, [
      poll.queueName,
      poll.workerId,
      poll.taskType,
      poll.domain ?? null,
      poll.now,
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
