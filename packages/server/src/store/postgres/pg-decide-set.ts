import type { TaskRecord } from '@baton/protocol';

import { latestByNameRows, PG_TO_DECIDE } from '../decide-set.js';
import type { Query, Sql } from './pg-sql.js';

/** The decide set on PostgreSQL (see ../decide-set.ts and ARCHITECTURE.md "The decide set"). */

const UPSERT_LATEST: Sql = {
  name: 'baton_upsert_task_latest',
  text: `INSERT INTO task_latest (workflow_id, name, seq, task_id)
    SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[])
    ON CONFLICT (workflow_id, name) DO UPDATE SET seq = excluded.seq, task_id = excluded.task_id
    WHERE excluded.seq >= task_latest.seq`,
};

// Two index scans: the partial index `tasks_to_decide` and `task_latest`'s primary key.
const DECIDE_TASKS: Sql = {
  name: 'baton_decide_tasks',
  text: `SELECT record FROM tasks WHERE task_id IN (
      SELECT task_id FROM tasks WHERE workflow_id = $1 AND ${PG_TO_DECIDE}
      UNION
      SELECT task_id FROM task_latest WHERE workflow_id = $1)
    ORDER BY seq, task_id`,
};

/**
 * Keeps `task_latest` current for tasks a decision inserted or updated (one statement per
 * batch). `updateOpenTasks` does not call it: see ARCHITECTURE.md "The decide set".
 */
export async function recordLatestByName(q: Query, tasks: readonly TaskRecord[]): Promise<void> {
  const rows = latestByNameRows(tasks);
  if (rows.length === 0) return;
  await q(UPSERT_LATEST, [
    rows.map((r) => r.workflowId),
    rows.map((r) => r.name),
    rows.map((r) => r.seq),
    rows.map((r) => r.taskId),
  ]);
}

export async function decideTasks(q: Query, workflowId: string): Promise<TaskRecord[]> {
  return (await q<{ record: TaskRecord }>(DECIDE_TASKS, [workflowId])).rows.map((r) => r.record);
}
