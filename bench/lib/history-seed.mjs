// Grows a Baton PostgreSQL store's history of finished runs in SQL, far faster than through the
// API: a few runs finished through the API are the templates, and every clone copies one of
// them row for row (its run, its tasks, its task_latest entries) under new UUIDv7 ids and times
// shifted into the past, so the store holds what the same runs would have left behind.
import pg from 'pg';

// A UUIDv7 from a time (ms) and a counter in the random bits (RFC 9562 allows a counter there),
// so clone ids are unique without a random source; `variant` keeps runs' and tasks' ids apart.
const UUID7 = `CREATE FUNCTION pg_temp.uuid7(ts bigint, n bigint, variant text) RETURNS text
  LANGUAGE sql IMMUTABLE AS $$
    SELECT (lpad(to_hex(ts), 12, '0') || '7' || left(lpad(to_hex(n), 18, '0'), 3) || variant
      || right(lpad(to_hex(n), 18, '0'), 15))::uuid::text
  $$`;

// The templates, numbered k = 0..K-1. Times are kept as offsets from their run's start, so a
// clone's times are one addition each (no JSON is read while cloning).
const TEMPLATE_RUNS = `CREATE TEMP TABLE tpl_runs AS
  SELECT (row_number() OVER (ORDER BY workflow_id) - 1)::int AS k, *,
    update_time - create_time AS ut, end_time - create_time AS et
  FROM runs WHERE workflow_id = ANY($1::text[]) AND end_time > 0`;
const TEMPLATE_ROWS = [
  `CREATE TEMP TABLE tpl_tasks AS
     SELECT r.k, t.*, (t.record->>'scheduledTime')::bigint - r.create_time AS at,
       (t.record->>'startTime')::bigint - r.create_time AS st,
       (t.record->>'endTime')::bigint - r.create_time AS et, t.update_time - r.create_time AS ut
     FROM tasks AS t JOIN tpl_runs AS r USING (workflow_id)`,
  `CREATE TEMP TABLE tpl_latest AS
     SELECT t.k, l.name, l.seq, t.at
     FROM task_latest AS l JOIN tpl_tasks AS t USING (task_id)`,
];

// Clone i (from $1 up to $2, excluded) copies template i % $5 and starts at $3 + i * $4 ms.
// OFFSET 0 keeps each id computed once per row instead of once per use.
const CLONES = `(SELECT i, t0, pg_temp.uuid7(t0, i, '8') AS wid
    FROM (SELECT i, $3::bigint + i * $4::bigint AS t0 FROM generate_series($1::bigint, $2::bigint - 1) AS i) AS g
    OFFSET 0) AS c`;
// Task ids carry (i, seq) in their counter bits, so task_latest computes the same ids.
const TASK_ID = `pg_temp.uuid7(c.t0 + t.at, c.i * 4096 + t.seq, '9')`;

const CLONE_RUNS = `
  INSERT INTO runs (workflow_id, workflow_name, workflow_version, status, correlation_id, priority,
    parent_workflow_id, idempotency_key, create_time, update_time, end_time, record, definition)
  SELECT c.wid, r.workflow_name, r.workflow_version, r.status, r.correlation_id, r.priority,
    r.parent_workflow_id, r.idempotency_key, c.t0, c.t0 + r.ut, c.t0 + r.et,
    r.record || jsonb_build_object('workflowId', c.wid, 'createTime', c.t0, 'updateTime', c.t0 + r.ut,
      'endTime', c.t0 + r.et),
    r.definition
  FROM ${CLONES} JOIN tpl_runs AS r ON r.k = c.i % $5`;

// A packed row (packages/server/src/store-postgres/record-shape.ts) keeps its times in the clear
// record and nothing of its id, run or update time in the packed rest, which is copied as it is; a
// whole one repeats its columns in its record, so they are rewritten there too.
const CLONE_TASKS = `
  INSERT INTO tasks (task_id, workflow_id, seq, reference_task_name, task_type, status, update_time, record, packed)
  SELECT x.task_id, c.wid, t.seq, t.reference_task_name, t.task_type, t.status, c.t0 + t.ut,
    t.record || jsonb_build_object('scheduledTime', c.t0 + t.at, 'startTime', c.t0 + t.st, 'endTime', c.t0 + t.et)
      || CASE WHEN t.packed IS NULL
           THEN jsonb_build_object('taskId', x.task_id, 'workflowInstanceId', c.wid, 'updateTime', c.t0 + t.ut)
           ELSE '{}'::jsonb END,
    t.packed
  FROM ${CLONES} JOIN tpl_tasks AS t ON t.k = c.i % $5
  CROSS JOIN LATERAL (SELECT ${TASK_ID} AS task_id OFFSET 0) AS x`;

