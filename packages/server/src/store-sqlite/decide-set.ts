import type { TaskRecord } from '@baton/protocol';

import { latestByNameRows, SQLITE_TO_DECIDE } from '../store/decide-set.js';
import { type StoredTaskRow, TASK_ROW_COLUMNS, taskFromRow } from '../store/task-record-storage.js';
import type { SqliteConnection } from './connection.js';

/** The decide set on SQLite (see ../decide-set.ts and ARCHITECTURE.md "The decide set"). */

const UPSERT_LATEST = `INSERT INTO task_latest (workflow_id, name, seq, task_id) VALUES (?, ?, ?, ?)
  ON CONFLICT (workflow_id, name) DO UPDATE SET seq = excluded.seq, task_id = excluded.task_id
  WHERE excluded.seq > task_latest.seq
    OR (excluded.seq = task_latest.seq AND excluded.task_id <> task_latest.task_id)`;

/**
 * Keeps `task_latest` current for tasks a decision inserted or updated. `updateOpenTasks` does
 * not call it: see ARCHITECTURE.md "The decide set".
 */
export function recordLatestByName(c: SqliteConnection, tasks: readonly TaskRecord[]): void {
  const rows = latestByNameRows(tasks);
  for (const row of rows) c.run(UPSERT_LATEST, row.workflowId, row.name, row.seq, row.taskId);
}

// Two index seeks: the partial index `tasks_to_decide` and `task_latest`'s primary key.
const DECIDE_TASKS = `SELECT ${TASK_ROW_COLUMNS} FROM tasks WHERE task_id IN (
    SELECT task_id FROM tasks WHERE workflow_id = ? AND ${SQLITE_TO_DECIDE}
    UNION
    SELECT task_id FROM task_latest WHERE workflow_id = ?)
  ORDER BY seq, task_id`;

/** A run's decide set as stored: restore each row with `taskFromRow` (as often as needed). */
export function decideTaskRows(c: SqliteConnection, workflowId: string): StoredTaskRow[] {
  return c.all<StoredTaskRow>(DECIDE_TASKS, workflowId, workflowId);
}

export function decideTasks(c: SqliteConnection, workflowId: string): TaskRecord[] {
  return decideTaskRows(c, workflowId).map(taskFromRow);
}
