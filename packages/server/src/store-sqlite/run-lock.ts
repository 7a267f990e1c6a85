/* eslint-disable @typescript-eslint/require-await -- better-sqlite3 is synchronous; the port is async. */
import type { RunRecord, TaskRecord } from '@baton/protocol';

import type { LatestByNameRow } from '../store/decide-set.js';
import { LatestByName, type LatestByNameMode } from '../store/latest-by-name.js';
import type { TxState } from '../store/sql-common.js';
import { taskFromRow } from '../store/task-record-storage.js';
import type { SqliteConnection } from './connection.js';
import { type DecideSetRow, decideSetByName, decideTaskRows } from './decide-set.js';
import { SqliteQueueTx } from './queue.js';
import { RUN_COLUMNS, type RunRow, run } from './sql.js';

/**
 * The run section of the SQLite `Tx` (`SqliteTx` extends this), as `run-lock.ts` is on
 * PostgreSQL: the run lock, the decide set read with it for the decision that asks next, and what
 * the transaction learns of its runs' names from those reads for the `task_latest` rows its
 * writes keep. They share the state a decision's reads keep between calls, so they live together.
 */
export abstract class SqliteRunLockTx extends SqliteQueueTx {
  constructor(
    c: SqliteConnection,
    state: TxState,
    /** Which `task_latest` rows task writes keep (store/latest-by-name.ts): the store's schema says. */
    latestByName: LatestByNameMode,
  ) {
    super(c, state);
    this.names = new LatestByName(latestByName);
  }

  /** The decide set `getTaskLockingRun` read, as stored, and the connection's write count then. */
  private prefetched: { workflowId: string; at: number; rows: DecideSetRow[] } | undefined;
  /** What this transaction knows of its runs' names, for the `task_latest` rows its writes keep. */
  protected readonly names: LatestByName;

  abstract getTask(taskId: string): Promise<TaskRecord | undefined>;

  async getRun(workflowId: string): Promise<RunRecord | undefined> {
    const row = this.c.get<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE workflow_id = ?`, workflowId);
    return row && run(row);
  }

  /** SQLite has one writer: the transaction's BEGIN IMMEDIATE already excludes every other writer. */
  async lockRun(workflowId: string): Promise<RunRecord | undefined> {
    return this.getRun(workflowId);
  }

  /** One task's case of `getTasksLockingRun`. */
  async getTaskLockingRun(taskId: string, workflowId: string): Promise<TaskRecord | undefined> {
    const [task] = await this.getTasksLockingRun([taskId], workflowId);
    return task;
  }

  /**
   * One writer at a time: there is no run lock to take first. Each task comes from its run's
   * decide set, which the decision reads next: the set is kept, as stored, for `getDecideTasks`,
   * good while nothing is written in between. The task is nearly always in it (it is open, or
   * the latest of its name); a task of another run or an older attempt is read by its id.
   */
  async getTasksLockingRun(
    taskIds: readonly string[],
    workflowId: string,
  ): Promise<Array<TaskRecord | undefined>> {
    if (!this.state.writable) return Promise.all(taskIds.map((id) => this.getTask(id)));
    const rows = decideTaskRows(this.c, workflowId);
    this.prefetched = { workflowId, at: this.c.writes, rows };
    return Promise.all(
      taskIds.map(async (id) => {
        const row = rows.find((r) => r.task_id === id);
        return row ? taskFromRow(row) : this.getTask(id);
      }),
    );
  }

  async getDecideTasks(workflowId: string): Promise<TaskRecord[]> {
    const prefetched = this.prefetched;
    this.prefetched = undefined;
    // Restored afresh: the caller may change its tasks, the task answered above among them.
    const rows =
      prefetched?.workflowId === workflowId && prefetched.at === this.c.writes
        ? prefetched.rows
        : decideTaskRows(this.c, workflowId);
    return this.learnDecideSet(workflowId, rows);
  }

  /** The `task_latest` rows a write of `tasks` keeps (store/latest-by-name.ts), learning their runs first. */
  protected latestRowsFor(tasks: readonly TaskRecord[]): LatestByNameRow[] {
    for (const workflowId of this.names.unknownRuns(tasks))
      this.learnDecideSet(workflowId, decideTaskRows(this.c, workflowId), true);
    return this.names.rowsFor(tasks);
  }

  /**
   * A decide set's tasks, restored from its rows, and remembered (what names the run has, and
   * whether it has `task_latest` rows) for the writes that follow. `ask`: find out whether it has
   * rows even when no row came back to say so.
   */
  private learnDecideSet(workflowId: string, rows: readonly DecideSetRow[], ask = false): TaskRecord[] {
    const tasks = rows.map(taskFromRow);
    if (this.state.writable)
      this.names.learnDecideSet(
        workflowId,
        tasks,
        rows.length > 0 || ask ? decideSetByName(this.c, workflowId, rows) : undefined,
      );
    return tasks;
  }
}
