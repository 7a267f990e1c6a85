import type { QueueCounts, RunRecord } from '@baton/protocol';

import {
  type QueueMessageRow,
  dedupeMessages,
  messageFromRow,
  runFromColumns,
  runSearchText,
  searchTextOnUpdate,
  uniqueSorted,
  queueCountsFromRow,
  type QueueCountsRow,
} from '../store/sql-common.js';
import type { ClaimRequest, QueueMessage, StoredQueueMessage } from '../store/store.js';
import type { SqliteConnection } from './connection.js';
import { sharedDefinition } from './run-definitions.js';

/** The longer SQLite statements (search, queue), as functions of a connection; `SqliteTx` calls them. */

export interface RunRow {
  record: string;
  definition: string;
}
/**
 * A run's definition snapshot is kept once per distinct text in `run_definitions`, and
 * `runs.definition` names it as `#<id>` (JSON never starts with `#`); a snapshot stored in the row
 * itself (before schema step compact-rows) reads as it is. Used with `FROM runs`.
 */
export const RUN_COLUMNS = `record, CASE WHEN substr(runs.definition, 1, 1) = '#'
  THEN (SELECT d.definition FROM run_definitions AS d WHERE d.id = CAST(substr(runs.definition, 2) AS INTEGER))
  ELSE runs.definition END AS definition`;

/** What `runs.definition` holds for the snapshot `text`: `#<id>` of its one `run_definitions` row. */
export function runDefinitionRef(c: SqliteConnection, text: string): string {
  const found = c.get<{ id: number }>('SELECT id FROM run_definitions WHERE definition = ?', text);
  const id =
    found?.id ?? Number(c.run('INSERT INTO run_definitions (definition) VALUES (?)', text).lastInsertRowid);
  return `#${id}`;
}
const CLAIM_ORDER = 'priority DESC, visible_at, task_id';

/**
 * The messages a claim takes from one queue (queue, now, count). Its index is named: it gives the
 * claim order, so the walk stops at the LIMIT. Left to itself SQLite's planner (which has no
 * statistics) took queue_messages_visible and sorted the whole queue: 14 ms a claim with 100,000
 * messages waiting, on the one writer.
 */
export const CLAIM_PICK = `SELECT task_id, priority, visible_at FROM queue_messages INDEXED BY queue_messages_claim
       WHERE queue_name = ? AND dead_lettered = 0 AND locked_until IS NULL AND visible_at <= ?
       ORDER BY ${CLAIM_ORDER} LIMIT ?`;

export function parse<T>(text: string): T {
  return JSON.parse(text) as T;
}
/** A run from its row; its definition shared with the other runs of the same snapshot, frozen. */
export function run(row: RunRow): RunRecord {
  return runFromColumns(
    parse<Omit<RunRecord, 'workflowDefinition'>>(row.record),
    sharedDefinition(row.definition),
  );
}
/** An id list as one bound JSON array, read back with json_each: one cached statement for any length. */
export function list(values: readonly string[]): string {
  return JSON.stringify(values);
}

/**
 * `column` among `values`, as a condition and its one parameter: by key for one value, which is
 * what the hot statements nearly always hold (half the time of json_each; docs/PERFORMANCE.md,
 * "Built: SQLite's one-id statements by key"), else the list through json_each.
 */
export function oneOf(column: string, values: readonly string[]): { sql: string; param: string } {
  return values.length === 1
    ? { sql: `${column} = ?`, param: values[0] as string }
    : { sql: `${column} IN (SELECT value FROM json_each(?))`, param: list(values) };
}

export function ensureQueues(c: SqliteConnection, queueNames: readonly string[], now: number): void {
  for (const name of uniqueSorted(queueNames)) {
    c.run(
      'INSERT INTO queues (queue_name, create_time) VALUES (?, ?) ON CONFLICT (queue_name) DO NOTHING',
      name,
      now,
    );
  }
}

/** Writes a new run's row of the word index (`run_search`); answers its rowid for `runs.search_rowid`. */
export function insertRunSearch(c: SqliteConnection, r: RunRecord): number | bigint {
  return c.run('INSERT INTO run_search (workflow_id, body) VALUES (?, ?)', r.workflowId, runSearchText(r))
    .lastInsertRowid;
}

