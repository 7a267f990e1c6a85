import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { TaskRecord } from '@baton/protocol';

import { openPostgresStore } from '../../src/store-postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import {
  PG_BEFORE_COMPACT_RUN_ROWS,
  SQLITE_BEFORE_DEFINITION_PRUNING,
  BEFORE_IDEMPOTENCY_KEYS_BY_RUN,
  rawSql,
} from '../helpers/raw-sql.js';
import { storeCases } from '../helpers/stores.js';
import { storeSuite } from '../helpers/store-suite.js';
import { T0, run, task } from './fixtures.js';

const ids = (tasks: readonly TaskRecord[]): string[] => tasks.map((t) => t.taskId);
const ended = (t: TaskRecord, executed = true): TaskRecord => ({
  ...t,
  status: 'COMPLETED',
  executed,
  endTime: T0 + t.seq,
  updateTime: T0 + t.seq,
});

for (const c of storeCases()) {
  void describe(`store decide set (${c.name})`, () => {
    const { store } = storeSuite(c);

    void it('after 1,000 loop iterations answers only the open, the pending and the latest of each name', async () => {
      const r = run();
      const first = task(r.workflowId, 1, { referenceTaskName: 'first', taskType: 'SIMPLE' });
      let loop = task(r.workflowId, 2, { referenceTaskName: 'loop', taskType: 'DO_WHILE' });
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertTasks([first, loop]);
        await tx.updateTasks([ended(first), { ...loop, status: 'IN_PROGRESS' }]);
      });
      // Each iteration as the executor writes it: the body task is made, then ended and acted on.
      let seq = 3;
      let last: TaskRecord | undefined;
      for (let n = 1; n <= 1000; n++) {
        const body = task(r.workflowId, seq++, { referenceTaskName: `body__${n}`, iteration: n });
        loop = { ...loop, status: 'IN_PROGRESS', iteration: n };
        await store.transaction(async (tx) => {
          await tx.insertTasks([body]);
          await tx.updateTasks([loop]);
        });
        last = ended(body, n < 1000);
        await store.transaction((tx) => tx.updateTasks([last as TaskRecord]));
      }
      assert.ok(last);
      const decideSet = await store.read((tx) => tx.getDecideTasks(r.workflowId));
      // first: latest of its name; loop: open; body__1000: latest of `body` and not yet acted on.
      assert.deepEqual(decideSet, [ended(first), loop, last]);
      assert.equal((await store.read((tx) => tx.getRunTasks(r.workflowId))).length, 1002);
    });

    void it('answers every open and every pending task, whatever their names', async () => {
      const r = run();
      const a1 = task(r.workflowId, 1, { referenceTaskName: 'a__1', iteration: 1 });
      const a2 = task(r.workflowId, 2, { referenceTaskName: 'a__2', iteration: 2 });
      const a3 = task(r.workflowId, 3, { referenceTaskName: 'a__3', iteration: 3 });
      const b = task(r.workflowId, 4, { referenceTaskName: 'b' });
      const b2 = task(r.workflowId, 5, { referenceTaskName: 'b', retriedTaskId: b.taskId, retryCount: 1 });
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertTasks([a1, a2, a3, b]);
      });
      // a__1 still open, a__2 ended but not acted on, a__3 done: all three are answered.
      await store.transaction((tx) => tx.updateTasks([ended(a2, false), ended(a3)]));
      assert.deepEqual(ids(await store.read((tx) => tx.getDecideTasks(r.workflowId))), ids([a1, a2, a3, b]));
      // The retried attempt of b is neither open, pending nor latest once its retry exists.
      await store.transaction(async (tx) => {
        await tx.updateTasks([{ ...ended(b), status: 'FAILED', retried: true }]);
        await tx.insertTasks([b2]);
      });
      assert.deepEqual(ids(await store.read((tx) => tx.getDecideTasks(r.workflowId))), ids([a1, a2, a3, b2]));
      // A hand-out (updateOpenTasks) keeps the set as it is.
      const taken = { ...b2, status: 'IN_PROGRESS' as const, pollCount: 1 };
      await store.transaction((tx) => tx.updateOpenTasks([taken]));
      assert.deepEqual(await store.read((tx) => tx.getDecideTasks(r.workflowId)), [
        a1,
        ended(a2, false),
        ended(a3),
        taken,
      ]);
      assert.deepEqual(await store.read((tx) => tx.getDecideTasks('no-such-run')), []);
    });

    void it('getTasksLockingRun answers each task asked for, in order: from the decide set or by id', async () => {
      const r = run();
      const other = run();
      const open = task(r.workflowId, 1, { referenceTaskName: 'open' });
      const older = task(r.workflowId, 2, { referenceTaskName: 'again' });
      const latest = task(r.workflowId, 3, { referenceTaskName: 'again', retryCount: 1 });
      const elsewhere = task(other.workflowId, 1, { referenceTaskName: 'elsewhere' });
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertRun(other);
        await tx.insertTasks([open, older, latest, elsewhere]);
        // The older attempt ended and was acted on: outside the decide set, read by its id.
        await tx.updateTasks([ended(older)]);
      });
      const asked = [latest.taskId, 'no-such-task', ended(older).taskId, elsewhere.taskId, open.taskId];
      const answered = await store.transaction((tx) => tx.getTasksLockingRun(asked, r.workflowId));
      assert.deepEqual(answered, [latest, undefined, ended(older), elsewhere, open]);
      // A decision right after reads the decide set the lock went with.
      const decideSet = await store.transaction(async (tx) => {
        await tx.getTasksLockingRun([open.taskId, latest.taskId], r.workflowId);
        return tx.getDecideTasks(r.workflowId);
      });
      assert.deepEqual(ids(decideSet), [open.taskId, latest.taskId]);
    });

    void it('follows a name that changes when a task is updated (a nested loop starts its first iteration)', async () => {
      const r = run();
      const outer = task(r.workflowId, 1, { referenceTaskName: 'outer', taskType: 'DO_WHILE', iteration: 1 });
      const inner1 = task(r.workflowId, 2, {
        referenceTaskName: 'inner__1',
        taskType: 'DO_WHILE',
        iteration: 1,
      });
      const inner2 = task(r.workflowId, 3, {
        referenceTaskName: 'inner__2',
        taskType: 'DO_WHILE',
        iteration: 0,
      });
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertTasks([outer, inner1, inner2]);
        await tx.updateTasks([ended(inner1)]);
      });
      // inner__2 has no iteration yet: its name is its ref, and inner__1 is still the latest `inner`.
      assert.deepEqual(
        ids(await store.read((tx) => tx.getDecideTasks(r.workflowId))),
        ids([outer, inner1, inner2]),
      );
      await store.transaction((tx) => tx.updateTasks([ended({ ...inner2, iteration: 1 })]));
      const set = await store.read((tx) => tx.getDecideTasks(r.workflowId));
      assert.ok(set.some((t) => t.taskId === inner2.taskId));
      assert.ok(!set.some((t) => t.taskId === inner1.taskId), 'inner__1 is no longer the latest `inner`');
    });
  });
}

