import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { Store } from '../../src/store/store.js';
import { type TestApp, call, testApp } from '../helpers/app.js';
import { register } from '../helpers/app-suite.js';
import { pollOneTask, pollTasks, startRun } from '../helpers/runs.js';
import { overridingTx } from '../helpers/store-proxy.js';
import { type OpenedStore, storeCases } from '../helpers/stores.js';

/**
 * An update-v2 whose claim comes back empty answers at once, so it has no use for when the next
 * delayed message comes due, nor has a poll with no time to wait; a poll that goes on to wait
 * does. On PostgreSQL that read is a round trip of its own before COMMIT, paid by the last step of
 * every run at light load.
 */

/**
 * The store, counting each transaction's calls of `nextVisibleAt` for `queue`. Only for it: the
 * node's system-task executor polls its own queues in the background, at any moment.
 */
function countingNextVisible(store: Store, queue: string): { store: Store; calls: () => number } {
  let calls = 0;
  const counted = overridingTx(store, (tx) => ({
    nextVisibleAt: (...args) => {
      if (args[0].includes(queue)) calls++;
      return tx.nextVisibleAt(...args);
    },
  }));
  return { store: counted, calls: () => calls };
}

for (const storeCase of storeCases()) {
  describe(`update-v2 with nothing to hand out on ${storeCase.name}`, () => {
    let opened: OpenedStore;
    let t: TestApp;
    let counted: ReturnType<typeof countingNextVisible>;
    before(async () => {
      opened = await storeCase.open();
      counted = countingNextVisible(opened.store, 'nv_step');
      t = await testApp(counted.store);
      await register(
        t.app,
        [
          {
            name: 'nv_one',
            version: 1,
            ownerEmail: 'test@example.com',
            tasks: [{ name: 'nv_step', taskReferenceName: 'only', type: 'SIMPLE' }],
          },
        ],
        [{ name: 'nv_step', retryCount: 0, responseTimeoutSeconds: 30, ownerEmail: 'a@b.c' }],
      );
    });
    after(async () => {
      await t.close();
      await opened.cleanup();
    });

    it('ends the run and answers 204 without reading when the next delayed message is due', async () => {
      const id = await startRun(t.app, 'nv_one', { input: {} });
      const task = await pollOneTask(t.app, 'nv_step', 'w1');
      const before = counted.calls();
      const res = await call(t.app, 'POST', '/api/tasks/update-v2', {
        taskId: task.taskId,
        workflowInstanceId: id,
        workerId: 'w1',
        status: 'COMPLETED',
        outputData: { done: true },
      });
      assert.equal(res.status, 204, res.text);
      assert.equal(counted.calls(), before, 'update-v2 read nextVisibleAt');
      const run = await call(t.app, 'GET', `/api/workflow/${id}?includeTasks=true`);
      assert.equal(run.body.status, 'COMPLETED');
      assert.deepEqual(run.body.tasks[0].outputData, { done: true });
    });

    it('a poll that finds nothing reads it only when it may wait', async () => {
      const before = counted.calls();
      // timeout=0: answers at once, like update-v2.
      assert.deepEqual(await pollTasks(t.app, 'nv_step', 1, 'w1'), []);
      assert.equal(counted.calls(), before, 'a poll that answers at once read nextVisibleAt');
      const waited = await call(t.app, 'GET', '/api/tasks/poll/batch/nv_step?count=1&timeout=50&workerid=w1');
      assert.equal(waited.status, 200, waited.text);
      assert.deepEqual(waited.body, []);
      // Read before it waits (and, if its timer fires a moment before its deadline, once more).
      assert.ok(counted.calls() > before, 'a poll that may wait did not read nextVisibleAt');
    });

    it('hands out queued work as before when the run it advanced has none', async () => {
      const a = await startRun(t.app, 'nv_one', { input: {} });
      const first = await pollOneTask(t.app, 'nv_step', 'w1');
      assert.equal(first.workflowInstanceId, a);
      const b = await startRun(t.app, 'nv_one', { input: {} });
      const res = await call(t.app, 'POST', '/api/tasks/update-v2', {
        taskId: first.taskId,
        workflowInstanceId: a,
        workerId: 'w1',
        status: 'COMPLETED',
        outputData: {},
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.workflowInstanceId, b);
      assert.equal(res.body.status, 'IN_PROGRESS');
    });
  });
}
