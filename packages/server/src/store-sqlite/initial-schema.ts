/**
 * The SQLite tables of the first schema step (`init`, store/schema-steps.ts). Applied once to a new
 * database and never changed since: every later change is a step of its own (migrations.ts).
 */
export const INITIAL_SCHEMA = `
CREATE TABLE workflow_defs (
  name        TEXT    NOT NULL,
  version     INTEGER NOT NULL,
  definition  TEXT    NOT NULL,
  create_time INTEGER NOT NULL,
  update_time INTEGER NOT NULL,
  PRIMARY KEY (name, version)
) STRICT;

CREATE TABLE task_defs (
  name        TEXT   PRIMARY KEY,
  definition  TEXT   NOT NULL,
  create_time INTEGER NOT NULL,
  update_time INTEGER NOT NULL
) STRICT;

CREATE TABLE queues (
  queue_name  TEXT   PRIMARY KEY,
  create_time INTEGER NOT NULL
) STRICT;

CREATE TABLE runs (
  workflow_id        TEXT    PRIMARY KEY,
  workflow_name      TEXT    NOT NULL,
  workflow_version   INTEGER NOT NULL,
  status             TEXT    NOT NULL,
  correlation_id     TEXT,
  priority           INTEGER NOT NULL DEFAULT 0,
  parent_workflow_id TEXT,
  idempotency_key    TEXT,
  create_time        INTEGER NOT NULL,
  update_time        INTEGER NOT NULL,
  end_time           INTEGER NOT NULL DEFAULT 0,
  record             TEXT    NOT NULL,
  definition         TEXT    NOT NULL
) STRICT;
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
  update_time         INTEGER NOT NULL,
  record              TEXT    NOT NULL
) STRICT;
CREATE INDEX tasks_workflow_seq ON tasks (workflow_id, seq);

CREATE TABLE task_logs (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id      TEXT   NOT NULL,
  log          TEXT   NOT NULL,
  created_time INTEGER NOT NULL
) STRICT;
CREATE INDEX task_logs_task ON task_logs (task_id, id);

CREATE TABLE queue_messages (
  task_id        TEXT    PRIMARY KEY,
  queue_name     TEXT    NOT NULL,
  workflow_id    TEXT    NOT NULL,
  task_ref       TEXT    NOT NULL,
  attempt        INTEGER NOT NULL,
  priority       INTEGER NOT NULL DEFAULT 0,
  visible_at     INTEGER NOT NULL,
  lock_ms        INTEGER NOT NULL,
  locked_until   INTEGER,
  lock_token     TEXT,
  worker_id      TEXT,
  delivery_count INTEGER NOT NULL DEFAULT 0,
  dead_lettered  INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL
) STRICT;
-- Serves the claim exactly: equality on queue, then the ORDER BY, filtered on visible_at.
CREATE INDEX queue_messages_claim ON queue_messages (queue_name, priority DESC, visible_at, task_id)
  WHERE dead_lettered = 0;
-- Serves nextVisibleAt (min visible_at of a queue) without walking every in-flight message.
CREATE INDEX queue_messages_visible ON queue_messages (queue_name, visible_at) WHERE dead_lettered = 0;
CREATE INDEX queue_messages_dead ON queue_messages (queue_name) WHERE dead_lettered = 1;

CREATE TABLE poll_data (
  queue_name     TEXT   NOT NULL,
  worker_id      TEXT   NOT NULL,
  task_type      TEXT   NOT NULL,
  domain         TEXT,
  last_poll_time INTEGER NOT NULL,
  PRIMARY KEY (queue_name, worker_id)
) STRICT;
CREATE INDEX poll_data_task_type ON poll_data (task_type);

CREATE TABLE timers (
  id            TEXT   PRIMARY KEY,
  workflow_id   TEXT   NOT NULL,
  task_id       TEXT,
  kind          TEXT   NOT NULL,
  fire_at       INTEGER NOT NULL,
  payload       TEXT   NOT NULL DEFAULT '{}',
  claimed_until INTEGER,
  create_time   INTEGER NOT NULL
) STRICT;
CREATE INDEX timers_fire_at ON timers (fire_at);

CREATE TABLE idempotency_keys (
  workflow_name   TEXT   NOT NULL,
  idempotency_key TEXT   NOT NULL,
  workflow_id     TEXT   NOT NULL,
  create_time     INTEGER NOT NULL,
  PRIMARY KEY (workflow_name, idempotency_key)
) STRICT;
`;
