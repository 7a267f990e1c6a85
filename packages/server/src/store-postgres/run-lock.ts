import type pg from 'pg';
import type { RunRecord, TaskRecord, WorkflowDef } from '@baton/protocol';

import type { LatestByNameRow } from '../store/decide-set.js';
import { type TxState, inRequestedOrder, uniqueSorted } from '../store/sql-common.js';
import { DECIDE_TASKS, type DecideSetRow, RUN_HAS_LATEST, decideTasks } from './decide-set.js';
import { LockedElsewhere, type MemberLocks } from './group-commit.js';
import { LatestByName, type LatestByNameMode } from '../store/latest-by-name.js';
import { type ClaimedRow, PgQueueTx } from './queue.js';
import type { RunDefinitionCache } from './run-definitions.js';
import { type RunRow, runFromPgRow } from './run-rows.js';
import { type Query, SQL } from './sql.js';
import { type PgTaskRow, taskFromPgColumns, taskFromPgRow } from './task-rows.js';
import type { WriteBehind } from './write-behind.js';

/** The task definitions' change counter, read with another row (null: never, the table has its row). */
export interface DefsVersionColumn {
  defs_version: number | null;
}
/** A task read back whole (task-rows.ts), with its id for putting reads in order. */
interface TaskRow {
  task_id: string;
  task: TaskRecord;
}
const taskRow = (r: PgTaskRow): TaskRow => ({ task_id: r.task_id, task: taskFromPgRow(r) });

/**
 * The run section of the PostgreSQL `Tx` (`PgTx` extends this): the run lock, and what a lock or a
 * claim reads in the same message for the calls that come next: the decide set, the claimed
 * tasks and the task definitions' change counter. That read-ahead is state the lock, the claim
 * and the reads answered from it share, so they live in one class, apart from the definitions
 * and task writes of `tx.ts`, which only consult it.
 */
export abstract class PgRunLockTx extends PgQueueTx {
  constructor(
    q: Query,
    state: TxState,
    /** The shared run definitions this node has read (run-definitions.ts). */
    private readonly runDefinitions: RunDefinitionCache,
    /** Which `task_latest` rows task writes keep: the database's setting (latest-by-name.ts). */
    latestByName: LatestByNameMode,
    writes?: WriteBehind,
    /** A group commit's member: what it locks, so that no other member locks it too (group-commit.ts). */
    protected readonly locks?: MemberLocks,
  ) {
    super(q, state, writes);
    this.names = new LatestByName(latestByName);
  }

  /** The task definitions' change counter read with the run lock; unset once this transaction changes one. */
  protected defsVersion: number | undefined;
  protected changedTaskDefs = false;
  /** The run locked by getTaskLockingRun, good until another statement is sent or queued. */
  private locked: { workflowId: string; at: number; run: RunRecord | undefined } | undefined;
  /** The decide set read with the last run lock, good until another statement is sent or queued. */
  private prefetched: { workflowId: string; at: number; tasks: TaskRecord[] } | undefined;
  /** What this transaction knows of its runs' names, for the `task_latest` rows its writes keep. */
  protected readonly names: LatestByName;
  /** The tasks of the messages the last claim took (`ids`: all of them, `rows`: those that still exist), good as `prefetched` is. */
  private claimedTasks: { at: number; ids: Set<string>; rows: TaskRow[] } | undefined;

  abstract getTask(taskId: string): Promise<TaskRecord | undefined>;

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
    return (await this.getTasksLockingRun([taskId], workflowId))[0];
  }

  async getTasksLockingRun(
    taskIds: readonly string[],
    workflowId: string,
  ): Promise<Array<TaskRecord | undefined>> {
    if (!this.state.writable || !this.writes) return Promise.all(taskIds.map((id) => this.getTask(id)));
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
    const set = (decideSet?.rows ?? []) as PgTaskRow[];
    // A fresh restore: the caller may change its tasks, and the decide set must stay as read.
    const tasks = taskIds.map((id) => {
      const inSet = set.find((r) => r.task_id === id);
      return inSet && taskFromPgRow(inSet);
    });
    // Outside the set (another run's, an older attempt, none): one read, by id.
    const [only, ...more] = taskIds.filter((_, i) => tasks[i] === undefined);
    const outside =
      only === undefined
        ? []
        : more.length === 0
          ? [await this.getTask(only)]
          : await this.getTasks([only, ...more]);
    const found = new Map(outside.flatMap((t) => (t ? [[t.taskId, t] as const] : [])));
    const locked = await this.lockedRow(workflowId, lock, decideSet);
    this.locked = { workflowId, at: this.writes.statements, run: locked };
    return taskIds.map((id, i) => tasks[i] ?? found.get(id));
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
      const tasks = rows.map(taskFromPgRow);
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
  protected async runsOf(rows: readonly RunRow[]): Promise<RunRecord[]> {
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
  protected sawDefsVersion(version: number | null): void {
    if (!this.changedTaskDefs) this.defsVersion = version ?? undefined;
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

  async getDecideTasks(workflowId: string): Promise<TaskRecord[]> {
    const prefetched = this.prefetched;
    this.prefetched = undefined;
    if (prefetched?.workflowId === workflowId && prefetched.at === this.writes?.statements)
      return prefetched.tasks;
    return this.readDecideSet(workflowId);
  }

  /** The `task_latest` rows a write of `tasks` keeps (latest-by-name.ts), learning their runs first. */
  protected async latestRowsFor(tasks: readonly TaskRecord[]): Promise<LatestByNameRow[]> {
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
}