for (const c of storeCases()) {
  void describe(`store decide set migration (${c.name})`, () => {
    void it('migration 5 backfills the latest task of each name from the rows already there', async () => {
      const h = await c.open();
      try {
        const r = run();
        const loop = task(r.workflowId, 1, { referenceTaskName: 'loop', taskType: 'DO_WHILE', iteration: 3 });
        const body = [1, 2, 3].map((n) =>
          ended(task(r.workflowId, 1 + n, { referenceTaskName: `body__${n}`, iteration: n })),
        );
        const nested = ended(task(r.workflowId, 5, { referenceTaskName: 'x__3__2', iteration: 2 }));
        const plain = ended(task(r.workflowId, 6, { referenceTaskName: 'keep__7' }));
        const rows = [loop, ...body, nested, plain];
        await h.store.transaction((tx) => tx.insertRun(r));
        await h.store.close();
        // Back to schema 4 with the tasks written by a version that had no decide set.
        await rawSql(h, [
          ...BEFORE_IDEMPOTENCY_KEYS_BY_RUN,
          // What the migrations after 5 made, so that migrating again replays them all.
          ...LATER_TABLES.map((table) => `DROP TABLE ${table}`),
          ...LATER_TASK_INDEXES.map((index) => `DROP INDEX ${index}`),
          'DROP TABLE task_latest',
          'DROP INDEX tasks_to_decide',
          // The free-text index on runs came later too (migrated again below).
          ...(h.url !== undefined
            ? [
                ...PG_BEFORE_COMPACT_RUN_ROWS,
                'DROP INDEX runs_search_words',
                'DROP INDEX runs_id_prefix',
                'ALTER TABLE runs DROP COLUMN search_text',
                'DROP TABLE store_settings',
                'ALTER TABLE tasks DROP COLUMN packed',
                // Dropped by queue-claim-index-only; the steps replayed drop and make it again.
                'CREATE INDEX queue_messages_visible ON queue_messages (queue_name, visible_at) WHERE NOT dead_lettered',
              ]
            : [
                'DROP TRIGGER runs_search_delete',
                'DROP TABLE run_search',
                'ALTER TABLE runs DROP COLUMN search_rowid',
                ...SQLITE_BEFORE_DEFINITION_PRUNING,
                'ALTER TABLE tasks DROP COLUMN packed',
              ]),
          'DELETE FROM schema_migrations WHERE version >= 5',
          'ALTER TABLE schema_migrations DROP COLUMN compatible_from',
          ...(h.url !== undefined
            ? [
                'DROP FUNCTION baton_expect_rows',
                'DROP TABLE task_defs_version',
                'DROP FUNCTION baton_task_defs_changed CASCADE',
              ]
            : []),
          ...rows.map((t) => insertTaskSql(h, t)),
        ]);
        const store =
          h.url !== undefined ? openPostgresStore({ url: h.url }) : openSqliteStore({ file: h.file ?? '' });
        try {
          await store.migrate();
          // loop: open; body__3: latest `body`; x__3__2: latest `x`; keep__7 (no iteration): its own name.
          assert.deepEqual(
            ids(await store.read((tx) => tx.getDecideTasks(r.workflowId))),
            ids([loop, body[2] as TaskRecord, nested, plain]),
          );
        } finally {
          await store.close();
        }
      } finally {
        await h.cleanup();
      }
    });
  });
}

/** Tables and indexes on older tables made by the migrations after the decide set's. */
const LATER_TABLES = [
  'secrets',
  'services',
  'event_handlers',
  'change_counters',
  'event_inbox',
  'event_executions',
  'outbox',
  'outbox_relay',
  'schedules',
  'schedule_executions',
  'instructions',
  'archived_runs',
  'archive_claims',
  'auth_records',
  'run_actions',
];
const LATER_TASK_INDEXES = [
  'tasks_search_type',
  'tasks_search_status',
  'tasks_search_workflow_type',
  'tasks_search_start',
  'runs_ended',
  'queue_messages_locked',
];

function insertTaskSql(where: { url?: string }, t: TaskRecord): string {
  const q = (v: string): string => `'${v.replaceAll("'", "''")}'`;
  const record = where.url !== undefined ? `${q(JSON.stringify(t))}::jsonb` : q(JSON.stringify(t));
  return `INSERT INTO tasks (task_id, workflow_id, seq, reference_task_name, task_type, status, update_time, record)
    VALUES (${q(t.taskId)}, ${q(t.workflowInstanceId)}, ${t.seq}, ${q(t.referenceTaskName)}, ${q(t.taskType)},
      ${q(t.status)}, ${t.updateTime}, ${record})`;
}
