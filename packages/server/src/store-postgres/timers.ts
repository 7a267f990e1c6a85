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
import type { Query, Sql } from './sql.js';
import { storableTime } from '../bounds/time.js';

/** Durable timers and dead-letter reads on PostgreSQL; `PgTx` delegates here. */

const named = (name: string, text: string): Sql => ({ name: `baton_${name}`, text });

export const TIMER_SQL = {
  arm: named(
    'arm_timers',
    `INSERT INTO timers (id, workflow_id, task_id, kind, fire_at, payload, claimed_until, create_time)
     SELECT x.id, x.w, x.t, x.k, x.f, x.p::jsonb, NULL, $7::bigint
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[]) AS x(id, w, t, k, f, p)
     ORDER BY x.id
     ON CONFLICT (id) DO UPDATE SET workflow_id = EXCLUDED.workflow_id, task_id = EXCLUDED.task_id,
       kind = EXCLUDED.kind, fire_at = EXCLUDED.fire_at, payload = EXCLUDED.payload, claimed_until = NULL`,
  ),
  // SKIP LOCKED: a timer another node is leasing right now is passed over, never taken twice;
  // READ COMMITTED re-checks the lease condition on a row another claimer just committed.
  claim: named(
    'claim_timers',
    `WITH c AS (
       SELECT id FROM timers
       WHERE fire_at <= $1::bigint AND (claimed_until IS NULL OR claimed_until <= $1::bigint)
       ORDER BY fire_at, id
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     )
     UPDATE timers AS t SET claimed_until = $1::bigint + $3::bigint
     FROM c WHERE t.id = c.id
     RETURNING t.id, t.workflow_id, t.task_id, t.kind, t.fire_at, t.payload, t.claimed_until, t.create_time`,
  ),
  delete: named('delete_timer', 'DELETE FROM timers WHERE id = $1'),
  next: named(
    'next_timer_due',
    `SELECT least(
       (SELECT min(fire_at) FROM timers WHERE claimed_until IS NULL),
       (SELECT min(greatest(fire_at, claimed_until)) FROM timers WHERE claimed_until IS NOT NULL)) AS v`,
  ),
  // Lapsed locks, earliest first, on queue_messages_locked; SKIP LOCKED as the timer claim.
  // RETURNING answers the row as it was (from the CTE) but for the sweeper's token.
  claimLapsed: named(
    'claim_lapsed_locks',
    `WITH c AS (
       SELECT task_id, locked_until AS lapsed_at, visible_at AS was_visible_at FROM queue_messages
       WHERE locked_until <= $1::bigint AND NOT dead_lettered
       ORDER BY locked_until, task_id
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     )
     UPDATE queue_messages AS m SET locked_until = $1::bigint + $3::bigint,
       visible_at = $1::bigint + $3::bigint, lock_token = $4
     FROM c WHERE m.task_id = c.task_id
     RETURNING m.task_id, m.queue_name, m.workflow_id, m.task_ref, m.attempt, m.priority, c.was_visible_at AS visible_at,
       m.lock_ms, c.lapsed_at AS locked_until, m.lock_token, m.worker_id, m.delivery_count, m.dead_lettered,
       m.created_at`,
  ),
  nextLapse: named(
    'next_lock_lapse',
    'SELECT min(locked_until) AS v FROM queue_messages WHERE locked_until IS NOT NULL AND NOT dead_lettered',
  ),
  deadLetters: named(
    'dead_lettered_messages',
    `SELECT * FROM queue_messages WHERE dead_lettered AND queue_name = ANY($1::text[])
     ORDER BY created_at, task_id`,
  ),
} as const;

/** The arm statement's parameters; undefined when there is nothing to arm. */
export function armParams(timers: readonly TimerRecord[], now: number): unknown[] | undefined {
  if (timers.length === 0) return undefined;
  const byId = new Map(timers.map((t) => [t.timerId, t]));
  const ts = [...byId.values()];
  return [
    ts.map((t) => t.timerId),
    ts.map((t) => t.workflowId),
    ts.map((t) => t.taskId ?? null),
    ts.map((t) => t.kind),
    ts.map((t) => storableTime(t.dueAt)),
    ts.map((t) => JSON.stringify(t.payload)),
    now,
  ];
}

export async function armTimers(q: Query, timers: readonly TimerRecord[], now: number): Promise<void> {
  const params = armParams(timers, now);
  if (params) await q(TIMER_SQL.arm, params);
}

const PG_CONDITIONS: ConditionWriter = {
  equals: (column, value, params) => `${column} = $${params.push(value)}`,
  oneOf: (column, values, params) => `${column} = ANY($${params.push(uniqueSorted(values))}::text[])`,
};

/** The DELETE of the timers a filter names; undefined when it names none. */
export function cancelStatement(filter: TimerFilter): { sql: string; params: unknown[] } | undefined {
  checkTimerFilter('cancelTimers', filter);
  if (filter.taskIds !== undefined && filter.taskIds.length === 0) return undefined;
  const w = timerWhere(filter, PG_CONDITIONS);
  return { sql: `DELETE FROM timers WHERE ${w.sql}`, params: w.params };
}

export async function cancelTimers(q: Query, filter: TimerFilter): Promise<number> {
  const statement = cancelStatement(filter);
  return statement ? ((await q(statement.sql, statement.params)).rowCount ?? 0) : 0;
}

export async function listTimers(q: Query, filter: TimerFilter): Promise<StoredTimer[]> {
  checkTimerFilter('listTimers', filter);
  const w = timerWhere(filter, PG_CONDITIONS);
  const { rows } = await q<TimerRow>(`SELECT * FROM timers WHERE ${w.sql}`, w.params);
  return rows.map(timerFromRow).sort(compareTimers);
}

export async function claimDueTimers(q: Query, claim: TimerClaim): Promise<StoredTimer[]> {
  if (claim.limit <= 0) return [];
  const { rows } = await q<TimerRow>(TIMER_SQL.claim, [claim.now, claim.limit, claim.leaseMs]);
  return rows.map(timerFromRow).sort(compareTimers);
}

export async function deleteTimer(q: Query, timerId: string): Promise<boolean> {
  return ((await q(TIMER_SQL.delete, [timerId])).rowCount ?? 0) > 0;
}

export async function nextTimerDueAt(q: Query): Promise<number | undefined> {
  const { rows } = await q<{ v: number | null }>(TIMER_SQL.next);
  return rows[0]?.v ?? undefined;
}

export async function deadLetteredMessages(
  q: Query,
  queueNames: readonly string[],
): Promise<StoredQueueMessage[]> {
  if (queueNames.length === 0) return [];
  const { rows } = await q<QueueMessageRow>(TIMER_SQL.deadLetters, [uniqueSorted(queueNames)]);
  return rows.map(messageFromRow);
}

export async function claimLapsedLocks(q: Query, sweep: LockSweep): Promise<StoredQueueMessage[]> {
  if (sweep.limit <= 0) return [];
  const { rows } = await q<QueueMessageRow>(TIMER_SQL.claimLapsed, [
    sweep.now,
    sweep.limit,
    sweep.leaseMs,
    sweep.lockToken,
  ]);
  return rows
    .map(messageFromRow)
    .sort((a, b) => (a.lockedUntil ?? 0) - (b.lockedUntil ?? 0) || (a.taskId < b.taskId ? -1 : 1));
}

export async function nextLockLapseAt(q: Query): Promise<number | undefined> {
  const { rows } = await q<{ v: number | null }>(TIMER_SQL.nextLapse);
  return rows[0]?.v ?? undefined;
}
