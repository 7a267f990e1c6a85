import type pg from 'pg';

import { storableParams } from './text.js';
import { LISTENER_NAME, QUEUE_CHANNEL } from './queue-listener.js';
import { TASK_COLUMNS } from './task-rows.js';
import { RUN_COLUMNS } from './run-rows.js';
import { definitionLock } from './run-definitions.js';

/**
 * Hot statements are named: pg prepares a named statement once per connection and then only
 * sends its parameters. Names are fixed per text (pg refuses one name with two texts).
 */
export interface Sql {
  readonly name: string;
  readonly text: string;
}

export type Query = <R extends pg.QueryResultRow>(
  sql: Sql | string,
  values?: readonly unknown[],
) => Promise<pg.QueryResult<R>>;

/**
 * A query function on a pool or on one client. Text goes as text and an array: pg copies a query
 * given as an object property by property (`cloneQueryConfig`), 1.4 % of the server's busy time
 * at light load, where most statements go this way (docs/PERFORMANCE.md, "Built: text queries
 * without a copy").
 */
export function queryOn(target: pg.Pool | pg.PoolClient | pg.Client): Query {
  return <R extends pg.QueryResultRow>(sql: Sql | string, values: readonly unknown[] = []) =>
    typeof sql === 'string'
      ? target.query<R>(sql, storableParams(values))
      : target.query<R>({ name: sql.name, text: sql.text, values: storableParams(values) });
}

const named = (name: string, text: string): Sql => ({ name: `baton_${name}`, text });

const WF_COLUMNS = 'definition, version, create_time, update_time';
/**
 * The end of a claim (`u`: the messages it locked): each with its task's row (all null when the
 * task is gone; whole, compact or packed, task-rows.ts) and the task definitions' change counter,
 * read in the claim's own snapshot.
 */
const CLAIMED_WITH = `SELECT u.*, t.record AS task_record, t.packed AS task_packed, t.seq AS task_seq, t.reference_task_name AS task_ref_name,
       t.task_type AS task_type, t.status AS task_status, t.update_time AS task_update_time, t.workflow_id AS task_workflow_id,
       (SELECT version FROM task_defs_version) AS defs_version
     FROM u LEFT JOIN tasks AS t ON t.task_id = u.task_id`;
const MESSAGE_COLUMNS = `m.task_id, m.queue_name, m.workflow_id, m.task_ref, m.attempt, m.priority, m.visible_at, m.lock_ms,
  m.locked_until, m.lock_token, m.worker_id, m.delivery_count, m.dead_lettered, m.created_at`;

/**
 * Writes task rows from a JSON array (record-shape.ts `taskRowsJson`: an element is the whole
 * task, or its columns with the clear part `r` and the packed rest `p`); callers add conditions
 * after the WHERE. The ids again as an array (`ids`, e.g. `ANY($7::text[])`) let a generic plan
 * find the rows by primary key; joined on the JSON alone, it cannot know how many there are and
 * scans.
 */
const updateTasksFromJson = (
  ids: string,
): string => `UPDATE tasks AS t SET workflow_id = e->>'workflowInstanceId', seq = (e->>'seq')::int,
       reference_task_name = e->>'referenceTaskName', task_type = e->>'taskType', status = e->>'status',
       update_time = (e->>'updateTime')::bigint, record = COALESCE(e->'r', e), packed = decode(e->>'p', 'base64')
     FROM jsonb_array_elements($1::jsonb) AS e
     WHERE t.task_id = ${ids} AND t.task_id = e->>'taskId'`;

/**
 * The tasks of `updateTasksFromJson` that are still open (the hand-out's compare-and-set), as a
 * condition to add after its WHERE. A CASE, not `status IN (…)`: a generic plan could otherwise
 * AND the primary key with the status index and the decide set's partial index, and read every
 * entry of both (thousands, mostly dead between vacuums) to update one row.
 */
