import { type DialectSteps, migrationsFor } from '../store/schema-steps.js';
import { INITIAL_SCHEMA } from './initial-schema.js';

/**
 * The SQLite SQL of each schema step, keyed by the step's name in the one list both stores
 * follow (store/schema-steps.ts, which numbers the steps and declares their compatibility).
 * STRICT tables; times are epoch milliseconds in INTEGER; JSON is TEXT; ids are UUIDv7 text.
 */
export const SQLITE_STEPS: DialectSteps = {
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
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id  TEXT    NOT NULL UNIQUE,
  workflow_id TEXT    NOT NULL,
  payload     TEXT    NOT NULL,
  received_at INTEGER NOT NULL
) STRICT;
CREATE INDEX run_messages_workflow ON run_messages (workflow_id, seq);
`,
  },
  task_limits: {
    sql: `
-- One row per task type with a hand-out limit: hand-outs of that type lock it, so the limit
-- check and the claim are serialised across nodes; it also keeps the rate-limit window.
CREATE TABLE task_limits (
  task_type    TEXT    PRIMARY KEY,
  window_start INTEGER NOT NULL DEFAULT 0,
  window_count INTEGER NOT NULL DEFAULT 0
) STRICT;
-- Serves the concurrentExecLimit count (tasks of a type IN_PROGRESS) with one small index seek.
CREATE INDEX tasks_in_progress_type ON tasks (task_type) WHERE status = 'IN_PROGRESS';
`,
  },
  'decide-set': {
    sql: `
-- The decide set (ARCHITECTURE.md): what a decision loads instead of every task of the run.
-- Tasks the interpreter may still act on (open, or ended and not yet acted on). The condition
-- is repeated word for word in the query (decide-set.ts), or the index is not used.
CREATE INDEX tasks_to_decide ON tasks (workflow_id, seq)
  WHERE (status IN ('SCHEDULED', 'IN_PROGRESS') OR json_extract(record, '$.executed') = 0);
-- The latest task (highest seq) of every expression-document name (ref without loop suffixes).
CREATE TABLE task_latest (
  workflow_id TEXT    NOT NULL,
  name        TEXT    NOT NULL,
  seq         INTEGER NOT NULL,
  task_id     TEXT    NOT NULL,
  PRIMARY KEY (workflow_id, name)
) STRICT;
-- Backfill: a ref loses its trailing __N groups when the task has an iteration (documentRefOf).
WITH RECURSIVE names (task_id, name) AS (
  SELECT task_id, reference_task_name FROM tasks
  UNION ALL
  SELECT n.task_id, substr(rtrim(n.name, '0123456789'), 1, length(rtrim(n.name, '0123456789')) - 2)
    FROM names n JOIN tasks t ON t.task_id = n.task_id
    WHERE json_extract(t.record, '$.iteration') > 0
      AND rtrim(n.name, '0123456789') <> n.name
      AND substr(rtrim(n.name, '0123456789'), -2) = '__'
),
stripped AS (
  SELECT t.workflow_id, t.seq, t.task_id, (SELECT name FROM names n WHERE n.task_id = t.task_id ORDER BY length(name) LIMIT 1) AS name
    FROM tasks t
)
INSERT INTO task_latest (workflow_id, name, seq, task_id)
  SELECT workflow_id, name, MAX(seq), task_id FROM stripped GROUP BY workflow_id, name;
`,
  },
  'hot-path': {
    none: 'nothing to do: the write-behind guard and the task definitions counter serve PostgreSQL round trips',
  },
  integrations: {
    sql: `
