import { type DialectSteps, migrationsFor } from '../store/schema-steps.js';
import { INITIAL_SCHEMA } from './initial-schema.js';

/**
 * The PostgreSQL SQL of each schema step, keyed by the step's name in the one list both stores
 * follow (store/schema-steps.ts, which numbers the steps and declares their compatibility).
 * Times are epoch milliseconds in BIGINT; JSON is jsonb; ids are UUIDv7 text.
 */
export const POSTGRES_STEPS: DialectSteps = {
  init: { sql: INITIAL_SCHEMA },
  timers: {
    sql: `
-- Cancellation by run and by task (every ended task, every ended run).
CREATE INDEX timers_run_task ON timers (workflow_id, task_id);
CREATE INDEX timers_task ON timers (task_id) WHERE task_id IS NOT NULL;
-- Leased timers: the next time a dead node's lease lapses.
CREATE INDEX timers_claimed ON timers (claimed_until) WHERE claimed_until IS NOT NULL;
`,
  },
  'run-control': {
    sql: `
-- A run's mailbox: appended by messages and signals, taken by PULL_WORKFLOW_MESSAGES in order.
CREATE TABLE run_messages (
  seq         BIGSERIAL PRIMARY KEY,
  message_id  TEXT   NOT NULL UNIQUE,
  workflow_id TEXT   NOT NULL,
  payload     JSONB  NOT NULL,
  received_at BIGINT NOT NULL
);
CREATE INDEX run_messages_workflow ON run_messages (workflow_id, seq);
`,
  },
  task_limits: {
    sql: `
-- One row per task type with a hand-out limit: hand-outs of that type lock it, so the limit
-- check and the claim are serialised across nodes; it also keeps the rate-limit window.
CREATE TABLE task_limits (
  task_type    TEXT    PRIMARY KEY,
  window_start BIGINT  NOT NULL DEFAULT 0,
  window_count INTEGER NOT NULL DEFAULT 0
);
-- Serves the concurrentExecLimit count (tasks of a type IN_PROGRESS) with one small index seek.
CREATE INDEX tasks_in_progress_type ON tasks (task_type) WHERE status = 'IN_PROGRESS';
`,
  },
  'decide-set': {
    sql: `
-- The decide set (ARCHITECTURE.md): what a decision loads instead of every task of the run.
-- Tasks the interpreter may still act on (open, or ended and not yet acted on). The condition
-- is repeated word for word in the query (decide-set.ts), so the planner matches the index.
CREATE INDEX tasks_to_decide ON tasks (workflow_id, seq)
  WHERE (status IN ('SCHEDULED', 'IN_PROGRESS') OR (record->>'executed') = 'false');
-- The latest task (highest seq) of every expression-document name (ref without loop suffixes).
CREATE TABLE task_latest (
  workflow_id TEXT    NOT NULL,
  name        TEXT    NOT NULL,
  seq         INTEGER NOT NULL,
  task_id     TEXT    NOT NULL,
  PRIMARY KEY (workflow_id, name)
);
-- Backfill: a ref loses its trailing __N groups when the task has an iteration (documentRefOf).
INSERT INTO task_latest (workflow_id, name, seq, task_id)
  SELECT DISTINCT ON (workflow_id, name) workflow_id, name, seq, task_id
    FROM (SELECT workflow_id, seq, task_id,
                 CASE WHEN (record->>'iteration')::int > 0
                      THEN regexp_replace(reference_task_name, '(__[0-9]+)+$', '')
                      ELSE reference_task_name END AS name
            FROM tasks) AS t
    ORDER BY workflow_id, name, seq DESC;
`,
  },
  'hot-path': {
    sql: `
-- Writes that must touch an exact number of rows say so in SQL, so that a batch of deferred
-- writes sent with COMMIT (write-behind.ts) fails before the COMMIT instead of after it.
CREATE FUNCTION baton_expect_rows(actual BIGINT, expected BIGINT, message TEXT) RETURNS BIGINT
LANGUAGE plpgsql AS $fn$
BEGIN
  IF actual <> expected THEN
    RAISE EXCEPTION USING MESSAGE = message, ERRCODE = 'P0001';
  END IF;
  RETURN actual;
END
$fn$;
-- A counter of task definition changes, read with the run lock: a node keeps the definitions it
-- read and reuses them while the counter stands still (task-def-cache.ts), instead of reading
-- them in every decision.
CREATE TABLE task_defs_version (
  one     BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
  version BIGINT  NOT NULL
);
INSERT INTO task_defs_version (one, version) VALUES (TRUE, 0);
CREATE FUNCTION baton_task_defs_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE task_defs_version SET version = version + 1;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER task_defs_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON task_defs
  FOR EACH STATEMENT EXECUTE FUNCTION baton_task_defs_changed();
`,
  },
  integrations: {
    sql: `
-- Secrets: values sealed with AES-256-GCM under BATON_SECRETS_KEY before they reach the store
-- (the store never sees plain text); key_id says which key sealed a row.
CREATE TABLE secrets (
  name        TEXT    PRIMARY KEY,
  sealed      TEXT    NOT NULL,
  key_id      TEXT    NOT NULL,
  create_time BIGINT  NOT NULL,
  update_time BIGINT  NOT NULL
);
-- The service registry: MCP action services, OpenAPI connectors, document-analysis services.
-- Credentials in a record are secret names, never values.
CREATE TABLE services (
  name        TEXT    PRIMARY KEY,
  record      JSONB   NOT NULL,
  create_time BIGINT  NOT NULL,
  update_time BIGINT  NOT NULL
);
`,
  },
  'events-schedules-instructions': {
    sql: `
-- Event handlers (Conductor's EventHandler), whole JSON in handler; the columns are what lookups use.
CREATE TABLE event_handlers (
  name        TEXT    NOT NULL PRIMARY KEY,
  event       TEXT    NOT NULL,
  active      INTEGER NOT NULL,
  handler     TEXT    NOT NULL,
  create_time BIGINT  NOT NULL,
  update_time BIGINT  NOT NULL
);
-- Change counters that nodes poll to pick up changes made on other nodes (event handlers).
CREATE TABLE change_counters (
  name    TEXT   NOT NULL PRIMARY KEY,
  version BIGINT NOT NULL
);
INSERT INTO change_counters (name, version) VALUES ('event_handlers', 0);
-- The inbox: one row per message a consumer has acted on (same transaction as its effects), so a
-- redelivered message is recognised and produces nothing new.
CREATE TABLE event_inbox (
  source      TEXT   NOT NULL,
  message_id  TEXT   NOT NULL,
  received_at BIGINT NOT NULL,
  PRIMARY KEY (source, message_id)
);
CREATE INDEX event_inbox_received ON event_inbox (received_at);
-- What each handler did with each message (Conductor's EventExecution), one row per action.
CREATE TABLE event_executions (
  id          TEXT   NOT NULL PRIMARY KEY,
  handler     TEXT   NOT NULL,
  message_id  TEXT   NOT NULL,
  created     BIGINT NOT NULL,
  record      TEXT   NOT NULL
);
CREATE INDEX event_executions_handler ON event_executions (handler, created DESC, id);
CREATE INDEX event_executions_created ON event_executions (created);
-- The outbox: events written in the transaction of the change they describe, relayed after commit
-- in seq order (one relay at a time: outbox_relay holds its lease).
CREATE TABLE outbox (
  seq         BIGSERIAL PRIMARY KEY,
  sink        TEXT   NOT NULL,
  message_id  TEXT   NOT NULL,
  payload     TEXT   NOT NULL,
  created_at  BIGINT NOT NULL
);
CREATE TABLE outbox_relay (
  name         TEXT   NOT NULL PRIMARY KEY,
  holder       TEXT   NOT NULL,
  lease_until  BIGINT NOT NULL
);
-- Schedules (Conductor's WorkflowSchedule), whole JSON in record.
CREATE TABLE schedules (
  name          TEXT    NOT NULL PRIMARY KEY,
  workflow_name TEXT    NOT NULL,
  paused        INTEGER NOT NULL,
  record        TEXT    NOT NULL,
  create_time   BIGINT  NOT NULL,
  update_time   BIGINT  NOT NULL
);
-- One row per slot of a schedule: the unique (schedule_name, scheduled_time) claims the slot, in
-- the transaction that starts its run, so a slot starts one run across all nodes.
CREATE TABLE schedule_executions (
  execution_id   TEXT   NOT NULL PRIMARY KEY,
  schedule_name  TEXT   NOT NULL,
  scheduled_time BIGINT NOT NULL,
  execution_time BIGINT NOT NULL,
  state          TEXT   NOT NULL,
  record         TEXT   NOT NULL,
  UNIQUE (schedule_name, scheduled_time)
);
CREATE INDEX schedule_executions_time ON schedule_executions (execution_time DESC, execution_id);
-- Named, versioned instruction texts.
CREATE TABLE instructions (
  name         TEXT    NOT NULL,
  version      INTEGER NOT NULL,
  text         TEXT    NOT NULL,
  content_type TEXT    NOT NULL,
  create_time  BIGINT  NOT NULL,
  PRIMARY KEY (name, version)
);
`,
  },
  'search-and-archive': {
    sql: `
-- Task search (GET /api/tasks/search) served from indexes: by type, status and run name, each
-- ordered by update time so the default sort walks the index and stops at the page, and by
-- start time. (By run: tasks_workflow_seq.) Each index costs every task write an entry, so a
-- search without any of these filters scans instead of adding one more.
CREATE INDEX tasks_search_type ON tasks (task_type, update_time);
CREATE INDEX tasks_search_status ON tasks (status, update_time);
CREATE INDEX tasks_search_workflow_type ON tasks ((record->>'workflowType'), update_time);
CREATE INDEX tasks_search_start ON tasks (((record->>'startTime')::bigint));
-- Runs due for the archive: ended ones, by end time.
CREATE INDEX runs_ended ON runs (end_time) WHERE end_time > 0;
-- The archive's index: one slim row per run moved to blob storage, searchable like runs.
CREATE TABLE archived_runs (
  workflow_id        TEXT    PRIMARY KEY,
  workflow_name      TEXT    NOT NULL,
  workflow_version   INTEGER NOT NULL,
  status             TEXT    NOT NULL,
  correlation_id     TEXT,
  priority           INTEGER NOT NULL DEFAULT 0,
  parent_workflow_id TEXT,
  create_time        BIGINT  NOT NULL,
  update_time        BIGINT  NOT NULL,
  end_time           BIGINT  NOT NULL,
  links              JSONB   NOT NULL,
  blob_key           TEXT    NOT NULL,
  blob_sha256        TEXT    NOT NULL,
  archived_at        BIGINT  NOT NULL
);
CREATE INDEX archived_runs_name_create ON archived_runs (workflow_name, create_time);
CREATE INDEX archived_runs_status_create ON archived_runs (status, create_time);
CREATE INDEX archived_runs_correlation ON archived_runs (correlation_id, workflow_name) WHERE correlation_id IS NOT NULL;
CREATE INDEX archived_runs_create ON archived_runs (create_time);
-- A run an archiver is moving: other archivers leave it alone until the lease lapses.
CREATE TABLE archive_claims (
  workflow_id   TEXT   PRIMARY KEY,
  node          TEXT   NOT NULL,
  claimed_until BIGINT NOT NULL
);
`,
  },
  auth: {
    sql: `
-- Authentication records (applications, access keys, the token signing key) as JSON documents
-- keyed by kind and id: few rows, read by id, so one small table serves them all.
CREATE TABLE auth_records (
  kind        TEXT   NOT NULL,
  id          TEXT   NOT NULL,
  doc         JSONB  NOT NULL,
  create_time BIGINT NOT NULL,
  update_time BIGINT NOT NULL,
  PRIMARY KEY (kind, id)
);
-- Operator actions on a run (pause, retry, terminate, ...): who, what, when.
CREATE TABLE run_actions (
  seq         BIGSERIAL PRIMARY KEY,
  workflow_id TEXT   NOT NULL,
  action      TEXT   NOT NULL,
  actor       TEXT   NOT NULL,
  at          BIGINT NOT NULL,
  detail      JSONB
);
CREATE INDEX run_actions_workflow ON run_actions (workflow_id, seq);
`,
  },
  'lock-is-response-deadline': {
    sql: `
-- A message's lock is its response deadline: the timer loop sweeps lapsed locks (queue_messages_locked)
-- instead of one RESPONSE_TIMEOUT timer row armed and deleted per hand-out, and the claim never takes a
-- locked message (a lapsed one is timed out by the sweep, never handed to a second worker).
-- An IN_PROGRESS task's message put back unlocked, due when its response window ends (an earlier
-- release's restore), is locked until then, so the sweep times it out as its timer would have.
UPDATE queue_messages AS m SET locked_until = m.visible_at, lock_token = 'restored'
  FROM tasks AS t
  WHERE t.task_id = m.task_id AND t.status = 'IN_PROGRESS' AND m.locked_until IS NULL AND NOT m.dead_lettered;
DELETE FROM timers WHERE kind = 'RESPONSE_TIMEOUT';
-- Only unlocked messages are claimed or wait for a poll: locked ones leave these indexes.
DROP INDEX queue_messages_claim;
CREATE INDEX queue_messages_claim ON queue_messages (queue_name, priority DESC, visible_at, task_id)
  WHERE NOT dead_lettered AND locked_until IS NULL;
DROP INDEX queue_messages_visible;
CREATE INDEX queue_messages_visible ON queue_messages (queue_name, visible_at)
  WHERE NOT dead_lettered AND locked_until IS NULL;
CREATE INDEX queue_messages_locked ON queue_messages (locked_until)
  WHERE NOT dead_lettered AND locked_until IS NOT NULL;
`,
  },
  'run-free-text-index': {
    sql: `
-- Free-text run search by words (correlation id, name, reason, input and output JSON) and by id
-- prefix, from indexes. search_text is written when a run is made and when it ends, never on a
-- step in between (its value then stays, so a step's update keeps the row's index entries).
ALTER TABLE runs ADD COLUMN search_text TEXT;
UPDATE runs SET search_text = left(concat_ws(' ', correlation_id, workflow_name, record->>'reasonForIncompletion',
  (record->'input')::text, (record->'output')::text), 16384);
CREATE INDEX runs_search_words ON runs USING gin (to_tsvector('simple', search_text)) WHERE search_text IS NOT NULL;
-- In the C collation, so a LIKE prefix can read it while an equality on the id (the run lock,
-- every read by id) keeps to the primary key: a pattern-ops index in the default collation won
-- the plan of the run lock.
CREATE INDEX runs_id_prefix ON runs (workflow_id COLLATE "C");
`,
  },
  'schema-compatibility': {
    sql: `
-- Rolling upgrades: each step records the oldest schema whose code keeps working with it, so a
-- node of an earlier release can tell whether it may start on a newer schema (schema-versions.ts).
-- Expand-only: a nullable column that no earlier release reads or writes.
ALTER TABLE schema_migrations ADD COLUMN compatible_from INTEGER;
-- The steps before this one declared nothing: each needs a node that knows it.
UPDATE schema_migrations SET compatible_from = version;
`,
  },
  'storage-per-step': {
    sql: `
-- The free-text index takes its entries at once instead of through a pending list: a run adds its
-- words twice (made, ended), and the pending list left the index at about 120 bytes per step of
-- the benchmark's workflow where merged entries take under 20 (docs/benchmarks.md, stored bytes).
ALTER INDEX runs_search_words SET (fastupdate = off);
`,
  },
  'compact-rows': {
    none: 'PostgreSQL nodes of the previous release may share the database during a rolling upgrade and read task records and run definitions whole: the compact rows ship there as a later contract step, once no running node reads the whole shape',
  },
  'packed-task-records': {
    none: 'task records are stored whole on PostgreSQL (see compact-rows); packing them follows the compact shape there',
  },
  'task-record-shape': {
    sql: `
-- Packed task records (store-postgres/record-shape.ts): a task row's record keeps in clear only what
-- SQL reads from it, and packed holds the rest, compressed. Which shape a node writes is the
-- database's setting: whole on a database upgraded from an earlier release, whose nodes may still
-- be running and read records whole, until the operator switches it; a database this step creates
-- is set to packed by the node that creates it. Both shapes read the same.
CREATE TABLE store_settings (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO store_settings (name, value) VALUES ('task_records', 'whole');
ALTER TABLE tasks ADD COLUMN packed BYTEA;
`,
  },
  'queue-claim-index-only': {
    sql: `
-- The claim walks queue_messages_claim in its order and stops at its LIMIT. queue_messages_visible
-- (for the earliest time a message becomes visible) matched the claim's conditions too, and with
-- statistics that lag a burst of enqueues (the planner believing a queue holds a row or two) it
-- was taken for the claim, which then read and sorted the whole queue: 40 to 60 ms a poll with
-- 100,000 messages waiting. The next-visible query now reads the claim's index as well (one seek
-- per priority the queue uses), so the claim's index is the queue's only one: no statistics can
-- lead the planner to another, and a message no longer writes a second index entry. Nodes of the
-- earlier release read the claim's index for their next-visible query, or the table.
DROP INDEX queue_messages_visible;
`,
  },
  'run-search-pending-list': {
    sql: `
-- The free-text index takes a run's words through a pending list again, now a bounded one. Without
-- it (storage-per-step) every word of a run, at its start and at its end, was an insert into the
-- GIN tree, and a word most runs share (a key of their input) rewrote a segment of its posting tree
-- in the WAL each time: over half of the WAL a step wrote, growing with history (3.4 KB a step with
-- 500 runs stored, 5.2 KB with 800; docs/PERFORMANCE.md, "Built: the free-text index's words go in
-- batches"). Through the list, the inserting transaction appends the entries and, once the list
-- passes 64 kB, merges them into the tree, each word's posting list once per merge. The list never
-- holds more than about 64 kB, so it adds no bytes per step, only a constant; a search still reads
-- it, so a run is found by its words as soon as it commits.
ALTER INDEX runs_search_words SET (fastupdate = on, gin_pending_list_limit = 64);
`,
  },
  'latest-by-name-on-repeat': {
    sql: `
-- Which task_latest rows a node writes (store-postgres/latest-by-name.ts) is the database's
-- setting: every-task, as every earlier release writes them, on a database upgraded from one,
-- whose nodes may still be running and write a run only the rows of the tasks they write, until
-- the operator switches it; on-repeat on a database this step creates, set by the node that
-- creates it: a run keeps rows only once a name of it has had a second task, and then for every
-- name, and until then the decide set is every task of the run.
INSERT INTO store_settings (name, value) VALUES ('latest_by_name', 'every-task');
`,
  },
  'compact-run-rows': {
    sql: `
-- Compact run rows (store-postgres/run-rows.ts): the record without what the row's columns hold,
-- and the definition snapshot once per distinct JSON text, keyed by its SHA-256, the run row
-- holding the digest (store-postgres/run-definitions.ts). Which shape a node writes is the
-- database's setting: whole, as every earlier release writes and reads it, on a database upgraded
-- from one, until the operator switches; compact on a database this step creates, set by the node
-- that creates it. Reads take either, row by row, so rows written before the switch read as they did.
CREATE TABLE run_definitions (
  digest     BYTEA PRIMARY KEY,
  definition JSONB NOT NULL
);
ALTER TABLE runs ADD COLUMN definition_digest BYTEA;
ALTER TABLE runs ALTER COLUMN definition DROP NOT NULL;
INSERT INTO store_settings (name, value) VALUES ('run_rows', 'whole');
`,
  },
  'run-definition-pruning': {
    sql: `
-- Definition snapshots no run refers to any more are deleted once they have been unused for a while
-- (archive/definition-pruner.ts, store-postgres/run-definitions.ts): the index finds whether a run
-- still refers to one, and unused_since is when a pass first found none did.
ALTER TABLE run_definitions ADD COLUMN unused_since BIGINT;
CREATE INDEX runs_definition_digest ON runs (definition_digest) WHERE definition_digest IS NOT NULL;
`,
  },
  'idempotency-keys-by-run': {
    sql: `
-- A run removed for good takes its idempotency key with it (store-postgres/archive.ts deleteRunTraces): the key is
-- found by the run's id, where the primary key starts with the definition's name.
CREATE INDEX idempotency_keys_workflow ON idempotency_keys (workflow_id);
`,
  },
  'embedded-latest-by-name-on-repeat': {
    none: 'PostgreSQL has kept task_latest rows only for runs that repeat a name since latest-by-name-on-repeat, behind its database setting',
  },
};

/** The PostgreSQL migrations, numbered as PostgreSQL databases record them. */
export const POSTGRES_MIGRATIONS = migrationsFor('postgres', POSTGRES_STEPS);
