import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import pg from 'pg';

import { openPostgresStore } from '../../../src/store-postgres/postgres-store.js';
import type { ClaimRequest, Store, StoredQueueMessage } from '../../../src/store/store.js';
import { storeCases } from '../../helpers/stores.js';
import { storeSuite } from '../../helpers/store-suite.js';
import { T0, enqueueTasks, message, task, uid } from '../fixtures.js';

const claimOf = (queueNames: string[], count: number, now: number, workerId = 'w1'): ClaimRequest => ({
  queueNames,
  count,
  now,
  workerId,
  lockToken: uid('lock-'),
});
const taskIds = (ms: StoredQueueMessage[]): string[] => ms.map((m) => m.taskId);

for (const c of storeCases()) {
  void describe(`store queue (${c.name})`, () => {
    const { store, opened: h } = storeSuite(c);
    const claim = (req: ClaimRequest) => store.transaction((tx) => tx.claim(req));

    void it('enqueues (creating the queue) and hands out by priority, then visible time', async () => {
      const q = uid('q-');
      const m = [
        message(q, { taskId: 'a-low-early', priority: 0, visibleAt: T0 - 50 }),
        message(q, { taskId: 'b-high-late', priority: 5, visibleAt: T0 - 10 }),
        message(q, { taskId: 'c-high-early', priority: 5, visibleAt: T0 - 20 }),
        message(q, { taskId: 'd-low-late', priority: 0, visibleAt: T0 - 5 }),
        message(q, { taskId: 'e-low-tie', priority: 0, visibleAt: T0 - 5 }),
      ];
      await store.transaction((tx) => enqueueTasks(tx, m, T0 - 100));
      assert.ok((await store.read((tx) => tx.listQueues())).includes(q));
      const got = await claim(claimOf([q], 4, T0));
      assert.deepEqual(taskIds(got), ['c-high-early', 'b-high-late', 'a-low-early', 'd-low-late']);
      assert.deepEqual(taskIds(await claim(claimOf([q], 10, T0))), ['e-low-tie']);
      assert.deepEqual(await claim(claimOf([q], 10, T0)), []);
    });

    void it('writes the hand-out on the message: lock, token, worker, delivery count', async () => {
      const q = uid('q-');
      const m = message(q, {
        taskId: uid('t-'),
        workflowId: 'run-x',
        taskRef: 'ref-x',
        attempt: 3,
        lockMs: 30_000,
      });
      await store.transaction((tx) => enqueueTasks(tx, [m], T0 - 1));
      const req = claimOf([q], 1, T0, 'worker-7');
      const [got] = await claim(req);
      const expected: StoredQueueMessage = {
        ...m,
        visibleAt: T0 + 30_000,
        lockedUntil: T0 + 30_000,
        lockToken: req.lockToken,
        workerId: 'worker-7',
        deliveryCount: 1,
        deadLettered: false,
        createdAt: T0 - 1,
      };
      assert.deepEqual(got, expected);
      assert.deepEqual(await store.read((tx) => tx.getMessage(m.taskId)), expected);
      assert.equal(await store.read((tx) => tx.getMessage(uid('missing-'))), undefined);
    });

    void it('does not hand out a message before its visible time', async () => {
      const q = uid('q-');
      await store.transaction((tx) =>
        enqueueTasks(tx, [message(q, { taskId: 'later', visibleAt: T0 + 1000 })], T0),
      );
      assert.deepEqual(await claim(claimOf([q], 5, T0 + 999)), []);
      assert.deepEqual(taskIds(await claim(claimOf([q], 5, T0 + 1000))), ['later']);
    });

    void it('never hands out a message again once its lock lapsed (the sweep of lapsed locks times it out)', async () => {
      const q = uid('q-');
      const m = message(q, { taskId: uid('t-'), lockMs: 1000 });
      await store.transaction((tx) => enqueueTasks(tx, [m], T0));
      const first = await claim(claimOf([q], 1, T0, 'w1'));
      assert.equal(first.length, 1);
      assert.deepEqual(await claim(claimOf([q], 1, T0 + 999, 'w2')), [], 'still locked');
      assert.deepEqual(await claim(claimOf([q], 1, T0 + 1000, 'w2')), [], 'lapsed: not a second worker');
      assert.deepEqual(await claim(claimOf([q], 1, T0 + 60_000, 'w2')), []);
      const stored = await store.read((tx) => tx.getMessage(m.taskId));
      assert.equal(stored?.workerId, 'w1');
      assert.equal(stored?.lockedUntil, T0 + 1000);
    });

    void it('requeues a message: visible at the given time, unlocked', async () => {
      const q = uid('q-');
      const m = message(q, { taskId: uid('t-') });
      await store.transaction((tx) => enqueueTasks(tx, [m], T0));
      await claim(claimOf([q], 1, T0));
      assert.equal(await store.transaction((tx) => tx.requeueMessage(m.taskId, T0 + 500)), true);
      assert.equal(await store.transaction((tx) => tx.requeueMessage(uid('missing-'), T0)), false);
      const stored = await store.read((tx) => tx.getMessage(m.taskId));
      assert.equal(stored?.visibleAt, T0 + 500);
      assert.equal(stored?.lockedUntil, null);
      assert.equal(stored?.lockToken, null);
      assert.equal(stored?.workerId, null);
      assert.equal(stored?.deliveryCount, 1);
      assert.deepEqual(await claim(claimOf([q], 1, T0 + 499)), []);
      assert.equal((await claim(claimOf([q], 1, T0 + 500)))[0]?.deliveryCount, 2);
    });

    void it('extends the lock of a taken message (and its invisibility)', async () => {
      const q = uid('q-');
      const m = message(q, { taskId: uid('t-'), lockMs: 1000 });
      await store.transaction((tx) => enqueueTasks(tx, [m], T0));
      assert.equal(
        await store.transaction((tx) => tx.extendLock(m.taskId, T0 + 5000)),
        false,
        'not taken yet',
      );
      await claim(claimOf([q], 1, T0));
      assert.equal(await store.transaction((tx) => tx.extendLock(m.taskId, T0 + 5000)), true);
      assert.equal(await store.transaction((tx) => tx.extendLock(uid('missing-'), T0 + 5000)), false);
      const stored = await store.read((tx) => tx.getMessage(m.taskId));
      assert.equal(stored?.lockedUntil, T0 + 5000);
      assert.equal(stored?.visibleAt, T0 + 5000);
      assert.deepEqual(await claim(claimOf([q], 1, T0 + 4999)), []);
      assert.deepEqual(await claim(claimOf([q], 1, T0 + 5000)), [], 'a lapsed lock is swept, never claimed');
    });

    void it('removes messages', async () => {
      const q = uid('q-');
      const [a, b, keep] = [message(q), message(q), message(q)];
      await store.transaction((tx) => enqueueTasks(tx, [a, b, keep], T0));
      await store.transaction((tx) => tx.removeMessages([a.taskId, b.taskId, uid('missing-')]));
      await store.transaction((tx) => tx.removeMessages([]));
      assert.equal(await store.read((tx) => tx.getMessage(a.taskId)), undefined);
      assert.deepEqual(taskIds(await claim(claimOf([q], 10, T0))), [keep.taskId]);
    });

    void it('replaces a message enqueued again under the same taskId', async () => {
      const q = uid('q-');
      const q2 = uid('q-');
      const m = message(q, { taskId: uid('t-'), attempt: 1 });
      await store.transaction((tx) => enqueueTasks(tx, [m], T0));
      await claim(claimOf([q], 1, T0));
      const again = { ...m, queueName: q2, attempt: 2, priority: 3, visibleAt: T0 + 10 };
      await store.transaction((tx) => enqueueTasks(tx, [again], T0 + 1));
      const stored = await store.read((tx) => tx.getMessage(m.taskId));
      assert.deepEqual(stored, {
        ...again,
        lockedUntil: null,
        lockToken: null,
        workerId: null,
        deliveryCount: 0,
        deadLettered: false,
        createdAt: T0 + 1,
      });
      assert.deepEqual(await claim(claimOf([q], 1, T0 + 10)), []);
      assert.equal((await claim(claimOf([q2], 1, T0 + 10))).length, 1);
      // Twice in one batch: the last one wins.
      const x = message(q, { taskId: uid('t-'), attempt: 1 });
      await store.transaction((tx) => enqueueTasks(tx, [x, { ...x, attempt: 7 }], T0));
      assert.equal((await store.read((tx) => tx.getMessage(x.taskId)))?.attempt, 7);
    });

    void it('drains queues in the order given until the count is reached', async () => {
      const high = uid('q-high-');
      const normal = uid('q-');
      await store.transaction((tx) =>
        enqueueTasks(
          tx,
          [
            message(normal, { taskId: 'n1', priority: 9, visibleAt: T0 - 100 }),
            message(normal, { taskId: 'n2', visibleAt: T0 - 90 }),
            message(high, { taskId: 'h1', visibleAt: T0 - 10 }),
            message(high, { taskId: 'h2', visibleAt: T0 - 5 }),
          ],
          T0 - 200,
        ),
      );
      assert.deepEqual(taskIds(await claim(claimOf([high, normal], 3, T0))), ['h1', 'h2', 'n1']);
      assert.deepEqual(taskIds(await claim(claimOf([high, normal], 3, T0))), ['n2']);
      assert.deepEqual(await claim(claimOf([uid('empty-')], 3, T0)), []);
    });

    void it("answers a hand-out's task read from what its claim took: as stored, a missing task absent, a later write seen", async () => {
      const q = uid('q-');
      const runId = uid('run-');
      const [t1, t2, t3] = [task(runId, 1), task(runId, 2), task(runId, 3)];
      await store.transaction(async (tx) => {
        await tx.insertTasks([t1, t2, t3]);
        await tx.enqueue(
          [t1, t2, t3].map((t, i) =>
            message(q, { taskId: t.taskId, workflowId: runId, visibleAt: T0 - 10 + i }),
          ),
          T0 - 20,
        );
      });
      // Both claim forms: a poll's pair of queues, and a single queue.
      await store.transaction(async (tx) => {
        const claimed = await tx.claim(claimOf([`${q}-high`, q], 1, T0));
        assert.deepEqual(taskIds(claimed), [t1.taskId]);
        assert.deepEqual(await tx.getTasks([t1.taskId, uid('missing-')]), [t1]);
        // Asked again, or for a task it did not claim: read as usual.
        assert.deepEqual(await tx.getTasks([t2.taskId, t1.taskId]), [t2, t1]);
      });
      await store.transaction(async (tx) => {
        const claimed = await tx.claim(claimOf([q], 5, T0));
        assert.deepEqual(taskIds(claimed), [t2.taskId, t3.taskId]);
        const written = { ...t3, status: 'IN_PROGRESS' as const, pollCount: 1, updateTime: T0 };
        await tx.updateTasks([written]);
        assert.deepEqual(await tx.getTasks([t3.taskId, t2.taskId]), [written, t2]);
      });
    });

    // PostgreSQL only: SQLite has one writer, so no other connection can change a task meanwhile.
    if (c.name === 'postgres')
      void it("takes the tasks of a claim in the claim's own read, with no second statement", async () => {
        assert.ok(h.url !== undefined);
        const q = uid('q-');
        const runId = uid('run-');
        const t1 = task(runId, 1);
        await store.transaction(async (tx) => {
          await tx.insertTasks([t1]);
          await tx.enqueue([message(q, { taskId: t1.taskId, workflowId: runId })], T0 - 1);
        });
        const other = new pg.Client({ connectionString: h.url });
        await other.connect();
        try {
          await store.transaction(async (tx) => {
            assert.deepEqual(taskIds(await tx.claim(claimOf([q], 1, T0))), [t1.taskId]);
            // Committed by another connection after the claim: a second read would not find it.
            await other.query('DELETE FROM tasks WHERE task_id = $1', [t1.taskId]);
            assert.deepEqual(await tx.getTasks([t1.taskId]), [t1]);
            assert.deepEqual(await tx.getTasks([t1.taskId]), [], 'read again once answered');
          });
        } finally {
          await other.end();
        }
      });

    void it('never hands out a dead-lettered message', async () => {
      const q = uid('q-');
      const m = message(q, { taskId: uid('t-') });
      await store.transaction((tx) => enqueueTasks(tx, [m], T0));
      await claim(claimOf([q], 1, T0));
      assert.equal(await store.transaction((tx) => tx.deadLetterMessage(m.taskId)), true);
      assert.equal(await store.transaction((tx) => tx.deadLetterMessage(uid('missing-'))), false);
      const stored = await store.read((tx) => tx.getMessage(m.taskId));
      assert.equal(stored?.deadLettered, true);
      assert.equal(stored?.lockedUntil, null);
      assert.deepEqual(await claim(claimOf([q], 1, T0 + 10_000_000)), []);
      assert.equal(await store.transaction((tx) => tx.extendLock(m.taskId, T0 + 1)), false);
      assert.equal(await store.read((tx) => tx.nextVisibleAt([q], T0)), undefined);
      // Requeue brings it back.
      assert.equal(await store.transaction((tx) => tx.requeueMessage(m.taskId, T0)), true);
      assert.equal((await claim(claimOf([q], 1, T0)))[0]?.taskId, m.taskId);
    });

    void it('counts waiting, scheduled, in-flight and dead-lettered messages per queue', async () => {
      const q = uid('q-count-');
      const empty = uid('q-empty-');
      await store.transaction(async (tx) => {
        await tx.ensureQueues([empty], T0);
        await enqueueTasks(
          tx,
          [
            message(q, { taskId: 'w1', visibleAt: T0 - 1 }),
            message(q, { taskId: 'w2', visibleAt: T0 }),
            message(q, { taskId: 's1', visibleAt: T0 + 100 }),
            message(q, { taskId: 'f1', visibleAt: T0 - 5, lockMs: 1000 }),
            message(q, { taskId: 'f2', visibleAt: T0 - 4, lockMs: 1000 }),
            message(q, { taskId: 'd1', visibleAt: T0 - 3 }),
          ],
          T0 - 10,
        );
      });
      assert.deepEqual(taskIds(await claim(claimOf([q], 2, T0 - 2))), ['f1', 'f2']);
      await store.transaction((tx) => tx.deadLetterMessage('d1'));
      const counts = await store.read((tx) => tx.queueCounts(T0));
      assert.deepEqual(
        counts.find((x) => x.queueName === q),
        { queueName: q, waiting: 2, scheduled: 1, inFlight: 2, deadLettered: 1 },
      );
      assert.deepEqual(
        counts.find((x) => x.queueName === empty),
        { queueName: empty, waiting: 0, scheduled: 0, inFlight: 0, deadLettered: 0 },
      );
      // When the locks lapse, the taken messages count as waiting again.
      const later = await store.read((tx) => tx.queueCounts(T0 + 998));
      assert.deepEqual(
        later.find((x) => x.queueName === q),
        { queueName: q, waiting: 5, scheduled: 0, inFlight: 0, deadLettered: 1 },
      );
      const names = counts.map((x) => x.queueName);
      assert.deepEqual(names, [...names].sort(), 'sorted by queue name');
    });

    void it('answers the earliest visible time of unlocked, not dead-lettered messages on the given queues', async () => {
      const a = uid('q-a-');
      const b = uid('q-b-');
      assert.equal(await store.read((tx) => tx.nextVisibleAt([a, b], T0)), undefined);
      assert.equal(await store.read((tx) => tx.nextVisibleAt([], T0)), undefined);
      await store.transaction((tx) =>
        enqueueTasks(
          tx,
          [
            message(a, { taskId: uid('t-'), visibleAt: T0 + 300 }),
            message(b, { taskId: 'nv-b', visibleAt: T0 + 200, lockMs: 5000 }),
            message(uid('q-other-'), { visibleAt: T0 + 1 }),
          ],
          T0,
        ),
      );
      assert.equal(await store.read((tx) => tx.nextVisibleAt([a, b], T0)), T0 + 200);
      assert.equal(await store.read((tx) => tx.nextVisibleAt([a], T0)), T0 + 300);
      await claim(claimOf([b], 1, T0 + 200));
      assert.equal(await store.read((tx) => tx.nextVisibleAt([a, b], T0 + 200)), T0 + 300);
      assert.equal(
        await store.read((tx) => tx.nextVisibleAt([b], T0 + 200)),
        undefined,
        'a locked message waits for no poll (its lapse is swept)',
      );
    });

    void it('never hands one message to two of 8 concurrent claimers, and hands out all 500', async () => {
      const q = uid('q-many-');
      const all = Array.from({ length: 500 }, (_, i) =>
        message(q, { taskId: `m-${String(i).padStart(3, '0')}`, priority: i % 3, visibleAt: T0 - (i % 7) }),
      );
      await store.transaction((tx) => enqueueTasks(tx, all, T0 - 100));
      // On PostgreSQL the claimers are spread over four stores (pools), as four nodes would be.
      const stores: Store[] = [store];
      if (h.url !== undefined) {
        for (let i = 0; i < 3; i++) stores.push(openPostgresStore({ url: h.url, poolSize: 3 }));
      }
      try {
        const claimers = Array.from({ length: 8 }, async (_, i) => {
          const mine: string[] = [];
          const s = stores[i % stores.length]!;
          for (;;) {
            const got = await s.transaction((tx) => tx.claim(claimOf([q], 7, T0, `w${i}`)));
            if (got.length === 0) return mine;
            mine.push(...taskIds(got));
          }
        });
        const results = await Promise.all(claimers);
        const flat = results.flat();
        assert.equal(new Set(flat).size, flat.length, 'no message handed out twice');
        assert.equal(flat.length, 500);
        assert.deepEqual([...flat].sort(), all.map((m) => m.taskId).sort());
        if (stores.length > 1) {
          assert.ok(results.filter((r) => r.length > 0).length > 1, 'work was shared between claimers');
        }
        const counts = (await store.read((tx) => tx.queueCounts(T0))).find((x) => x.queueName === q);
        assert.deepEqual(counts, { queueName: q, waiting: 0, scheduled: 0, inFlight: 500, deadLettered: 0 });
      } finally {
        await Promise.all(stores.slice(1).map((s) => s.close()));
      }
    });
  });
}
