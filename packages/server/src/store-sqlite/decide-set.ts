import { type LatestByNameRow, SQLITE_TO_DECIDE } from '../store/decide-set.js';
import { type StoredTaskRow, TASK_ROW_COLUMNS } from '../store/task-record-storage.js';
import type { SqliteConnection } from './connection.js';

/** The decide set on SQLite (see ../decide-set.ts and ARCHITECTURE.md "The decide set"). */

const UPSERT_LATEST = `INSERT INTO task_latest (workflow_id, name, seq, task_id) VALUES (?, ?, ?, ?)
  ON CONFLICT (workflow_id, name) DO UPDATE SET seq = excluded.seq, task_id = excluded.task_id
  WHERE excluded.seq > task_latest.seq
    OR (excluded.seq = task_latest.seq AND excluded.task_id <> task_latest.task_id)`;

/**
 * Upserts the `task_latest` rows a decision's task writes keep (store/latest-by-name.ts says
 * which: none for a run that has not repeated a name). `updateOpenTasks` writes none: see
 * ARCHITECTURE.md "The decide set".
 */
export function upsertLatestByName(c: SqliteConnection, rows: readonly LatestByNameRow[]): void {
  for (const row of rows) c.run(UPSERT_LATEST, row.workflowId, row.name, row.seq, row.taskId);
}

// A run without `task_latest` rows (unnamed, store/latest-by-name.ts: no name repeats) answers
// every task it has, one range of `tasks_workflow_seq`. A run with them (by name): the partial
// index `tasks_to_decide` and `task_latest`'s primary key, the records then read by primary key.
// Each branch is behind an EXISTS that does not depend on a row, which SQLite evaluates once, so
// only one branch reads anything; `by_name` says which it was. No ORDER BY: the index gives seq
// order but not the task id that breaks a tie, so SQLite would pass every row, blobs and all,
// through a sorter (a fifth of the statement's time for a run of 1,600 tasks); the rows are put
// in order after, where rows already in order cost one comparison each.
const DECIDE_TASKS = `SELECT ${TASK_ROW_COLUMNS}, 0 AS by_name FROM tasks INDEXED BY tasks_workflow_seq
    WHERE workflow_id = @workflowId AND NOT EXISTS (SELECT 1 FROM task_latest WHERE workflow_id = @workflowId)
  UNION ALL
  SELECT ${TASK_ROW_COLUMNS}, 1 AS by_name FROM tasks
    WHERE EXISTS (SELECT 1 FROM task_latest WHERE workflow_id = @workflowId) AND task_id IN (
      SELECT task_id FROM tasks WHERE workflow_id = @workflowId AND ${SQLITE_TO_DECIDE}
      UNION
      SELECT task_id FROM task_latest WHERE workflow_id = @workflowId)`;

/** A decide set's row: a task row, and whether its run has `task_latest` rows (1) or not (0). */
export type DecideSetRow = StoredTaskRow & { by_name: 0 | 1 };

/** Whether a run has `task_latest` rows, for a run whose decide set came back empty. */
const RUN_HAS_LATEST = 'SELECT EXISTS (SELECT 1 FROM task_latest WHERE workflow_id = ?) AS by_name';

/** A run's decide set as stored: restore each row with `taskFromRow` (as often as needed). */
export function decideTaskRows(c: SqliteConnection, workflowId: string): DecideSetRow[] {
  return c.all<DecideSetRow>(DECIDE_TASKS, { workflowId }).sort(bySeqThenId);
}

/** The decide set's order: by seq, then by task id (as SQLite's ORDER BY seq, task_id, for ASCII ids). */
function bySeqThenId(a: DecideSetRow, b: DecideSetRow): number {
  return a.seq - b.seq || (a.task_id < b.task_id ? -1 : a.task_id > b.task_id ? 1 : 0);
}

/**
 * Whether the run of a decide set's rows has `task_latest` rows: said by its rows, or asked on
 * its own when there are none.
 */
export function decideSetByName(
  c: SqliteConnection,
  workflowId: string,
  rows: readonly DecideSetRow[],
): boolean {
  const first = rows[0];
  if (first !== undefined) return first.by_name === 1;
  return c.get<{ by_name: number }>(RUN_HAS_LATEST, workflowId)?.by_name === 1;
}
