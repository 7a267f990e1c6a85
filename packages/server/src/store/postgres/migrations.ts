import type { Migration } from '../sql-common.js';

/**
 * PostgreSQL schema, forward-only. Never edit a released entry: add the next version.
 * Times are epoch milliseconds in BIGINT; JSON is jsonb; ids are UUIDv7 text.
 */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'init',
    sql: `
CREATE TABLE workflow_defs (
  name        TEXT    NOT NULL,
  version     INTEGER NOT NULL,
  definition  JSONB   NOT NULL,
  create_time BIGINT  NOT NULL,
  update_time BIGINT  NOT NULL,
  PRIMARY KEY (name, version)
);

CREATE TABLE task_defs (
  name        TEXT   PRIMARY KEY,
  definition  JSONB  NOT NULL,
  create_time BIGINT NOT NULL,
  update_time BIGINT NOT NULL
);

CREATE TABLE queues (
  queue_name  TEXT   PRIMARY KEY,
  create_time BIGINT NOT NULL
);

CREATE TABLE runs (
  workflow_id        TEXT    PRIMARY KEY,
  workflow_name      TEXT    NOT NULL,
  workflow_version   INTEGER NOT NULL,
  status             TEXT    NOT NULL,
  correlation_id     TEXT,
  priority           INTEGER NOT NULL DEFAULT 0,
  parent_workflow_id TEXT,
  idempotency_key    TEXT,
  create_time        BIGINT  NOT NULL,
  update_time        BIGINT  NOT NULL,
  end_time           BIGINT  NOT NULL DEFAULT 0,
  record             JSONB   NOT NULL,
  definition         JSONB   NOT NULL
);
CREATE INDEX runs_name_create ON runs (workflow_name, create_time);
CREATE INDEX runs_status_create ON runs (status, create_time);
CREATE INDEX runs_correlation ON runs (correlation_id, workflow_name) WHERE correlation_id IS NOT NULL;
CREATE INDEX runs_create ON runs (create_time);
CREATE INDEX runs_name_version ON runs (workflow_name, workflow_version);
CREATE INDEX runs_parent ON runs (parent_workflow_id) WHERE parent_workflow_id IS NOT NULL;

CREATE TABLE tasks (
  task_id             TEXT    PRIMARY KEY,
  workflow_id         TEXT    NOT NULL,
  seq                 INTEGER NOT NULL,
  reference_task_name TEXT    NOT NULL,
  task_type           TEXT    NOT NULL,
  status              TEXT    NOT NULL,
  update_time         BIGINT  NOT NULL,
  record              JSONB   NOT NULL
);
CREATE INDEX tasks_workflow_seq ON tasks (workflow_id, seq);

CREATE TABLE task_logs (
  id           BIGSERIAL PRIMARY KEY,
  task_id      TEXT   NOT NULL,
  log          TEXT   NOT NULL,
  created_time BIGINT NOT NULL
);
CREATE INDEX task_logs_task ON task_logs (task_id, id);

CREATE TABLE queue_messages (
  task_id        TEXT    PRIMARY KEY,
  queue_name     TEXT    NOT NULL,
  workflow_id    TEXT    NOT NULL,
  task_ref       TEXT    NOT NULL,
  attempt        INTEGER NOT NULL,
  priority       INTEGER NOT NULL DEFAULT 0,
  visible_at     BIGINT  NOT NULL,
  lock_ms        BIGINT  NOT NULL,
  locked_until   BIGINT,
  lock_token     TEXT,
  worker_id      TEXT,
  delivery_count INTEGER NOT NULL DEFAULT 0,
  dead_lettered  BOOLEAN NOT NULL DEFAULT FALSE,
  created_at     BIGINT  NOT NULL
);
-- Serves the claim exactly: equality on queue, then the ORDER BY, filtered on visible_at.
CREATE INDEX queue_messages_claim ON queue_messages (queue_name, priority DESC, visible_at, task_id)
  WHERE NOT dead_lettered;
-- Serves nextVisibleAt (min visible_at of a queue) without walking every in-flight message.
CREATE INDEX queue_messages_visible ON queue_messages (queue_name, visible_at) WHERE NOT dead_lettered;
CREATE INDEX queue_messages_dead ON queue_messages (queue_name) WHERE dead_lettered;

CREATE TABLE poll_data (
  queue_name     TEXT   NOT NULL,
  worker_id      TEXT   NOT NULL,
  task_type      TEXT   NOT NULL,
  domain         TEXT,
  last_poll_time BIGINT NOT NULL,
  PRIMARY KEY (queue_name, worker_id)
);
CREATE INDEX poll_data_task_type ON poll_data (task_type);

CREATE TABLE timers (
  id            TEXT   PRIMARY KEY,
  workflow_id   TEXT   NOT NULL,
  task_id       TEXT,
  kind          TEXT   NOT NULL,
  fire_at       BIGINT NOT NULL,
  payload       JSONB  NOT NULL DEFAULT '{}'::jsonb,
  claimed_until BIGINT,
  create_time   BIGINT NOT NULL
);
CREATE INDEX timers_fire_at ON timers (fire_at);

CREATE TABLE idempotency_keys (
  workflow_name   TEXT   NOT NULL,
  idempotency_key TEXT   NOT NULL,
  workflow_id     TEXT   NOT NULL,
  create_time     BIGINT NOT NULL,
  PRIMARY KEY (workflow_name, idempotency_key)
);
`,
  },
  {
    version: 2,
    name: 'timers',
    sql: `
-- Cancellation by run and by task (every ended task, every ended run).
CREATE INDEX timers_run_task ON timers (workflow_id, task_id);
CREATE INDEX timers_task ON timers (task_id) WHERE task_id IS NOT NULL;
-- Leased timers: the next time a dead node's lease lapses.
CREATE INDEX timers_claimed ON timers (claimed_until) WHERE claimed_until IS NOT NULL;
`,
  },
  {
    version: 3,
    name: 'run-control',
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
  {
    version: 4,
    name: 'task_limits',
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
  {
    version: 5,
    name: 'decide-set',
    sql: `
-- The decide set (ARCHITECTURE.md): what a decision loads instead of every task of the run.
-- Tasks the interpreter may still act on (open, or ended and not yet acted on). The condition
-- is repeated word for word in the query (pg-decide-set.ts), so the planner matches the index.
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
  {
    version: 6,
    name: 'hot-path',
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
  {
    version: 7,
    name: 'auth',
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
];