const STILL_OPEN = `AND CASE t.status WHEN 'SCHEDULED' THEN true WHEN 'IN_PROGRESS' THEN true ELSE false END`;

/**
 * The decide set's latest task per name ($2 workflow ids, $3 names, $4 seqs, $5 task ids), as a
 * CTE. A task's status change finds its own row already there: no write (it was a HOT update per step).
 */
const UPSERT_LATEST_CTE = `latest AS (
       INSERT INTO task_latest (workflow_id, name, seq, task_id)
       SELECT * FROM unnest($2::text[], $3::text[], $4::int[], $5::text[])
       ON CONFLICT (workflow_id, name) DO UPDATE SET seq = excluded.seq, task_id = excluded.task_id
       WHERE excluded.seq > task_latest.seq
         OR (excluded.seq = task_latest.seq AND excluded.task_id <> task_latest.task_id)
     )`;

export const SQL = {
  // With the task definitions' change counter: a start reads its tasks' definitions next (task-def-cache.ts).
  getWorkflowDef: named(
    'get_wf_def',
    `SELECT ${WF_COLUMNS}, (SELECT version FROM task_defs_version) AS defs_version
     FROM workflow_defs WHERE name = $1 AND version = $2`,
  ),
  getLatestWorkflowDef: named(
    'get_latest_wf_def',
    `SELECT ${WF_COLUMNS}, (SELECT version FROM task_defs_version) AS defs_version
     FROM workflow_defs WHERE name = $1 ORDER BY version DESC LIMIT 1`,
  ),
  listWorkflowDefs: named('list_wf_defs', `SELECT ${WF_COLUMNS} FROM workflow_defs ORDER BY name, version`),
  latestWorkflowVersion: named(
    'latest_wf_version',
    'SELECT max(version) AS v FROM workflow_defs WHERE name = $1',
  ),
  insertWorkflowDef: named(
    'insert_wf_def',
    `INSERT INTO workflow_defs (name, version, definition, create_time, update_time) VALUES ($1, $2, $3::jsonb, $4, $5)
     ON CONFLICT (name, version) DO NOTHING`,
  ),
  upsertWorkflowDef: named(
    'upsert_wf_def',
    `INSERT INTO workflow_defs (name, version, definition, create_time, update_time) VALUES ($1, $2, $3::jsonb, $4, $5)
     ON CONFLICT (name, version) DO UPDATE SET definition = EXCLUDED.definition, update_time = EXCLUDED.update_time`,
  ),
  deleteWorkflowDef: named('delete_wf_def', 'DELETE FROM workflow_defs WHERE name = $1 AND version = $2'),

  getTaskDef: named(
    'get_task_def',
    'SELECT name, definition, create_time, update_time FROM task_defs WHERE name = $1',
  ),
  getTaskDefs: named(
    'get_task_defs',
    'SELECT name, definition, create_time, update_time FROM task_defs WHERE name = ANY($1::text[])',
  ),
  listTaskDefs: named(
    'list_task_defs',
    'SELECT name, definition, create_time, update_time FROM task_defs ORDER BY name',
  ),
  upsertTaskDef: named(
    'upsert_task_def',
    `INSERT INTO task_defs (name, definition, create_time, update_time) VALUES ($1, $2::jsonb, $3, $4)
     ON CONFLICT (name) DO UPDATE SET definition = EXCLUDED.definition, update_time = EXCLUDED.update_time`,
  ),
  deleteTaskDef: named('delete_task_def', 'DELETE FROM task_defs WHERE name = $1'),

  ensureQueues: named(
    'ensure_queues',
    `INSERT INTO queues (queue_name, create_time)
     SELECT DISTINCT n, $2::bigint FROM unnest($1::text[]) AS n ORDER BY 1
     ON CONFLICT (queue_name) DO NOTHING`,
  ),
  listQueues: named('list_queues', 'SELECT queue_name FROM queues ORDER BY queue_name'),

  insertRun: named(
    'insert_run',
    `INSERT INTO runs (workflow_id, workflow_name, workflow_version, status, correlation_id, priority,
       parent_workflow_id, idempotency_key, create_time, update_time, end_time, record, definition, search_text)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13::jsonb, $14)`,
  ),
  // A compact row (run-rows.ts): the definition once per distinct text (run-definitions.ts), a
  // snapshot already kept costing a probe of the key, and the run row holding its digest. The
  // digest's shared lock is taken before the probe (the insert reads its row from `guard`): a
  // pruning pass cannot delete a snapshot this start found kept (run-definitions.ts).
  insertCompactRun: named(
    'insert_compact_run',
    `WITH guard AS (SELECT ${definitionLock('pg_advisory_xact_lock_shared', '$15')}),
     kept AS (
       INSERT INTO run_definitions (digest, definition) SELECT decode($15, 'hex'), $13::jsonb FROM guard
       ON CONFLICT (digest) DO NOTHING
     )
     INSERT INTO runs (workflow_id, workflow_name, workflow_version, status, correlation_id, priority,
       parent_workflow_id, idempotency_key, create_time, update_time, end_time, record, definition_digest, search_text)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, decode($15, 'hex'), $14)`,
  ),
  runDefinitions: named(
    'run_definitions',
    `SELECT encode(digest, 'hex') AS digest, definition FROM run_definitions
     WHERE digest = ANY(ARRAY(SELECT decode(d, 'hex') FROM unnest($1::text[]) AS d))`,
  ),
  getRun: named('get_run', `SELECT ${RUN_COLUMNS} FROM runs WHERE workflow_id = $1`),
  // With the task definitions' change counter (task-def-cache.ts).
  lockRun: named(
    'lock_run',
    `SELECT ${RUN_COLUMNS}, (SELECT version FROM task_defs_version) AS defs_version
     FROM runs WHERE workflow_id = $1 FOR UPDATE OF runs`,
  ),
  // A group commit's member (group-commit.ts, `LockedElsewhere`): a run another transaction has
  // locked answers no row at once, instead of holding up the whole batch until that one ends.
  lockRunInBatch: named(
    'lock_run_in_batch',
    `SELECT ${RUN_COLUMNS}, (SELECT version FROM task_defs_version) AS defs_version
     FROM runs WHERE workflow_id = $1 FOR UPDATE OF runs SKIP LOCKED`,
  ),
  // Whether a run the lock above skipped exists: read without a lock, so it never waits.
  runExists: named('run_exists', 'SELECT EXISTS (SELECT 1 FROM runs WHERE workflow_id = $1) AS found'),
  updateRun: named(
    'update_run',
    `WITH u AS (
       UPDATE runs SET status = $2, correlation_id = $3, priority = $4, parent_workflow_id = $5, idempotency_key = $6,
         update_time = $7, end_time = $8, record = $9::jsonb, search_text = COALESCE($10, search_text)
       WHERE workflow_id = $1
       RETURNING 1
     )
     SELECT baton_expect_rows((SELECT count(*) FROM u), 1, 'updateRun: no run ' || $1::text)`,
  ),
  countRunsOfVersion: named(
    'count_runs_of_version',
    'SELECT count(*) AS n FROM runs WHERE workflow_name = $1 AND workflow_version = $2',
  ),
  runsByCorrelation: named(
    'runs_by_correlation',
    `SELECT ${RUN_COLUMNS} FROM runs WHERE correlation_id = $1 AND workflow_name = $2
     ORDER BY create_time, workflow_id`,
  ),
  openRunsByCorrelation: named(
    'open_runs_by_correlation',
    `SELECT ${RUN_COLUMNS} FROM runs WHERE correlation_id = $1 AND workflow_name = $2 AND status = ANY($3::text[])
     ORDER BY create_time, workflow_id`,
  ),

  // A whole batch in one statement: the records go as one jsonb array, and the decide set's
  // latest-by-name rows ($2…$5, see decide-set.ts) are kept in the same round trip.
  insertTasks: named(
    'insert_tasks',
    `WITH ins AS (
       INSERT INTO tasks (task_id, workflow_id, seq, reference_task_name, task_type, status, update_time, record, packed)
       SELECT e->>'taskId', e->>'workflowInstanceId', (e->>'seq')::int, e->>'referenceTaskName', e->>'taskType',
         e->>'status', (e->>'updateTime')::bigint, COALESCE(e->'r', e), decode(e->>'p', 'base64')
       FROM jsonb_array_elements($1::jsonb) AS e
     ), ${UPSERT_LATEST_CTE}
     SELECT 1`,
  ),
  // $6: how many tasks must exist; fewer raise an error (so a deferred batch never commits them).
  updateTasks: named(
    'update_tasks',
    `WITH upd AS (${updateTasksFromJson('ANY($7::text[])')} RETURNING 1), ${UPSERT_LATEST_CTE}
     SELECT baton_expect_rows((SELECT count(*) FROM upd), $6::bigint,
       'updateTasks: ' || ($6::bigint - (SELECT count(*) FROM upd)) || ' of the tasks do not exist') AS n`,
  ),
  updateOpenTasks: named(
    'update_open_tasks',
    `${updateTasksFromJson('ANY($2::text[])')}
       ${STILL_OPEN}
     RETURNING t.task_id`,
  ),
  // The same compare-and-set deferred to COMMIT by a group commit's member (tx.ts
  // `updateOpenTasks`): $3 tasks must still be open, or the batch fails and its members run alone.
  updateOpenTasksExpected: named(
    'update_open_tasks_expected',
    `WITH upd AS (${updateTasksFromJson('ANY($2::text[])')}
       ${STILL_OPEN}
     RETURNING 1)
     SELECT baton_expect_rows((SELECT count(*) FROM upd), $3::bigint,
       'updateOpenTasks: ' || ($3::bigint - (SELECT count(*) FROM upd)) || ' of the tasks ended meanwhile') AS n`,
  ),
  getTask: named('get_task', `SELECT ${TASK_COLUMNS} FROM tasks WHERE task_id = $1`),
  getTasks: named('get_tasks', `SELECT ${TASK_COLUMNS} FROM tasks WHERE task_id = ANY($1::text[])`),
  getRunTasks: named(
    'get_run_tasks',
    `SELECT ${TASK_COLUMNS} FROM tasks WHERE workflow_id = $1 ORDER BY seq, task_id`,
  ),
  appendTaskLogs: named(
    'append_task_logs',
    `INSERT INTO task_logs (task_id, log, created_time)
     SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])`,
  ),
  getTaskLogs: named(
    'get_task_logs',
    'SELECT log, created_time FROM task_logs WHERE task_id = $1 ORDER BY id',
  ),

  // Queues and messages in one round trip; a re-sent taskId replaces its message. A message
  // queued already handed out ($10…$12 not null) is written locked, as a claim leaves it. Every
  // parameter has an element per message (its creation time, $9, too), so that a group commit
  // can make several transactions' enqueues one statement (merge-writes.ts).
  enqueue: named(
    'enqueue',
    `WITH q AS (
       INSERT INTO queues (queue_name, create_time)
       SELECT n, min(c) FROM unnest($2::text[], $9::bigint[]) AS x(n, c) GROUP BY n ORDER BY 1
       ON CONFLICT (queue_name) DO NOTHING
     )
     INSERT INTO queue_messages (task_id, queue_name, workflow_id, task_ref, attempt, priority, visible_at, lock_ms,
       locked_until, lock_token, worker_id, delivery_count, dead_lettered, created_at)
     SELECT x.t, x.qn, x.w, x.r, x.a, x.p, coalesce(x.lu, x.v), x.l, x.lu, x.lt, x.wk,
       CASE WHEN x.lu IS NULL THEN 0 ELSE 1 END, FALSE, x.c
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::bigint[], $8::bigint[],
       $9::bigint[], $10::bigint[], $11::text[], $12::text[])
       AS x(t, qn, w, r, a, p, v, l, c, lu, lt, wk)
     ON CONFLICT (task_id) DO UPDATE SET queue_name = EXCLUDED.queue_name, workflow_id = EXCLUDED.workflow_id,
       task_ref = EXCLUDED.task_ref, attempt = EXCLUDED.attempt, priority = EXCLUDED.priority,
       visible_at = EXCLUDED.visible_at, lock_ms = EXCLUDED.lock_ms, locked_until = EXCLUDED.locked_until,
       lock_token = EXCLUDED.lock_token, worker_id = EXCLUDED.worker_id, delivery_count = EXCLUDED.delivery_count,
       dead_lettered = FALSE, created_at = EXCLUDED.created_at`,
  ),
  // The claim: one statement per queue. SKIP LOCKED lets concurrent claimers pass each other's rows;
  // READ COMMITTED re-checks a row another claimer changed, so a taken message is never taken twice.
  // Each message comes with its task's record and the task definitions' change counter
  // (CLAIMED_WITH): what a hand-out reads next, without another round trip.
  claim: named(
    'claim',
    `WITH c AS (
       SELECT task_id, visible_at AS prev_visible_at FROM queue_messages
       WHERE queue_name = $1 AND NOT dead_lettered AND locked_until IS NULL AND visible_at <= $2::bigint
       ORDER BY priority DESC, visible_at, task_id
       LIMIT $3
       FOR UPDATE SKIP LOCKED
     ), u AS (
       UPDATE queue_messages AS m SET locked_until = $2::bigint + m.lock_ms, visible_at = $2::bigint + m.lock_ms,
         lock_token = $4, worker_id = $5, delivery_count = m.delivery_count + 1
       FROM c WHERE m.task_id = c.task_id
       RETURNING ${MESSAGE_COLUMNS}, c.prev_visible_at
     )
     ${CLAIMED_WITH}`,
  ),
  // A poll's two queues ({type}-high first, then {type}) in one statement: the second is only
  // asked for what the first could not give.
  claimPair: named(
    'claim_pair',
    `WITH h AS (
       SELECT task_id, visible_at AS prev_visible_at, 0 AS queue_rank FROM queue_messages
       WHERE queue_name = $1 AND NOT dead_lettered AND locked_until IS NULL AND visible_at <= $3::bigint
       ORDER BY priority DESC, visible_at, task_id
       LIMIT $4
       FOR UPDATE SKIP LOCKED
     ), b AS (
       SELECT task_id, visible_at AS prev_visible_at, 1 AS queue_rank FROM queue_messages
       WHERE queue_name = $2 AND NOT dead_lettered AND locked_until IS NULL AND visible_at <= $3::bigint
       ORDER BY priority DESC, visible_at, task_id
       LIMIT greatest(0, $4 - (SELECT count(*) FROM h))
       FOR UPDATE SKIP LOCKED
     ), c AS (SELECT * FROM h UNION ALL SELECT * FROM b), u AS (
       UPDATE queue_messages AS m SET locked_until = $3::bigint + m.lock_ms, visible_at = $3::bigint + m.lock_ms,
         lock_token = $5, worker_id = $6, delivery_count = m.delivery_count + 1
       FROM c WHERE m.task_id = c.task_id
       RETURNING ${MESSAGE_COLUMNS}, c.prev_visible_at, c.queue_rank
     )
     ${CLAIMED_WITH}`,
  ),
  getMessage: named('get_message', `SELECT ${MESSAGE_COLUMNS} FROM queue_messages AS m WHERE m.task_id = $1`),
  removeMessages: named('remove_messages', 'DELETE FROM queue_messages WHERE task_id = ANY($1::text[])'),
  requeueMessage: named(
    'requeue_message',
    `UPDATE queue_messages SET visible_at = $2, locked_until = NULL, lock_token = NULL, worker_id = NULL,
       dead_lettered = FALSE
     WHERE task_id = $1`,
  ),
  extendLock: named(
    'extend_lock',
    `UPDATE queue_messages SET locked_until = $2, visible_at = $2, lock_token = NULL
     WHERE task_id = $1 AND locked_until IS NOT NULL AND NOT dead_lettered`,
  ),
  deadLetterMessage: named(
    'dead_letter_message',
    'UPDATE queue_messages SET dead_lettered = TRUE, locked_until = NULL, lock_token = NULL WHERE task_id = $1',
  ),
  queueCounts: named(
    'queue_counts',
    `SELECT q.queue_name,
       count(m.task_id) FILTER (WHERE NOT m.dead_lettered AND m.visible_at <= $1) AS waiting,
       count(m.task_id) FILTER (WHERE NOT m.dead_lettered AND m.visible_at > $1
                                  AND (m.locked_until IS NULL OR m.locked_until <= $1)) AS scheduled,
       count(m.task_id) FILTER (WHERE NOT m.dead_lettered AND m.locked_until > $1) AS in_flight,
       count(m.task_id) FILTER (WHERE m.dead_lettered) AS dead
     FROM (SELECT queue_name FROM queues UNION SELECT queue_name FROM queue_messages) AS q
     LEFT JOIN queue_messages AS m ON m.queue_name = q.queue_name
     GROUP BY q.queue_name ORDER BY q.queue_name`,
  ),
  // The earliest time a message of each queue becomes visible, from the claim's index, which holds
  // each queue's waiting messages by priority, then visible time: one seek for each priority the
  // queue uses (a skip scan: the first entry of the highest priority, then of the next lower one,
  // and so on), never a walk over its messages. It is the queue's one index (migration
  // queue-claim-index-only), so no statistics can lead the planner elsewhere.
  nextVisibleAt: named(
    'next_visible_at',
    `SELECT min(x.v) AS v FROM unnest($1::text[]) AS q(name)
     CROSS JOIN LATERAL (
       WITH RECURSIVE p(priority, v) AS (
         (SELECT priority, visible_at FROM queue_messages
          WHERE queue_name = q.name AND NOT dead_lettered AND locked_until IS NULL
          ORDER BY priority DESC, visible_at LIMIT 1)
         UNION ALL
         SELECT n.priority, n.visible_at FROM p CROSS JOIN LATERAL (
           SELECT priority, visible_at FROM queue_messages
           WHERE queue_name = q.name AND NOT dead_lettered AND locked_until IS NULL AND priority < p.priority
           ORDER BY priority DESC, visible_at LIMIT 1
         ) AS n
       )
       SELECT min(v) AS v FROM p
     ) AS x`,
  ),
  notify: named('notify', 'SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p'),
  // Another node's listening connection on this database ($1: this node's own): found by its name,
  // or by its last statement where the URL set another name (visible to the same role).
  otherListeners: named(
    'other_listeners',
    `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> $1
       AND (application_name = '${LISTENER_NAME}' OR query LIKE 'LISTEN ${QUEUE_CHANNEL}%')) AS others`,
  ),

  recordPolls: named(
    'record_polls',
    `INSERT INTO poll_data (queue_name, worker_id, task_type, domain, last_poll_time)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])
     ON CONFLICT (queue_name, worker_id) DO UPDATE SET task_type = EXCLUDED.task_type, domain = EXCLUDED.domain,
       last_poll_time = EXCLUDED.last_poll_time`,
  ),
  allPollData: named(
    'all_poll_data',
    'SELECT queue_name, worker_id, domain, last_poll_time FROM poll_data ORDER BY queue_name, worker_id',
  ),
  pollData: named(
    'poll_data',
    `SELECT queue_name, worker_id, domain, last_poll_time FROM poll_data WHERE task_type = $1
     ORDER BY queue_name, worker_id`,
  ),
} as const;