const CLONE_LATEST = `
  INSERT INTO task_latest (workflow_id, name, seq, task_id)
  SELECT c.wid, t.name, t.seq, ${TASK_ID}
  FROM ${CLONES} JOIN tpl_latest AS t ON t.k = c.i % $5`;

async function openClient(databaseUrl, templateIds, applicationName) {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: applicationName });
  await client.connect();
  // A failed seed is redone from scratch, so a commit need not wait for the disk.
  await client.query('SET synchronous_commit = off');
  await client.query(UUID7);
  await client.query(TEMPLATE_RUNS, [templateIds]);
  for (const sql of TEMPLATE_ROWS) await client.query(sql);
  return client;
}

/**
 * Opens a seeder on `databaseUrl` whose templates are the finished runs `templateIds`. Clone i
 * starts at `firstStart + i * spacingMs` (choose `firstStart` so the last clone is still in the
 * past). `parallel` connections (named `applicationName`) insert batches of `batchRuns` runs
 * side by side, and vacuum after every `vacuumEveryRuns`.
 * Answers { templates, grow(from, to, onProgress?), settle(), close() }.
 */
export async function openHistorySeeder(
  databaseUrl,
  {
    templateIds,
    firstStart,
    spacingMs,
    batchRuns = 10_000,
    vacuumEveryRuns = 100_000,
    parallel = 2,
    applicationName = 'history-seed',
  },
) {
  const clients = [];
  for (let n = 0; n < parallel; n++)
    clients.push(await openClient(databaseUrl, templateIds, applicationName));
  const [first] = clients;
  const templates = Number((await first.query('SELECT count(*) AS n FROM tpl_runs')).rows[0].n);
  if (templates === 0) throw new Error('no finished template runs to clone');
  if (Number((await first.query('SELECT max(seq) AS s FROM tpl_tasks')).rows[0].s) >= 4096) {
    throw new Error('template runs have too many tasks for the id scheme');
  }

  /** Runs `statement(table)` for each table, the tables shared out among the connections. */
  const eachTable = async (statement) => {
    const tables = ['tasks', 'runs', 'task_latest'];
    await Promise.all(
      clients.map(async (client) => {
        for (let table = tables.shift(); table; table = tables.shift()) await client.query(statement(table));
      }),
    );
  };

  /** Clones from..to-1, one transaction per batch, the batches shared out among the connections. */
  const insert = async (from, to, onBatch) => {
    let next = from;
    await Promise.all(
      clients.map(async (client) => {
        while (next < to) {
          const a = next;
          const b = Math.min(to, a + batchRuns);
          next = b;
          const params = [a, b, firstStart, spacingMs, templates];
          await client.query('BEGIN');
          await client.query(CLONE_RUNS, params);
          await client.query(CLONE_TASKS, params);
          await client.query(CLONE_LATEST, params);
          await client.query('COMMIT');
          onBatch(b - a);
        }
      }),
    );
  };

  return {
    templates,
    /**
     * Adds clones from..to-1 (clone numbers); onProgress(runsAdded) after each vacuum. Vacuuming
     * as the history grows, while its new pages are still cached, is what autovacuum's insert
     * threshold does, and far cheaper than one vacuum reading the whole history back from disk.
     */
    async grow(from, to, onProgress = () => {}) {
      let added = 0;
      for (let a = from; a < to; a += vacuumEveryRuns) {
        await insert(a, Math.min(to, a + vacuumEveryRuns), (n) => (added += n));
        await eachTable((table) => `VACUUM ${table}`);
        onProgress(added);
      }
    },
    /**
     * Statistics for the grown tables, as autovacuum's analyze would have gathered them, then a
     * checkpoint, so that the seed's dirty pages are not written out while a measurement runs.
     */
    async settle() {
      await eachTable((table) => `VACUUM (ANALYZE) ${table}`);
      await first.query('CHECKPOINT');
    },
    async close() {
      await Promise.all(clients.map((client) => client.end()));
    },
  };
}
