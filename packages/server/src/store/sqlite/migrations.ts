import type { Migration } from '../sql-common.js';

/**
 * SQLite schema, forward-only. Never edit a released entry: add the next version.
 * STRICT tables; times are epoch milliseconds in INTEGER; JSON is TEXT; ids are UUIDv7 text.
 */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'init',
    sql: `
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
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id  TEXT    NOT NULL UNIQUE,
  workflow_id TEXT    NOT NULL,
  payload     TEXT    NOT NULL,
  received_at INTEGER NOT NULL
) STRICT;
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
  window_start INTEGER NOT NULL DEFAULT 0,
  window_count INTEGER NOT NULL DEFAULT 0
) STRICT;
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
-- is repeated word for word in the query (sqlite-decide-set.ts), or the index is not used.
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
  {
    version: 6,
    name: 'auth',
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
];
