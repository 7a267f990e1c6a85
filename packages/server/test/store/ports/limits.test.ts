import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { openPostgresStore } from '../../../src/store-postgres/postgres-store.js';
import { storeCases } from '../../helpers/stores.js';
import { storeSuite } from '../../helpers/store-suite.js';
import { T0, enqueueTasks, message, run, signal, sleep, task, uid } from '../fixtures.js';

for (const c of storeCases()) {
  void describe(`store hand-out limits (${c.name})`, () => {
    const { store, opened: h } = storeSuite(c);

    void it('lockTaskLimit makes the row on first use and counts the type’s IN_PROGRESS tasks', async () => {
      const type = uid('type-');
      const r = run();
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertTasks([
          task(r.workflowId, 1, { taskType: type, taskDefName: type, status: 'IN_PROGRESS' }),
          task(r.workflowId, 2, { taskType: type, taskDefName: type, status: 'IN_PROGRESS' }),
          task(r.workflowId, 3, { taskType: type, taskDefName: type, status: 'SCHEDULED' }),
          task(r.workflowId, 4, { taskType: type, taskDefName: type, status: 'COMPLETED' }),
          task(r.workflowId, 5, { taskType: 'other', taskDefName: 'other', status: 'IN_PROGRESS' }),
        ]);
      });
      const first = await store.transaction((tx) => tx.lockTaskLimit(type));
      assert.deepEqual(first, { inProgress: 2, windowStart: 0, windowCount: 0 });
    });

    void it('setTaskRateWindow keeps the window for the next hand-out', async () => {
      const type = uid('type-');
      await store.transaction(async (tx) => {
        await tx.lockTaskLimit(type);
        await tx.setTaskRateWindow(type, T0 + 5, 3);
      });
      const state = await store.transaction((tx) => tx.lockTaskLimit(type));
      assert.deepEqual(state, { inProgress: 0, windowStart: T0 + 5, windowCount: 3 });
    });

    void it('deferMessages gives claimed messages back unlocked, later, without counting the delivery', async () => {
      const q = uid('q-');
      const m = message(q, { taskId: uid('t-'), visibleAt: T0 - 1 });
      const untouched = message(q, { taskId: uid('t-'), visibleAt: T0 - 1, lockMs: 600_000 });
      await store.transaction((tx) => enqueueTasks(tx, [m, untouched], T0 - 2));
      const claimed = await store.transaction((tx) =>
        tx.claim({ queueNames: [q], count: 2, workerId: 'w1', now: T0, lockToken: 'tok' }),
      );
      assert.equal(claimed.length, 2);
      await store.transaction((tx) => tx.deferMessages([m.taskId], T0 + 60_000));
      const got = await store.read((tx) => tx.getMessage(m.taskId));
      assert.equal(got?.visibleAt, T0 + 60_000);
      assert.equal(got?.lockedUntil, null);
      assert.equal(got?.lockToken, null);
      assert.equal(got?.workerId, null);
      assert.equal(got?.deliveryCount, 0);
      assert.equal((await store.read((tx) => tx.getMessage(untouched.taskId)))?.deliveryCount, 1);
      // Not claimable before its time, claimable after.
      const early = await store.transaction((tx) =>
        tx.claim({ queueNames: [q], count: 5, workerId: 'w2', now: T0 + 59_999, lockToken: 't2' }),
      );
      assert.deepEqual(early, []);
      const late = await store.transaction((tx) =>
        tx.claim({ queueNames: [q], count: 5, workerId: 'w2', now: T0 + 60_000, lockToken: 't3' }),
      );
      assert.deepEqual(
        late.map((x) => x.taskId),
        [m.taskId],
      );
      await store.transaction((tx) => tx.deferMessages([], T0));
    });

    if (c.name === 'postgres') {
      void it('two nodes take turns on a type’s limit row; the second sees the first’s commit', async () => {
        const other = openPostgresStore({ url: h.url!, poolSize: 2 });
        try {
          const type = uid('type-');
          const r = run();
          const t = task(r.workflowId, 1, { taskType: type, taskDefName: type });
          await store.transaction(async (tx) => {
            await tx.insertRun(r);
            await tx.insertTasks([t]);
          });
          const events: string[] = [];
          const firstLocked = signal();
          const first = store.transaction(async (tx) => {
            const state = await tx.lockTaskLimit(type);
            events.push(`first saw ${state.inProgress}`);
            firstLocked.resolve();
            await sleep(150);
            await tx.updateTasks([{ ...t, status: 'IN_PROGRESS' }]);
            events.push('first commits');
          });
          await firstLocked.promise;
          const second = other.transaction(async (tx) => {
            const state = await tx.lockTaskLimit(type);
            events.push(`second saw ${state.inProgress}`);
          });
          await Promise.all([first, second]);
          assert.deepEqual(events, ['first saw 0', 'first commits', 'second saw 1']);
        } finally {
          await other.close();
        }
      });
    }
  });
}
