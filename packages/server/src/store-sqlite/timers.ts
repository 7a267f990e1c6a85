import type {
  LockSweep,
  StoredQueueMessage,
  StoredTimer,
  TimerClaim,
  TimerFilter,
  TimerRecord,
} from '../store/store.js';
import { type QueueMessageRow, messageFromRow, uniqueSorted } from '../store/sql-common.js';
import type { ConditionWriter, TimerRow } from '../store/timer-rows.js';
import { checkTimerFilter, compareTimers, timerFromRow, timerWhere } from '../store/timer-rows.js';
import type { SqliteConnection } from './connection.js';
import { list } from './sql.js';
import { storableTime } from '../bounds/time.js';
import { copyWith } from '../copy-with.js';

/** Durable timers and dead-letter reads on SQLite; `SqliteTx` delegates here. */

export function armTimers(c: SqliteConnection, timers: readonly TimerRecord[], now: number): void {
  for (const t of timers) {
    c.run(
      `INSERT INTO timers (id, workflow_id, task_id, kind, fire_at, payload, claimed_until, create_time)
       VALUES (?, ?, ?, ?, ?, ?, NULL, ?)
       ON CONFLICT (id) DO UPDATE SET workflow_id = excluded.workflow_id, task_id = excluded.task_id,
         kind = excluded.kind, fire_at = excluded.fire_at, payload = excluded.payload, claimed_until = NULL`,
      t.timerId,
      t.workflowId,
      t.taskId ?? null,
      t.kind,
      storableTime(t.dueAt),
      JSON.stringify(t.payload),
      now,
    );
  }
}

const SQLITE_CONDITIONS: ConditionWriter = {
  equals(column, value, params) {
    params.push(value);
    return `${column} = ?`;
  },
  oneOf(column, values, params) {
    params.push(list(values));
    return `${column} IN (SELECT value FROM json_each(?))`;
  },
};

export function cancelTimers(c: SqliteConnection, filter: TimerFilter): number {
  checkTimerFilter('cancelTimers', filter);
  const w = timerWhere(filter, SQLITE_CONDITIONS);
  return c.run(`DELETE FROM timers WHERE ${w.sql}`, ...w.params).changes;
}

export function listTimers(c: SqliteConnection, filter: TimerFilter): StoredTimer[] {
  checkTimerFilter('listTimers', filter);
  const w = timerWhere(filter, SQLITE_CONDITIONS);
  return c
    .all<TimerRow>(`SELECT * FROM timers WHERE ${w.sql}`, ...w.params)
    .map(timerFromRow)
    .sort(compareTimers);
}

/** SQLite has one writer: select then lease inside the same IMMEDIATE transaction. */
export function claimDueTimers(c: SqliteConnection, claim: TimerClaim): StoredTimer[] {
  const rows = c.all<TimerRow>(
    `SELECT * FROM timers WHERE fire_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
     ORDER BY fire_at, id LIMIT ?`,
    claim.now,
    claim.now,
    Math.max(0, claim.limit),
  );
  if (rows.length === 0) return [];
  const until = claim.now + claim.leaseMs;
  c.run(
    'UPDATE timers SET claimed_until = ? WHERE id IN (SELECT value FROM json_each(?))',
    until,
    list(rows.map((r) => r.id)),
  );
  return rows.map((r) => copyWith(timerFromRow(r), { claimedUntil: until }));
}

export function deleteTimer(c: SqliteConnection, timerId: string): boolean {
  return c.run('DELETE FROM timers WHERE id = ?', timerId).changes > 0;
}

export function nextTimerDueAt(c: SqliteConnection): number | undefined {
  const due = c.get<{ v: number | null }>(
    'SELECT min(fire_at) AS v FROM timers WHERE claimed_until IS NULL',
  )?.v;
  const lease = c.get<{ v: number | null }>(
    'SELECT min(max(fire_at, claimed_until)) AS v FROM timers WHERE claimed_until IS NOT NULL',
  )?.v;
  const candidates = [due, lease].filter((v): v is number => typeof v === 'number');
  return candidates.length === 0 ? undefined : Math.min(...candidates);
}

export function deadLetteredMessages(
  c: SqliteConnection,
  queueNames: readonly string[],
): StoredQueueMessage[] {
  if (queueNames.length === 0) return [];
  return c
    .all<QueueMessageRow>(
      `SELECT * FROM queue_messages WHERE dead_lettered = 1 AND queue_name IN (SELECT value FROM json_each(?))
       ORDER BY created_at, task_id`,
      list(uniqueSorted(queueNames)),
    )
    .map(messageFromRow);
}

/** Lapsed locks, earliest first, leased to the sweeper (one writer: select then update). */
export function claimLapsedLocks(c: SqliteConnection, sweep: LockSweep): StoredQueueMessage[] {
  const rows = c.all<QueueMessageRow>(
    `SELECT * FROM queue_messages WHERE locked_until <= ? AND dead_lettered = 0
     ORDER BY locked_until, task_id LIMIT ?`,
    sweep.now,
    Math.max(0, sweep.limit),
  );
  if (rows.length === 0) return [];
  const until = sweep.now + sweep.leaseMs;
  c.run(
    `UPDATE queue_messages SET locked_until = ?, visible_at = ?, lock_token = ?
     WHERE task_id IN (SELECT value FROM json_each(?))`,
    until,
    until,
    sweep.lockToken,
    list(rows.map((r) => r.task_id)),
  );
  return rows.map((r) => copyWith(messageFromRow(r), { lockToken: sweep.lockToken }));
}

export function nextLockLapseAt(c: SqliteConnection): number | undefined {
  const v = c.get<{ v: number | null }>(
    'SELECT min(locked_until) AS v FROM queue_messages WHERE locked_until IS NOT NULL AND dead_lettered = 0',
  )?.v;
  return typeof v === 'number' ? v : undefined;
}
