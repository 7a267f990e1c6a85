import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { authSuite, send } from './auth-fixture.js';

const A = 'auth_type_a';
const B = 'auth_type_b';

for (const storeCase of storeCases()) {
  void describe(`auth: workers limited to their task types on ${storeCase.name}`, () => {
    const t = authSuite(storeCase);

    /** Starts a run of a one-task workflow of `type` and answers its id. */
    async function startRun(type: string): Promise<string> {
      const workflow = await t.token('c-workflow');
      const res = await send(t.app, 'POST', `/api/workflow/wf_${type}`, {
        token: workflow,
        body: { input: {} },
      });
      assert.equal(res.status, 200, res.text);
      return res.text;
    }

    /** The run's task as an admin sees it. */
    async function taskOf(runId: string): Promise<{ taskId: string; status: string; logs: number }> {
      const admin = await t.token('c-admin');
      const run = await send(t.app, 'GET', `/api/workflow/${runId}`, { token: admin });
      const task = run.body.tasks[0];
      const logs = await send(t.app, 'GET', `/api/tasks/${task.taskId}/log`, { token: admin });
      return { taskId: task.taskId, status: task.status, logs: logs.status === 204 ? 0 : logs.body.length };
    }

    void it('registers two task types and their workflows', async () => {
      const meta = await t.token('c-metadata');
      assert.equal(
        (await send(t.app, 'POST', '/api/metadata/taskdefs', { token: meta, body: workerTaskDefs([A, B]) }))
          .status,
        200,
      );
      for (const type of [A, B]) {
        const def = workflowDef(`wf_${type}`, [
          { name: type, taskReferenceName: `ref_${type}`, type: 'SIMPLE' },
        ]);
        assert.equal(
          (await send(t.app, 'POST', '/api/metadata/workflow', { token: meta, body: def })).status,
          200,
        );
      }
    });

    void it('a worker:<type> token polls and completes its own type', async () => {
      const runA = await startRun(A);
      const worker = await t.token('c-worker-a');
      const polled = await send(t.app, 'GET', `/api/tasks/poll/batch/${A}?count=1&timeout=0&workerid=wa`, {
        token: worker,
        header: 'x-authorization',
      });
      assert.equal(polled.status, 200, polled.text);
      assert.equal(polled.body.length, 1);
      const taskId = polled.body[0].taskId as string;
      assert.equal((await send(t.app, 'GET', `/api/tasks/${taskId}`, { token: worker })).status, 200);
      const log = await send(t.app, 'POST', `/api/tasks/${taskId}/log`, { token: worker, body: 'working' });
      assert.equal(log.status, 200, log.text);
      const extend = await send(t.app, 'POST', '/api/tasks', {
        token: worker,
        body: { taskId, workflowInstanceId: runA, status: 'IN_PROGRESS', extendLease: true },
      });
      assert.equal(extend.status, 200, extend.text);
      const done = await send(t.app, 'POST', '/api/tasks/update-v2', {
        token: worker,
        body: { taskId, workflowInstanceId: runA, status: 'COMPLETED', outputData: { ok: true } },
      });
      assert.ok(done.status === 200 || done.status === 204, done.text);
      assert.equal((await taskOf(runA)).status, 'COMPLETED');
      // By run and reference name, on a second run.
      const runA2 = await startRun(A);
      const byRef = await send(t.app, 'POST', `/api/tasks/${runA2}/ref_${A}/COMPLETED`, {
        token: worker,
        body: {},
      });
      assert.equal(byRef.status, 200, byRef.text);
      assert.equal((await taskOf(runA2)).status, 'COMPLETED');
    });

    void it("a worker presenting another type's task gets 403 on every task route and changes nothing", async () => {
      const runB = await startRun(B);
      const worker = await t.token('c-worker-a');
      const deny = (res: { status: number; body: any; text: string }, what: string): void => {
        assert.equal(res.status, 403, `${what}: ${res.status} ${res.text}`);
        assert.match(res.body.message, /auth_type_b/, what);
      };
      deny(await send(t.app, 'GET', `/api/tasks/poll/${B}`, { token: worker }), 'poll');
      deny(await send(t.app, 'GET', `/api/tasks/poll/batch/${B}?timeout=0`, { token: worker }), 'batch poll');
      // Another identity takes the B task so it is in progress, then the worker of A tries it.
      const taker = await t.token('c-worker-all');
      const taken = await send(t.app, 'GET', `/api/tasks/poll/${B}?workerid=wb`, { token: taker });
      assert.equal(taken.status, 200, taken.text);
      const taskId = taken.body.taskId as string;
      const before = await taskOf(runB);
      const result = { taskId, workflowInstanceId: runB, status: 'COMPLETED', outputData: { stolen: true } };
      deny(await send(t.app, 'POST', '/api/tasks', { token: worker, body: result }), 'update');
      deny(await send(t.app, 'POST', '/api/tasks/update-v2', { token: worker, body: result }), 'update-v2');
      deny(
        await send(t.app, 'POST', '/api/tasks', {
          token: worker,
          body: { taskId, workflowInstanceId: runB, status: 'IN_PROGRESS', extendLease: true },
        }),
        'extend lease',
      );
      deny(
        await send(t.app, 'POST', `/api/tasks/${runB}/ref_${B}/COMPLETED`, { token: worker, body: {} }),
        'by ref',
      );
      deny(await send(t.app, 'POST', `/api/tasks/${taskId}/log`, { token: worker, body: 'x' }), 'log');
      deny(await send(t.app, 'GET', `/api/tasks/${taskId}/log`, { token: worker }), 'read log');
      deny(await send(t.app, 'GET', `/api/tasks/${taskId}`, { token: worker }), 'read task');
      assert.deepEqual(await taskOf(runB), before);
      assert.equal(before.status, 'IN_PROGRESS');
      // Task-group routes that are not a worker's (queue views, signals) need the task role.
      const queues = await send(t.app, 'GET', '/api/tasks/queue/sizes', { token: worker });
      assert.equal(queues.status, 403);
      assert.match(queues.body.message, /needs the role 'task'/);
      // worker:* may work on any type; the task role on every task route.
      const finish = await send(t.app, 'POST', '/api/tasks', { token: taker, body: result });
      assert.equal(finish.status, 200, finish.text);
      assert.equal((await taskOf(runB)).status, 'COMPLETED');
    });

    void it('the task role works every task route, and a worker cannot reach other groups', async () => {
      const runB = await startRun(B);
      const task = await t.token('c-task');
      const res = await send(t.app, 'POST', `/api/tasks/${runB}/ref_${B}/COMPLETED`, {
        token: task,
        body: {},
      });
      assert.equal(res.status, 200, res.text);
      const worker = await t.token('c-worker-a');
      assert.equal((await send(t.app, 'GET', `/api/workflow/${runB}`, { token: worker })).status, 403);
      assert.equal((await send(t.app, 'GET', '/api/metadata/taskdefs', { token: worker })).status, 403);
    });
  });
}
