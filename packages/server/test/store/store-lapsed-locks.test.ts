import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { ClaimRequest, LockSweep } from '../../src/store/store.js';
import { storeCases } from '../helpers/stores.js';
import { storeSuite } from '../helpers/store-suite.js';
import { T0, enqueueTasks, message, uid } from './fixtures.js';

const claimOf = (queueName: string, now: number, workerId = 'w1'): ClaimRequest => ({
  queueNames: [queueName],
  count: 10,
  now,
  workerId,
  lockToken: uid('lock-'),
});
const sweepAt = (now: number, limit = 100, leaseMs = 10_000): LockSweep => ({
  now,
  limit,
  leaseMs,
  lockToken: uid('sweep-'),
});

// The lock of a taken message is its response deadline: a lapsed one is swept (and leased to
// the sweeper), never claimed by a second worker. Each describe has a store of its own, so
// the earliest lapse and every sweep are exact.
for (const c of storeCases()) {
  void describe(`store lapsed locks (${c.name})`, () => {
    const { store } = storeSuite(c);
    const sweep = (s: LockSweep) => store.transaction((tx) => tx.claimLapsedLocks(s));
    const lapseAt = () => store.read((tx) => tx.nextLockLapseAt());

    void it('answers the earliest held lock, and nothing while none is held', async () => {
      const q = uid('q-');
      assert.equal(await lapseAt(), undefined);
      await store.transaction((tx) =>
        enqueueTasks(
          tx,
          [
            message(q, { taskId: 'held-long', lockMs: 9000, priority: 9 }),
            message(q, { taskId: 'held-short', lockMs: 3000 }),
            message(q, { taskId: 'waiting', visibleAt: T0 + 100 }),
          ],
          T0 - 1,
        ),
      );
      assert.equal(await lapseAt(), undefined, 'queued messages hold no lock');
      await store.transaction((tx) => tx.claim({ ...claimOf(q, T0), count: 2 }));
      assert.equal(await lapseAt(), T0 + 3000);
      // A dead-lettered message never lapses; a removed one is gone.
      await store.transaction((tx) => tx.deadLetterMessage('held-short'));
      assert.equal(await lapseAt(), T0 + 9000);
      await store.transaction((tx) => tx.removeMessages(['held-long', 'held-short', 'waiting']));
      assert.equal(await lapseAt(), undefined);
    });

    void it('sweeps lapsed locks earliest first, leased to the sweeper with its token', async () => {
      const q = uid('q-');
      const ids = ['s-a', 's-b', 's-c'];
      await store.transaction((tx) =>
        enqueueTasks(
          tx,
          ids.map((taskId, i) => message(q, { taskId, lockMs: 1000 * (3 - i), workflowId: `run-${taskId}` })),
          T0 - 1,
        ),
      );
      await store.transaction((tx) => tx.claim(claimOf(q, T0, 'worker-9')));
      assert.deepEqual(await sweep(sweepAt(T0 + 999)), [], 'nothing lapsed yet');
      const s = sweepAt(T0 + 2000, 100, 10_000);
      const swept = await sweep(s);
      // s-c lapsed at T0+1000, s-b at T0+2000; s-a (T0+3000) holds.
      assert.deepEqual(
        swept.map((m) => [m.taskId, m.lockedUntil, m.workerId, m.lockToken, m.workflowId, m.deliveryCount]),
        [
          ['s-c', T0 + 1000, 'worker-9', s.lockToken, 'run-s-c', 1],
          ['s-b', T0 + 2000, 'worker-9', s.lockToken, 'run-s-b', 1],
        ],
      );
      const leased = await store.read((tx) => tx.getMessage('s-c'));
      assert.equal(leased?.lockedUntil, T0 + 12_000);
      assert.equal(leased?.lockToken, s.lockToken);
      assert.equal(leased?.workerId, 'worker-9', 'the worker that held it is kept (for the timeout reason)');
      assert.deepEqual(await sweep(sweepAt(T0 + 2000)), [], 'leased: another sweeper passes');
      assert.deepEqual(await store.transaction((tx) => tx.claim(claimOf(q, T0 + 5000, 'w2'))), []);
      // The lease lapses too (the sweeper died): the next sweep takes them again, s-a as well.
      const again = await sweep(sweepAt(T0 + 12_000, 2));
      assert.deepEqual(
        again.map((m) => m.taskId),
        ['s-a', 's-b'],
        'limit 2, earliest lapse first (s-b and s-c tie: by task id)',
      );
      await store.transaction((tx) => tx.removeMessages(ids));
      assert.equal(await lapseAt(), undefined);
    });

    void it('a lock extended before the sweep is not swept; a requeued message holds no lock', async () => {
      const q = uid('q-');
      await store.transaction((tx) =>
        enqueueTasks(
          tx,
          [message(q, { taskId: 'ext', lockMs: 1000 }), message(q, { taskId: 'back', lockMs: 1000 })],
          T0 - 1,
        ),
      );
      await store.transaction((tx) => tx.claim(claimOf(q, T0)));
      await store.transaction(async (tx) => {
        await tx.extendLock('ext', T0 + 60_000);
        await tx.requeueMessage('back', T0 + 5000);
      });
      assert.deepEqual(await sweep(sweepAt(T0 + 30_000)), []);
      assert.equal(await lapseAt(), T0 + 60_000);
      const s = sweepAt(T0 + 60_000);
      assert.deepEqual(
        (await sweep(s)).map((m) => m.taskId),
        ['ext'],
      );
      // The worker extends after the sweep leased it: the token is no longer the sweeper's.
      assert.equal(await store.transaction((tx) => tx.extendLock('ext', T0 + 90_000)), true);
      const extended = await store.read((tx) => tx.getMessage('ext'));
      assert.equal(extended?.lockToken, null);
      assert.equal(extended?.lockedUntil, T0 + 90_000);
      await store.transaction((tx) => tx.removeMessages(['ext', 'back']));
    });

    void it('a message written already handed out (direct hand-off) lapses like a claimed one', async () => {
      const q = uid('q-');
      await store.transaction((tx) =>
        enqueueTasks(
          tx,
          [
            message(q, {
              taskId: 'direct',
              lockMs: 4000,
              lock: { lockedUntil: T0 + 4000, lockToken: 'tok', workerId: 'w-direct' },
            }),
          ],
          T0,
        ),
      );
      assert.equal(await lapseAt(), T0 + 4000);
      assert.deepEqual(await store.transaction((tx) => tx.claim(claimOf(q, T0 + 5000))), []);
      const [swept] = await sweep(sweepAt(T0 + 4000));
      assert.equal(swept?.taskId, 'direct');
      assert.equal(swept?.workerId, 'w-direct');
      await store.transaction((tx) => tx.removeMessages(['direct']));
    });
  });
}
