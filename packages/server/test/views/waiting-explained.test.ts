import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { ManualClock } from '../../src/clock.js';
import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { postResult } from '../helpers/runs.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';

/** Explainable waiting: `GET /api/workflow/{id}` and `GET /api/tasks/{taskId}` say why an open task waits. */
for (const storeCase of storeCases()) {
  describe(`explainable waiting on ${storeCase.name}`, () => {
    const clock = new ManualClock();
    const t = appSuite(storeCase, { clock });
    before(async () => {
      const defs = [
        ...workerTaskDefs(['wt_work']),
        ...workerTaskDefs(['wt_retry'], { retryCount: 1, retryDelaySeconds: 30 }),
      ];
      assert.equal((await call(t.app, 'POST', '/api/metadata/taskdefs', defs)).status, 200);
      const defsWf = [
        workflowDef('wf_wt', [{ name: 'wt_work', taskReferenceName: 'work', type: 'SIMPLE' }]),
        workflowDef('wf_wt_retry', [{ name: 'wt_retry', taskReferenceName: 'r', type: 'SIMPLE' }]),
        workflowDef('wf_wt_delay', [
          { name: 'wt_work', taskReferenceName: 'late', type: 'SIMPLE', startDelay: 20 },
        ]),
      ];
      for (const wf of defsWf)
        assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', wf)).status, 200);
    });

    const start = async (name: string): Promise<string> =>
      (await call(t.app, 'POST', `/api/workflow/${name}`, { input: {} })).text;
    const waiting = async (id: string): Promise<any> => {
      const run = (await call(t.app, 'GET', `/api/workflow/${id}`)).body;
      assert.equal(run.waitingFor.length, 1, JSON.stringify(run.waitingFor));
      const open = run.tasks.find((x: any) => x.waitingFor !== undefined);
      const { taskId, referenceTaskName: _ref, taskType: _type, ...summary } = run.waitingFor[0];
      assert.equal(taskId, open.taskId);
      assert.deepEqual(open.waitingFor, summary, 'the run summary repeats the task\u2019s reason');
      const task = (await call(t.app, 'GET', `/api/tasks/${open.taskId}`)).body;
      assert.deepEqual(task.waitingFor, open.waitingFor, 'the task read says the same');
      return run.waitingFor[0];
    };
    const poll = async (type: string, worker = 'w1'): Promise<any> =>
      (await call(t.app, 'GET', `/api/tasks/poll/${type}?workerid=${worker}`)).body;

    it('no-worker: nobody has polled the queue', async () => {
      const id = await start('wf_wt');
      const w = await waiting(id);
      assert.equal(w.reason, 'no-worker');
      assert.equal(w.message, 'waiting: no worker has ever polled wt_work');
      assert.equal(w.referenceTaskName, 'work');
      assert.equal(w.taskType, 'wt_work');
    });

    it('lock: taken by a worker until its lock ends; worker: queued while a worker polls', async () => {
      const a = await start('wf_wt');
      const b = await start('wf_wt');
      // Two runs waiting (one from the test above): take the oldest two, leave b.
      const first = await poll('wt_work', 'w-lock');
      const second = await poll('wt_work', 'w-lock');
      assert.ok([first.workflowInstanceId, second.workflowInstanceId].includes(a));
      const lock = await waiting(a);
      assert.equal(lock.reason, 'lock');
      assert.equal(lock.workerId, 'w-lock');
      assert.equal(lock.until, clock.now() + 60_000);
      assert.match(lock.message, /^waiting: worker w-lock holds wt_work until .* \(60 s\)$/);
      clock.advance(3000);
      const w = await waiting(b);
      assert.equal(w.reason, 'worker');
      assert.equal(w.message, 'waiting: queued on wt_work for a wt_work worker; last poll 3 s ago by w-lock');
      // After 10 s without a poll the same task has no worker.
      clock.advance(8000);
      const none = await waiting(b);
      assert.equal(none.reason, 'no-worker');
      assert.equal(none.message, 'waiting: no worker has polled wt_work for 11 s');
      for (const task of [first, second]) {
        await postResult(t.app, task, 'COMPLETED');
      }
    });

    it('callback: the worker answered IN_PROGRESS with callbackAfterSeconds', async () => {
      const task = await poll('wt_work');
      await postResult(t.app, task, 'IN_PROGRESS', { callbackAfterSeconds: 45 });
      const w = await waiting(task.workflowInstanceId);
      assert.equal(w.reason, 'callback');
      assert.equal(w.until, clock.now() + 45_000);
      clock.advance(45_000);
      const again = await poll('wt_work');
      assert.equal(again.taskId, task.taskId);
      await postResult(t.app, task, 'COMPLETED');
    });

    it('retry-delay: a new attempt waits for its retry delay', async () => {
      const id = await start('wf_wt_retry');
      const task = await poll('wt_retry');
      await call(t.app, 'POST', '/api/tasks', {
        taskId: task.taskId,
        workflowInstanceId: id,
        status: 'FAILED',
        reasonForIncompletion: 'flaky',
      });
      const w = await waiting(id);
      assert.equal(w.reason, 'retry-delay');
      assert.equal(w.until, clock.now() + 30_000);
      assert.match(w.message, /^waiting: attempt 2 of wt_retry is due at .*\(in 30 s\)$/);
    });

    it('start-delay: a task with startDelay waits for it', async () => {
      const id = await start('wf_wt_delay');
      const w = await waiting(id);
      assert.equal(w.reason, 'start-delay');
      assert.equal(w.until, clock.now() + 20_000);
    });

    it('dead-letter and missing-message come from the queue message', async () => {
      const dead = await start('wf_wt');
      const deadTask = (await call(t.app, 'GET', `/api/workflow/${dead}`)).body.tasks[0];
      await t.store.transaction((tx) => tx.deadLetterMessage(deadTask.taskId));
      const d = await waiting(dead);
      assert.equal(d.reason, 'dead-letter');
      assert.match(d.message, /POST \/api\/admin\/requeue\/wt_work/);

      const lost = await start('wf_wt');
      const lostTask = (await call(t.app, 'GET', `/api/workflow/${lost}`)).body.tasks[0];
      await t.store.transaction((tx) => tx.removeMessages([lostTask.taskId]));
      const m = await waiting(lost);
      assert.equal(m.reason, 'missing-message');
      assert.match(m.message, new RegExp(`POST /api/admin/repair/${lost}`));
    });

    it('a paused run says so; an ended run waits for nothing', async () => {
      const id = await start('wf_wt');
      await t.store.transaction(async (tx) => {
        const run = await tx.lockRun(id);
        await tx.updateRun({ ...run!, status: 'PAUSED' });
      });
      const run = (await call(t.app, 'GET', `/api/workflow/${id}`)).body;
      assert.deepEqual(
        run.waitingFor.map((w: any) => w.reason),
        ['paused', 'worker'],
      );
      const done = await start('wf_wt_retry');
      await t.store.transaction(async (tx) => {
        const r = await tx.lockRun(done);
        await tx.updateRun({ ...r!, status: 'TERMINATED' });
      });
      assert.equal((await call(t.app, 'GET', `/api/workflow/${done}`)).body.waitingFor, undefined);
    });
  });
}
