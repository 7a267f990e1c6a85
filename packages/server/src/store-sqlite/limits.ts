/* eslint-disable @typescript-eslint/require-await -- better-sqlite3 is synchronous; the port is async. */
import type { TaskLimitState } from '../store/store.js';
import type { SqliteConnection } from './connection.js';
import { list } from './sql.js';
import { storableTime } from '../bounds/time.js';

/** Hand-out limit statements of the SQLite store (`SqliteTx` calls them). */

export async function lockTaskLimit(c: SqliteConnection, taskType: string): Promise<TaskLimitState> {
  c.run(
    'INSERT INTO task_limits (task_type, window_start, window_count) VALUES (?, 0, 0) ON CONFLICT (task_type) DO NOTHING',
    taskType,
  );
  const row = c.get<{ window_start: number; window_count: number }>(
    'SELECT window_start, window_count FROM task_limits WHERE task_type = ?',
    taskType,
  );
  const count = c.get<{ n: number }>(
    "SELECT count(*) AS n FROM tasks WHERE task_type = ? AND status = 'IN_PROGRESS'",
    taskType,
  );
  return {
    inProgress: count?.n ?? 0,
    windowStart: row?.window_start ?? 0,
    windowCount: row?.window_count ?? 0,
  };
}

export async function setTaskRateWindow(
  c: SqliteConnection,
  taskType: string,
  windowStart: number,
  windowCount: number,
): Promise<void> {
  c.run(
    'UPDATE task_limits SET window_start = ?, window_count = ? WHERE task_type = ?',
    windowStart,
    windowCount,
    taskType,
  );
}

export async function deferMessages(
  c: SqliteConnection,
  taskIds: readonly string[],
  visibleAt: number,
): Promise<void> {
  if (taskIds.length === 0) return;
  c.run(
    `UPDATE queue_messages SET visible_at = ?, locked_until = NULL, lock_token = NULL, worker_id = NULL,
       delivery_count = max(delivery_count - 1, 0)
     WHERE task_id IN (SELECT value FROM json_each(?))`,
    storableTime(visibleAt),
    list(taskIds),
  );
}
