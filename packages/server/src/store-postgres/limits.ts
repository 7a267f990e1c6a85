import type { TaskLimitState } from '../store/store.js';
import type { Query } from './sql.js';
import { storableTime } from '../bounds/time.js';

/** Hand-out limit statements of the PostgreSQL store (`PgTx` calls them). */

const named = (name: string, text: string) => ({ name: `baton_${name}`, text });

const SQL = {
  // The upsert takes the row lock (ON CONFLICT DO UPDATE locks the existing row); a second
  // hand-out of the same type waits here until the first commits.
  lock: named(
    'lock_task_limit',
    `INSERT INTO task_limits (task_type, window_start, window_count) VALUES ($1, 0, 0)
     ON CONFLICT (task_type) DO UPDATE SET task_type = EXCLUDED.task_type
     RETURNING window_start, window_count`,
  ),
  // A separate statement on purpose: under READ COMMITTED its snapshot is taken after the lock
  // above was granted, so it sees the hand-outs the previous holder committed.
  inProgress: named(
    'count_in_progress',
    "SELECT count(*)::int AS n FROM tasks WHERE task_type = $1 AND status = 'IN_PROGRESS'",
  ),
  setWindow: named(
    'set_task_rate_window',
    'UPDATE task_limits SET window_start = $2, window_count = $3 WHERE task_type = $1',
  ),
  defer: named(
    'defer_messages',
    `UPDATE queue_messages SET visible_at = $2, locked_until = NULL, lock_token = NULL, worker_id = NULL,
       delivery_count = greatest(delivery_count - 1, 0)
     WHERE task_id = ANY($1::text[])`,
  ),
} as const;

export async function lockTaskLimit(q: Query, taskType: string): Promise<TaskLimitState> {
  const { rows } = await q<{ window_start: string | number; window_count: number }>(SQL.lock, [taskType]);
  const count = await q<{ n: number }>(SQL.inProgress, [taskType]);
  return {
    inProgress: count.rows[0]?.n ?? 0,
    windowStart: Number(rows[0]?.window_start ?? 0),
    windowCount: rows[0]?.window_count ?? 0,
  };
}

export async function setTaskRateWindow(
  q: Query,
  taskType: string,
  windowStart: number,
  windowCount: number,
): Promise<void> {
  await q(SQL.setWindow, [taskType, windowStart, windowCount]);
}

export async function deferMessages(q: Query, taskIds: readonly string[], visibleAt: number): Promise<void> {
  await q(SQL.defer, [taskIds, storableTime(visibleAt)]);
}