/** The word index follows a run's end only (`sql-common.ts` runSearchText): a step writes nothing. */
export function updateRunSearch(c: SqliteConnection, r: RunRecord): void {
  const search = searchTextOnUpdate(r);
  if (search === undefined) return;
  c.run(
    'UPDATE run_search SET body = ? WHERE rowid = (SELECT search_rowid FROM runs WHERE workflow_id = ?)',
    search,
    r.workflowId,
  );
}

export function enqueueMessages(c: SqliteConnection, messages: readonly QueueMessage[], now: number): void {
  if (messages.length === 0) return;
  ensureQueues(
    c,
    messages.map((m) => m.queueName),
    now,
  );
  for (const m of dedupeMessages(messages)) {
    c.run(
      `INSERT INTO queue_messages (task_id, queue_name, workflow_id, task_ref, attempt, priority, visible_at, lock_ms,
         locked_until, lock_token, worker_id, delivery_count, dead_lettered, created_at)
       VALUES (@taskId, @queueName, @workflowId, @taskRef, @attempt, @priority, @visibleAt, @lockMs,
         @lockedUntil, @lockToken, @workerId, @deliveries, 0, @now)
       ON CONFLICT (task_id) DO UPDATE SET queue_name = excluded.queue_name, workflow_id = excluded.workflow_id,
         task_ref = excluded.task_ref, attempt = excluded.attempt, priority = excluded.priority,
         visible_at = excluded.visible_at, lock_ms = excluded.lock_ms, locked_until = excluded.locked_until,
         lock_token = excluded.lock_token, worker_id = excluded.worker_id, delivery_count = excluded.delivery_count,
         dead_lettered = 0, created_at = excluded.created_at`,
      {
        taskId: m.taskId,
        queueName: m.queueName,
        workflowId: m.workflowId,
        taskRef: m.taskRef,
        attempt: m.attempt,
        priority: m.priority,
        visibleAt: m.lock?.lockedUntil ?? m.visibleAt,
        lockMs: m.lockMs,
        lockedUntil: m.lock?.lockedUntil ?? null,
        lockToken: m.lock?.lockToken ?? null,
        workerId: m.lock?.workerId ?? null,
        deliveries: m.lock ? 1 : 0,
        now,
      },
    );
  }
}

export function claimMessages(c: SqliteConnection, request: ClaimRequest): StoredQueueMessage[] {
  const claimed: StoredQueueMessage[] = [];
  for (const queueName of request.queueNames) {
    const want = request.count - claimed.length;
    if (want <= 0) break;
    const picked = c.all<{ task_id: string; priority: number; visible_at: number }>(
      CLAIM_PICK,
      queueName,
      request.now,
      want,
    );
    if (picked.length === 0) continue;
    const rows = c.all<QueueMessageRow>(
      `UPDATE queue_messages SET locked_until = @now + lock_ms, visible_at = @now + lock_ms,
         lock_token = @token, worker_id = @workerId, delivery_count = delivery_count + 1
       WHERE task_id IN (SELECT value FROM json_each(@ids))
       RETURNING *`,
      {
        now: request.now,
        token: request.lockToken,
        workerId: request.workerId,
        ids: list(picked.map((p) => p.task_id)),
      },
    );
    const order = new Map(picked.map((p, i) => [p.task_id, i]));
    rows.sort((a, b) => (order.get(a.task_id) ?? 0) - (order.get(b.task_id) ?? 0));
    claimed.push(...rows.map(messageFromRow));
  }
  return claimed;
}

export function queueCounts(c: SqliteConnection, now: number): QueueCounts[] {
  const rows = c.all<QueueCountsRow>(
    `SELECT q.queue_name AS queue_name,
       count(CASE WHEN m.dead_lettered = 0 AND m.visible_at <= @now THEN 1 END) AS waiting,
       count(CASE WHEN m.dead_lettered = 0 AND m.visible_at > @now
                   AND (m.locked_until IS NULL OR m.locked_until <= @now) THEN 1 END) AS scheduled,
       count(CASE WHEN m.dead_lettered = 0 AND m.locked_until > @now THEN 1 END) AS in_flight,
       count(CASE WHEN m.dead_lettered = 1 THEN 1 END) AS dead
     FROM (SELECT queue_name FROM queues UNION SELECT queue_name FROM queue_messages) q
     LEFT JOIN queue_messages m ON m.queue_name = q.queue_name
     GROUP BY q.queue_name ORDER BY q.queue_name`,
    { now },
  );
  return rows.map(queueCountsFromRow);
}
