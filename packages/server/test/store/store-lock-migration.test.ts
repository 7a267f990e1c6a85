import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { openPostgresStore } from '../../src/store-postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import {
  PG_BEFORE_COMPACT_RUN_ROWS,
  SQLITE_BEFORE_DEFINITION_PRUNING,
  BEFORE_IDEMPOTENCY_KEYS_BY_RUN,
  rawSql,
} from '../helpers/raw-sql.js';
import { storeCases } from '../helpers/stores.js';
import { T0, message, run, task } from './fixtures.js';

// A database made by the release whose response timeouts were timer rows upgrades in place: its
// RESPONSE_TIMEOUT rows go (the locks carry the deadlines), and an IN_PROGRESS attempt whose
// message was put back unlocked (due when its response window ends) is locked until then, so
// the sweep of lapsed locks times it out as its timer would have.
for (const c of storeCases()) {
  void describe(`store migration: the lock is the response deadline (${c.name})`, () => {
    void it('drops response timers, locks put-back attempts, keeps every other timer', async () => {
      const h = await c.open();
      try {
        const r = run();
        const held = task(r.workflowId, 1, { status: 'IN_PROGRESS', workerId: 'w1', pollCount: 1 });
        const putBack = task(r.workflowId, 2, { status: 'IN_PROGRESS', workerId: 'w2', pollCount: 1 });
        const waiting = task(r.workflowId, 3, { status: 'SCHEDULED' });
        await h.store.transaction(async (tx) => {
          await tx.insertRun(r);
          await tx.insertTasks([held, putBack, waiting]);
          await tx.enqueue(
            [
              message('mq', {
                taskId: held.taskId,
                workflowId: r.workflowId,
                lockMs: 30_000,
                lock: { lockedUntil: T0 + 30_000, lockToken: 'tok', workerId: 'w1' },
              }),
              message('mq', { taskId: putBack.taskId, workflowId: r.workflowId, visibleAt: T0 + 20_000 }),
              message('mq', { taskId: waiting.taskId, workflowId: r.workflowId, visibleAt: T0 }),
            ],
            T0,
          );
          const timer = { workflowId: r.workflowId, dueAt: T0 + 30_000, payload: { seconds: 30 } };
          await tx.armTimers(
            [
              { ...timer, timerId: 'rt-held', kind: 'RESPONSE_TIMEOUT', taskId: held.taskId },
              { ...timer, timerId: 'rt-back', kind: 'RESPONSE_TIMEOUT', taskId: putBack.taskId },
              { ...timer, timerId: 'tt-waiting', kind: 'TASK_TIMEOUT', taskId: waiting.taskId },
              { ...timer, timerId: 'wf', kind: 'WORKFLOW_TIMEOUT' },
            ],
            T0,
          );
        });
        await h.store.close();
        const previous = h.url !== undefined ? 10 : 9;
        await rawSql(h, [
          ...BEFORE_IDEMPOTENCY_KEYS_BY_RUN,
          // As that release made it: without the later free-text index either (migrated again below).
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
          'DROP INDEX queue_messages_locked',
          `DELETE FROM schema_migrations WHERE version > ${previous}`,
          // The compatibility bookkeeping came after it too (migrated again below).
          'ALTER TABLE schema_migrations DROP COLUMN compatible_from',
          // The put-back attempt as the earlier release left it: unlocked, visible at its window's end.
          `UPDATE queue_messages SET locked_until = NULL, lock_token = NULL WHERE task_id = '${putBack.taskId}'`,
        ]);
        const store =
          h.url !== undefined ? openPostgresStore({ url: h.url }) : openSqliteStore({ file: h.file ?? '' });
        try {
          await store.migrate();
          const timers = await store.read((tx) => tx.listTimers({ workflowId: r.workflowId }));
          assert.deepEqual(timers.map((t) => t.timerId).sort(), ['tt-waiting', 'wf']);
          const back = await store.read((tx) => tx.getMessage(putBack.taskId));
          assert.equal(back?.lockedUntil, T0 + 20_000);
          const kept = await store.read((tx) => tx.getMessage(held.taskId));
          assert.equal(kept?.lockedUntil, T0 + 30_000);
          assert.equal(kept?.lockToken, 'tok');
          assert.equal((await store.read((tx) => tx.getMessage(waiting.taskId)))?.lockedUntil, null);
          assert.equal(await store.read((tx) => tx.nextLockLapseAt()), T0 + 20_000);
          // The run made before the free-text index is found by a word of its name once migrated.
          const found = await store.read((tx) =>
            tx.searchRuns({ start: 0, size: 10, sort: [], freeText: r.workflowName }),
          );
          assert.deepEqual(
            found.results.map((x) => x.workflowId),
            [r.workflowId],
          );
          // Only the waiting attempt is handed out; the put-back one lapses to the sweep.
          const claimed = await store.transaction((tx) =>
            tx.claim({ queueNames: ['mq'], count: 10, now: T0 + 60_000, workerId: 'w', lockToken: 'c' }),
          );
          assert.deepEqual(
            claimed.map((m) => m.taskId),
            [waiting.taskId],
          );
          const swept = await store.transaction((tx) =>
            tx.claimLapsedLocks({ now: T0 + 30_000, limit: 10, leaseMs: 1000, lockToken: 's' }),
          );
          assert.deepEqual(
            swept.map((m) => m.taskId),
            [putBack.taskId, held.taskId],
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