-- Secrets: values sealed with AES-256-GCM under BATON_SECRETS_KEY before they reach the store
-- (the store never sees plain text); key_id says which key sealed a row.
CREATE TABLE secrets (
  name        TEXT    PRIMARY KEY,
  sealed      TEXT    NOT NULL,
  key_id      TEXT    NOT NULL,
  create_time INTEGER NOT NULL,
  update_time INTEGER NOT NULL
) STRICT;
-- The service registry: MCP action services, OpenAPI connectors, document-analysis services.
-- Credentials in a record are secret names, never values.
CREATE TABLE services (
  name        TEXT    PRIMARY KEY,
  record      TEXT    NOT NULL,
  create_time INTEGER NOT NULL,
  update_time INTEGER NOT NULL
) STRICT;
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
  create_time INTEGER  NOT NULL,
  update_time INTEGER  NOT NULL
) STRICT;
-- Change counters that nodes poll to pick up changes made on other nodes (event handlers).
CREATE TABLE change_counters (
  name    TEXT   NOT NULL PRIMARY KEY,
  version INTEGER NOT NULL
) STRICT;
INSERT INTO change_counters (name, version) VALUES ('event_handlers', 0);
-- The inbox: one row per message a consumer has acted on (same transaction as its effects), so a
-- redelivered message is recognised and produces nothing new.
CREATE TABLE event_inbox (
  source      TEXT   NOT NULL,
  message_id  TEXT   NOT NULL,
  received_at INTEGER NOT NULL,
  PRIMARY KEY (source, message_id)
) STRICT;
CREATE INDEX event_inbox_received ON event_inbox (received_at);
-- What each handler did with each message (Conductor's EventExecution), one row per action.
CREATE TABLE event_executions (
  id          TEXT   NOT NULL PRIMARY KEY,
  handler     TEXT   NOT NULL,
  message_id  TEXT   NOT NULL,
  created     INTEGER NOT NULL,
  record      TEXT   NOT NULL
) STRICT;
CREATE INDEX event_executions_handler ON event_executions (handler, created DESC, id);
CREATE INDEX event_executions_created ON event_executions (created);
-- The outbox: events written in the transaction of the change they describe, relayed after commit
-- in seq order (one relay at a time: outbox_relay holds its lease).
CREATE TABLE outbox (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  sink        TEXT   NOT NULL,
  message_id  TEXT   NOT NULL,
  payload     TEXT   NOT NULL,
  created_at  INTEGER NOT NULL
) STRICT;
CREATE TABLE outbox_relay (
  name         TEXT   NOT NULL PRIMARY KEY,
  holder       TEXT   NOT NULL,
  lease_until  INTEGER NOT NULL
) STRICT;
-- Schedules (Conductor's WorkflowSchedule), whole JSON in record.
CREATE TABLE schedules (
  name          TEXT    NOT NULL PRIMARY KEY,
  workflow_name TEXT    NOT NULL,
  paused        INTEGER NOT NULL,
  record        TEXT    NOT NULL,
  create_time   INTEGER  NOT NULL,
  update_time   INTEGER  NOT NULL
) STRICT;
-- One row per slot of a schedule: the unique (schedule_name, scheduled_time) claims the slot, in
-- the transaction that starts its run, so a slot starts one run across all nodes.
CREATE TABLE schedule_executions (
  execution_id   TEXT   NOT NULL PRIMARY KEY,
  schedule_name  TEXT   NOT NULL,
  scheduled_time INTEGER NOT NULL,
  execution_time INTEGER NOT NULL,
  state          TEXT   NOT NULL,
  record         TEXT   NOT NULL,
  UNIQUE (schedule_name, scheduled_time)
) STRICT;
CREATE INDEX schedule_executions_time ON schedule_executions (execution_time DESC, execution_id);
-- Named, versioned instruction texts.
CREATE TABLE instructions (
  name         TEXT    NOT NULL,
  version      INTEGER NOT NULL,
  text         TEXT    NOT NULL,
  content_type TEXT    NOT NULL,
  create_time  INTEGER  NOT NULL,
  PRIMARY KEY (name, version)
) STRICT;
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
CREATE INDEX tasks_search_workflow_type ON tasks (json_extract(record, '$.workflowType'), update_time);
CREATE INDEX tasks_search_start ON tasks (json_extract(record, '$.startTime'));
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
  create_time        INTEGER NOT NULL,
  update_time        INTEGER NOT NULL,
  end_time           INTEGER NOT NULL,
  links              TEXT    NOT NULL,
  blob_key           TEXT    NOT NULL,
  blob_sha256        TEXT    NOT NULL,
  archived_at        INTEGER NOT NULL
) STRICT;
CREATE INDEX archived_runs_name_create ON archived_runs (workflow_name, create_time);
CREATE INDEX archived_runs_status_create ON archived_runs (status, create_time);
CREATE INDEX archived_runs_correlation ON archived_runs (correlation_id, workflow_name) WHERE correlation_id IS NOT NULL;
CREATE INDEX archived_runs_create ON archived_runs (create_time);
-- A run an archiver is moving: other archivers leave it alone until the lease lapses.
CREATE TABLE archive_claims (
  workflow_id   TEXT    PRIMARY KEY,
  node          TEXT    NOT NULL,
  claimed_until INTEGER NOT NULL
) STRICT;
`,
  },
  auth: {
    sql: `
-- Authentication records (applications, access keys, the token signing key) as JSON documents
-- keyed by kind and id: few rows, read by id, so one small table serves them all.
CREATE TABLE auth_records (
  kind        TEXT    NOT NULL,
  id          TEXT    NOT NULL,
  doc         TEXT    NOT NULL,
  create_time INTEGER NOT NULL,
  update_time INTEGER NOT NULL,
  PRIMARY KEY (kind, id)
) STRICT;
-- Operator actions on a run (pause, retry, terminate, ...): who, what, when.
CREATE TABLE run_actions (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id TEXT    NOT NULL,
  action      TEXT    NOT NULL,
  actor       TEXT    NOT NULL,
  at          INTEGER NOT NULL,
  detail      TEXT
) STRICT;
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
UPDATE queue_messages SET locked_until = visible_at, lock_token = 'restored'
  WHERE locked_until IS NULL AND dead_lettered = 0
    AND task_id IN (SELECT task_id FROM tasks WHERE status = 'IN_PROGRESS');
DELETE FROM timers WHERE kind = 'RESPONSE_TIMEOUT';
-- Only unlocked messages are claimed or wait for a poll: locked ones leave these indexes.
DROP INDEX queue_messages_claim;
CREATE INDEX queue_messages_claim ON queue_messages (queue_name, priority DESC, visible_at, task_id)
  WHERE dead_lettered = 0 AND locked_until IS NULL;
DROP INDEX queue_messages_visible;
CREATE INDEX queue_messages_visible ON queue_messages (queue_name, visible_at)
  WHERE dead_lettered = 0 AND locked_until IS NULL;
CREATE INDEX queue_messages_locked ON queue_messages (locked_until)
  WHERE dead_lettered = 0 AND locked_until IS NOT NULL;
`,
  },
  'run-free-text-index': {
    // The delete trigger only keeps the new index in step when any node removes a run: older code
    // neither reads nor writes run_search, and its deletes of runs succeed as before.
    reviewedStatements: 'an AFTER DELETE trigger that deletes from run_search only',
    sql: `
-- Free-text run search by words (correlation id, name, reason, input and output JSON) from an FTS5
-- index, and by id prefix from the primary key. The index row is written when a run is made and
-- when it ends, never on a step in between; runs.search_rowid names it (FTS5 rowids are stable), and it
-- names its run, so a match reaches the run through the primary key.
CREATE VIRTUAL TABLE run_search USING fts5(workflow_id UNINDEXED, body, tokenize = 'unicode61');
ALTER TABLE runs ADD COLUMN search_rowid INTEGER;
INSERT INTO run_search (rowid, workflow_id, body)
  SELECT rowid, workflow_id, substr(concat_ws(' ', correlation_id, workflow_name, json_extract(record, '$.reasonForIncompletion'),
    json_extract(record, '$.input'), json_extract(record, '$.output')), 1, 16384) FROM runs;
UPDATE runs SET search_rowid = rowid;
CREATE TRIGGER runs_search_delete AFTER DELETE ON runs WHEN old.search_rowid IS NOT NULL
BEGIN
  DELETE FROM run_search WHERE rowid = old.search_rowid;
END;
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
    none: 'nothing to do: the step sets a PostgreSQL index option (the free-text index of runs is FTS5 here)',
  },
  'compact-rows': {
    sql: `
-- Task records stored compact (store/task-record-storage.ts): without the fields the row keeps in
-- columns, and without a required field while it holds its usual value. Reads restore both, so
-- this only rewrites what older code would read whole: an older release refuses this schema
-- (one process owns an SQLite database, so no older node shares it while it migrates).
UPDATE tasks SET record = json_remove(record, '$.taskId', '$.workflowInstanceId', '$.seq', '$.status',
  '$.referenceTaskName', '$.taskType', '$.updateTime');
UPDATE tasks SET record = json_remove(record, '$.taskDefName') WHERE json_extract(record, '$.taskDefName') = task_type;
UPDATE tasks SET record = json_remove(record, '$.retryCount') WHERE json_type(record, '$.retryCount') = 'integer' AND json_extract(record, '$.retryCount') = 0;
UPDATE tasks SET record = json_remove(record, '$.pollCount') WHERE json_type(record, '$.pollCount') = 'integer' AND json_extract(record, '$.pollCount') = 0;
UPDATE tasks SET record = json_remove(record, '$.startDelayInSeconds') WHERE json_type(record, '$.startDelayInSeconds') = 'integer' AND json_extract(record, '$.startDelayInSeconds') = 0;
UPDATE tasks SET record = json_remove(record, '$.callbackAfterSeconds') WHERE json_type(record, '$.callbackAfterSeconds') = 'integer' AND json_extract(record, '$.callbackAfterSeconds') = 0;
UPDATE tasks SET record = json_remove(record, '$.workflowPriority') WHERE json_type(record, '$.workflowPriority') = 'integer' AND json_extract(record, '$.workflowPriority') = 0;
UPDATE tasks SET record = json_remove(record, '$.iteration') WHERE json_type(record, '$.iteration') = 'integer' AND json_extract(record, '$.iteration') = 0;
UPDATE tasks SET record = json_remove(record, '$.retried') WHERE json_type(record, '$.retried') = 'false';
UPDATE tasks SET record = json_remove(record, '$.executed') WHERE json_type(record, '$.executed') = 'true';
-- The decide set's latest-task table is only ever read and written by its key: WITHOUT ROWID
-- keeps each row once, in the key's own b-tree, instead of in the table and again in the index.
CREATE TABLE task_latest_new (
  workflow_id TEXT    NOT NULL,
  name        TEXT    NOT NULL,
  seq         INTEGER NOT NULL,
  task_id     TEXT    NOT NULL,
  PRIMARY KEY (workflow_id, name)
) STRICT, WITHOUT ROWID;
INSERT INTO task_latest_new (workflow_id, name, seq, task_id) SELECT workflow_id, name, seq, task_id FROM task_latest;
DROP TABLE task_latest;
ALTER TABLE task_latest_new RENAME TO task_latest;
-- A run's definition snapshot once per distinct text: runs of one definition (nearly all of them)
-- share its row, and runs.definition names it as '#<id>' (sql.ts RUN_COLUMNS). Rows are never
-- deleted: there is one per definition text ever run, and the archive reads them back.
CREATE TABLE IF NOT EXISTS run_definitions (
  id         INTEGER PRIMARY KEY,
  definition TEXT    NOT NULL UNIQUE
) STRICT;
INSERT INTO run_definitions (definition) SELECT DISTINCT definition FROM runs WHERE substr(definition, 1, 1) <> '#';
UPDATE runs SET definition = '#' || (SELECT d.id FROM run_definitions AS d WHERE d.definition = runs.definition)
  WHERE substr(definition, 1, 1) <> '#';
`,
  },
  'packed-task-records': {
    sql: `
-- A task record keeps in clear only what an index reads (workflowType, startTime, executed while false)
-- and packs the rest, compressed, into this column (store/task-record-storage.ts, record-codec.ts).
-- Rows written before keep their whole records and read as they did. An older release cannot read
-- a packed row, so it refuses this schema (one process owns an SQLite database: none shares it).
ALTER TABLE tasks ADD COLUMN packed BLOB;
`,
  },
  'task-record-shape': {
    none: 'an SQLite database packs its task records since packed-task-records: one process owns it, so no earlier release shares it and there is no shape to choose',
  },
  'queue-claim-index-only': {
    none: 'SQLite statements name the index they take (INDEXED BY in store-sqlite/queue.ts and sql.ts): its planner, which keeps no statistics, cannot be led to another, so its next-visible index stays',
  },
  'run-search-pending-list': {
    none: "SQLite's free-text index is an FTS5 table (run_search), which already writes a transaction's words as a small segment and merges segments in bulk",
  },
  'latest-by-name-on-repeat': {
    none: 'SQLite keeps a task_latest row for every task it writes, as before: its rows live once, in the key b-tree (WITHOUT ROWID), and one embedded node never shares its file with an earlier release',
  },
  'compact-run-rows': {
    none: 'SQLite has kept a run definition once per distinct text since its compact-rows step (run_definitions, the run holding #<id>); its run records stay whole, as text, under a kilobyte a step already',
  },
  'run-definition-pruning': {
    sql: `
-- Definition snapshots no run refers to any more are deleted once they have been unused for a while
-- (archive/definition-pruner.ts, store-sqlite/run-definitions.ts): the index finds whether a run
-- still refers to one ('#<id>' in runs.definition since compact-rows), and unused_since is when a
-- pass first found none did.
ALTER TABLE run_definitions ADD COLUMN unused_since INTEGER;
CREATE INDEX runs_definition ON runs (definition);
`,
  },
  'idempotency-keys-by-run': {
    sql: `
-- A run removed for good takes its idempotency key with it (store-sqlite/archive.ts deleteRunTraces): the key is
-- found by the run's id, where the primary key starts with the definition's name.
CREATE INDEX idempotency_keys_workflow ON idempotency_keys (workflow_id);
`,
  },
  'embedded-latest-by-name-on-repeat': {
    sql: `
-- Nothing to change in the tables: from this step on a node writes task_latest rows only for a run
-- that gives a name a second task (store/latest-by-name.ts), and reads a run without rows whole
-- through tasks_workflow_seq (store-sqlite/decide-set.ts). The rows every run written before has
-- (one per name) keep those runs by name. An earlier release would read a run without rows as
-- having only its open tasks, so it refuses this schema (its compatibility is this step).
`,
  },
};

/** The SQLite migrations, numbered as SQLite databases record them. */
export const SQLITE_MIGRATIONS = migrationsFor('sqlite', SQLITE_STEPS);
