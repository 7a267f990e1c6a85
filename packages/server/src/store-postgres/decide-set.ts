import { type LatestByNameRow, PG_TO_DECIDE } from '../store/decide-set.js';
import type { Query, Sql } from './sql.js';
import { type PgTaskRow, TASK_COLUMNS } from './task-rows.js';

/** The decide set on PostgreSQL (see ../decide-set.ts and ARCHITECTURE.md "The decide set"). */

// A run without `task_latest` rows (unnamed, latest-by-name.ts: no name repeats) answers every
// task it has, straight from `tasks_workflow_seq`. A run with them (by name): the partial index
// `tasks_to_decide` and `task_latest`'s primary key, the records then read by primary key. Each
// branch is behind an EXISTS that does not depend on a row, which PostgreSQL evaluates once, as a
// one-time filter, so only one branch reads anything; `by_name` says which it was.
export const DECIDE_TASKS: Sql = {
  name: 'baton_decide_tasks',
  text: `SELECT ${TASK_COLUMNS}, false AS by_name FROM tasks
    WHERE workflow_id = $1 AND NOT EXISTS (SELECT 1 FROM task_latest WHERE workflow_id = $1)
    UNION ALL
    SELECT ${TASK_COLUMNS}, true AS by_name FROM tasks
    WHERE EXISTS (SELECT 1 FROM task_latest WHERE workflow_id = $1) AND task_id IN (
      SELECT task_id FROM tasks WHERE workflow_id = $1 AND ${PG_TO_DECIDE}
      UNION
      SELECT task_id FROM task_latest WHERE workflow_id = $1)
    ORDER BY seq, task_id`,
};

/** A decide set's rows, with whether their run has `task_latest` rows. */
export type DecideSetRow = PgTaskRow & { by_name: boolean };

/** Whether a run has `task_latest` rows, for a run whose decide set came back empty. */
export const RUN_HAS_LATEST: Sql = {
  name: 'baton_run_has_latest',
  text: 'SELECT EXISTS (SELECT 1 FROM task_latest WHERE workflow_id = $1) AS by_name',
};

/** The parameters ($2…$5) that upsert `task_latest` rows (sql.ts `insertTasks`, `updateTasks`). */
export function latestByNameParams(
  rows: readonly LatestByNameRow[],
): [string[], string[], number[], string[]] {
  return [
    rows.map((r) => r.workflowId),
    rows.map((r) => r.name),
    rows.map((r) => r.seq),
    rows.map((r) => r.taskId),
  ];
}

export async function decideTasks(q: Query, workflowId: string): Promise<DecideSetRow[]> {
  return (await q<DecideSetRow>(DECIDE_TASKS, [workflowId])).rows;
}
