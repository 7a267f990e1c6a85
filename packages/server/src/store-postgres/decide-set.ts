import type { TaskRecord } from '@baton/protocol';

import { latestByNameRows, PG_TO_DECIDE } from '../store/decide-set.js';
import type { Query, Sql } from './sql.js';
import { type PgTaskRow, TASK_COLUMNS, taskFromPgRow } from './task-rows.js';

/** The decide set on PostgreSQL (see ../decide-set.ts and ARCHITECTURE.md "The decide set"). */

// Two index scans: the partial index `tasks_to_decide` and `task_latest`'s primary key.
export const DECIDE_TASKS: Sql = {
  name: 'baton_decide_tasks',
  text: `SELECT ${TASK_COLUMNS} FROM tasks WHERE task_id IN (
      SELECT task_id FROM tasks WHERE workflow_id = $1 AND ${PG_TO_DECIDE}
      UNION
      SELECT task_id FROM task_latest WHERE workflow_id = $1)
    ORDER BY seq, task_id`,
};

/**
 * The parameters ($2…$5) that keep `task_latest` current for tasks a decision inserted or
 * updated, in the same statement (sql.ts `insertTasks`, `updateTasks`). `updateOpenTasks`
 * does not touch it: see ARCHITECTURE.md "The decide set".
 */
export function latestByNameParams(tasks: readonly TaskRecord[]): [string[], string[], number[], string[]] {
  const rows = latestByNameRows(tasks);
  return [
    rows.map((r) => r.workflowId),
    rows.map((r) => r.name),
    rows.map((r) => r.seq),
    rows.map((r) => r.taskId),
  ];
}

export async function decideTasks(q: Query, workflowId: string): Promise<TaskRecord[]> {
  return (await q<PgTaskRow>(DECIDE_TASKS, [workflowId])).rows.map(taskFromPgRow);
}
