import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { pollOneTask, pollTasks, runOf, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

const chain = (name: string, type: string, steps: number): Record<string, unknown> => ({
  name,
  version: 1,
  ownerEmail: 'test@example.com',
  tasks: Array.from({ length: steps }, (_, k) => ({
    name: type,
    taskReferenceName: `s${k}`,
    type: 'SIMPLE',
    inputParameters: { k, previous: k === 0 ? '${workflow.input.x}' : `\${s${k - 1}.output.v}` },
  })),
});

for (const storeCase of storeCases()) {
  describe(`update-v2 direct hand-off on ${storeCase.name}`, () => {
    const t = appSuite(storeCase);
    before(async () => {
      await register(
        t.app,
        [chain('ho_chain', 'ho_step', 3), chain('ho_limited_chain', 'ho_limited', 2)],
        [
          {
            name: 'ho_step',
            retryCount: 0,
            responseTimeoutSeconds: 30,
            pollTimeoutSeconds: 20,
            ownerEmail: 'a@b.c',
          },
          {
            name: 'ho_limited',
            retryCount: 0,
            responseTimeoutSeconds: 30,
            concurrentExecLimit: 5,
            ownerEmail: 'a@b.c',
          },
        ],
      );
    });

    const updateV2 = async (
      task: { taskId: string; workflowInstanceId: string },
      v: number,
      workerId = 'w9',
    ) =>
      call(t.app, 'POST', '/api/tasks/update-v2', {
        taskId: task.taskId,
        workflowInstanceId: task.workflowInstanceId,
        workerId,
        status: 'COMPLETED',
        outputData: { v },
      });

    it('answers the run’s next step already handed out: locked until its response deadline, no timer armed', async () => {
      const id = await startRun(t.app, 'ho_chain', { input: { x: 1 } });
      const first = await pollOneTask(t.app, 'ho_step', 'w9');
      const res = await updateV2(first, 10);
      assert.equal(res.status, 200, res.text);
      const next = res.body;
      assert.equal(next.workflowInstanceId, id);
      assert.equal(next.referenceTaskName, 's1');
      assert.equal(next.status, 'IN_PROGRESS');
      assert.equal(next.workerId, 'w9');
      assert.equal(next.pollCount, 1);
      assert.ok(next.startTime > 0);
      assert.deepEqual(next.inputData, { k: 1, previous: 10 });

      // Stored exactly as a claim leaves it, so nobody else can take it.
      const stored = await call(t.app, 'GET', `/api/tasks/${next.taskId}`);
      assert.equal(stored.body.status, 'IN_PROGRESS');
      assert.equal(stored.body.workerId, 'w9');
      const message = await t.store.read((tx) => tx.getMessage(next.taskId));
      assert.ok(message);
      assert.equal(message.workerId, 'w9');
      assert.equal(message.deliveryCount, 1);
      assert.ok(message.lockedUntil !== null && message.lockedUntil >= next.startTime + 30_000 - 5);
      assert.deepEqual(await pollTasks(t.app, 'ho_step', 5, 'w2'), []);
      // The lock is the response deadline: no timer row, the lock's lapse is what the timer loop sweeps.
      assert.deepEqual(await t.store.read((tx) => tx.listTimers({ taskIds: [next.taskId] })), []);
      assert.equal(await t.store.read((tx) => tx.nextLockLapseAt()), message.lockedUntil);

      const last = await updateV2(next, 20);
      assert.equal(last.status, 200, last.text);
      assert.equal(last.body.referenceTaskName, 's2');
      const none = await updateV2(last.body, 30);
      assert.equal(none.status, 204);
      const run = await runOf(t.app, id);
      assert.equal(run.status, 'COMPLETED');
      assert.deepEqual(
        run.tasks.map((x: { referenceTaskName: string; pollCount: number; workerId: string }) => [
          x.referenceTaskName,
          x.pollCount,
          x.workerId,
        ]),
        [
          ['s0', 1, 'w9'],
          ['s1', 1, 'w9'],
          ['s2', 1, 'w9'],
        ],
      );
    });

    it('takes the run it advanced first and leaves queued work to the next poll', async () => {
      const a = await startRun(t.app, 'ho_chain', { input: { x: 1 } });
      const b = await startRun(t.app, 'ho_chain', { input: { x: 2 } });
      const first = await pollOneTask(t.app, 'ho_step', 'w9');
      assert.equal(first.workflowInstanceId, a);
      const res = await updateV2(first, 1);
      assert.equal(res.body.workflowInstanceId, a);
      assert.equal(res.body.referenceTaskName, 's1');
      const other = await pollOneTask(t.app, 'ho_step', 'w2');
      assert.equal(other.workflowInstanceId, b);
      assert.equal(other.referenceTaskName, 's0');
    });

    it('hands out a type with limits through the claim, which keeps to them', async () => {
      const id = await startRun(t.app, 'ho_limited_chain', { input: { x: 1 } });
      const first = await pollOneTask(t.app, 'ho_limited', 'w9');
      const res = await updateV2(first, 5);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.workflowInstanceId, id);
      assert.equal(res.body.referenceTaskName, 's1');
      assert.equal(res.body.status, 'IN_PROGRESS');
    });

    it('answers no task to a result that keeps its task IN_PROGRESS', async () => {
      await startRun(t.app, 'ho_chain', { input: { x: 1 } });
      const first = await pollOneTask(t.app, 'ho_step', 'w1');
      const res = await call(t.app, 'POST', '/api/tasks/update-v2', {
        taskId: first.taskId,
        workflowInstanceId: first.workflowInstanceId,
        status: 'IN_PROGRESS',
        callbackAfterSeconds: 60,
      });
      assert.equal(res.status, 204);
    });
  });
}
