import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { pollOneTask } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';
import { taskDefs, threeStepWorkflow } from './fixtures.js';

for (const storeCase of storeCases()) {
  describe(`run and task routes on ${storeCase.name}`, () => {
    const t = appSuite(storeCase);
    before(async () => {
      assert.equal((await call(t.app, 'POST', '/api/metadata/taskdefs', taskDefs())).status, 200);
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', threeStepWorkflow())).status, 200);
    });

    const pollOne = (type: string, worker = 'w1') => pollOneTask(t.app, type, worker);

    it('runs a three-task workflow end to end through the real routes', async () => {
      const start = await call(t.app, 'POST', '/api/workflow/three_steps', {
        input: { x: 7 },
        correlationId: 'order-1',
      });
      assert.equal(start.status, 200, start.text);
      assert.match(String(start.headers['content-type']), /text\/plain/);
      const id = start.text;

      const a = await pollOne('http_a');
      assert.equal(a.workflowInstanceId, id);
      assert.deepEqual(a.inputData, { x: 7 });
      assert.equal(a.status, 'IN_PROGRESS');
      assert.equal(a.pollCount, 1);
      assert.equal(a.workerId, 'w1');
      assert.ok(a.startTime > 0);
      const done = await call(t.app, 'POST', '/api/tasks', {
        taskId: a.taskId,
        workflowInstanceId: id,
        status: 'COMPLETED',
        outputData: { y: 'why' },
        logs: ['first line', { log: 'second line', createdTime: 1 }],
      });
      assert.equal(done.status, 200);
      assert.equal(done.text, a.taskId);

      const b = await pollOne('http_b');
      assert.deepEqual(b.inputData, { fromA: 'why' });
      // update-v2 answers the next task of the same type, or a bare 204 when there is none.
      const v2 = await call(t.app, 'POST', '/api/tasks/update-v2', {
        taskId: b.taskId,
        workflowInstanceId: id,
        status: 'COMPLETED',
        outputData: { z: 26 },
      });
      assert.equal(v2.status, 204);
      assert.equal(v2.text, '');
      assert.equal(v2.headers['content-type'], undefined);

      const c = await pollOne('http_c');
      assert.deepEqual(c.inputData, { all: 'a=why b=26' });
      // The interface's field name `workflowId` is accepted as well as Conductor's.
      const cDone = await call(t.app, 'POST', '/api/tasks', {
        taskId: c.taskId,
        workflowId: id,
        status: 'COMPLETED',
        outputData: { done: true },
      });
      assert.equal(cDone.status, 200, cDone.text);

      const run = await call(t.app, 'GET', `/api/workflow/${id}`);
      assert.equal(run.status, 200);
      assert.equal(run.body.status, 'COMPLETED');
      assert.deepEqual(run.body.output, { final: true, fromA: 'why' });
      assert.deepEqual(
        run.body.tasks.map((x: any) => [x.referenceTaskName, x.status, x.pollCount]),
        [
          ['a', 'COMPLETED', 1],
          ['b', 'COMPLETED', 1],
          ['c', 'COMPLETED', 1],
        ],
      );
      assert.equal(run.body.correlationId, 'order-1');
      assert.equal(run.body.workflowDefinition.name, 'three_steps');

      const logs = await call(t.app, 'GET', `/api/tasks/${a.taskId}/log`);
      assert.deepEqual(
        logs.body.map((l: any) => l.log),
        ['first line', 'second line'],
      );

      const status = await call(t.app, 'GET', `/api/workflow/${id}/status?includeOutput=true`);
      assert.deepEqual(status.body, {
        workflowId: id,
        status: 'COMPLETED',
        correlationId: 'order-1',
        output: { final: true, fromA: 'why' },
      });

      // A late result for an ended task is refused (409 naming its status) and changes nothing;
      // an exact repeat of the recorded one is acknowledged again.
      const late = await call(t.app, 'POST', '/api/tasks', {
        taskId: a.taskId,
        workflowInstanceId: id,
        status: 'FAILED',
        reasonForIncompletion: 'too late',
      });
      assert.equal(late.status, 409, late.text);
      assert.match(
        late.body.message,
        /is COMPLETED: this attempt has ended, so the FAILED result was not applied/,
      );
      const repeat = await call(t.app, 'POST', '/api/tasks', {
        taskId: a.taskId,
        workflowInstanceId: id,
        status: 'COMPLETED',
        outputData: { y: 'why' },
      });
      assert.equal(repeat.status, 200, repeat.text);
      const again = await call(t.app, 'GET', `/api/tasks/${a.taskId}`);
      assert.equal(again.body.status, 'COMPLETED');
      assert.deepEqual(again.body.outputData, { y: 'why' });
      assert.equal((await call(t.app, 'GET', `/api/workflow/${id}`)).body.status, 'COMPLETED');
    });

    it('starts with Conductor’s body too, and reads runs by search and correlation id', async () => {
      const res = await call(t.app, 'POST', '/api/workflow', {
        name: 'three_steps',
        input: { x: 1 },
        correlationId: 'order-2',
      });
      assert.equal(res.status, 200, res.text);
      const id = res.text;
      const unknown = await call(t.app, 'POST', '/api/workflow/no_such_wf', { input: {} });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.message, 'No such workflow found by name: no_such_wf');

      const byCorrelation = await call(t.app, 'GET', '/api/workflow/three_steps/correlated/order-2');
      assert.deepEqual(
        byCorrelation.body.map((r: any) => r.workflowId),
        [id],
      );
      const search = await call(
        t.app,
        'GET',
        '/api/workflow/search?name=three_steps&status=RUNNING&correlationId=order-2',
      );
      assert.equal(search.status, 200);
      assert.equal(search.body.totalHits, 1);
      assert.equal(search.body.results[0].workflowId, id);
      assert.equal(search.body.results[0].workflowType, 'three_steps');
      const free = await call(t.app, 'GET', `/api/workflow/search?freeText=${id}`);
      assert.equal(free.body.totalHits, 1);
      const paged = await call(
        t.app,
        'GET',
        '/api/workflow/search?name=three_steps&size=1&start=0&sort=createTime:ASC',
      );
      assert.equal(paged.body.results.length, 1);
      assert.ok(paged.body.totalHits >= 2);
      const badSort = await call(t.app, 'GET', '/api/workflow/search?sort=password:ASC');
      assert.equal(badSort.status, 400);
      const badStatus = await call(t.app, 'GET', '/api/workflow/search?status=SLEEPING');
      assert.equal(badStatus.status, 400);
      assert.equal(badStatus.body.validationErrors[0].path, 'querystring.status');
    });

    it('answers a bare 204 to an empty single poll and 200 [] to an empty batch poll', async () => {
      const single = await call(t.app, 'GET', '/api/tasks/poll/nothing_here?workerid=w');
      assert.equal(single.status, 204);
      assert.equal(single.text, '');
      assert.equal(single.headers['content-type'], undefined);
      const batch = await call(t.app, 'GET', '/api/tasks/poll/batch/nothing_here?count=5&timeout=0');
      assert.equal(batch.status, 200);
      assert.deepEqual(batch.body, []);
      const tooLong = await call(t.app, 'GET', '/api/tasks/poll/batch/nothing_here?timeout=6000');
      assert.equal(tooLong.status, 400);
      assert.equal(tooLong.body.message, 'Long Poll Timeout value cannot be more than 5 seconds');
      const polldata = await call(t.app, 'GET', '/api/tasks/queue/polldata?taskType=nothing_here');
      assert.equal(polldata.status, 200);
      assert.ok(polldata.body.some((p: any) => p.workerId === 'w' && p.queueName === 'nothing_here'));
    });

    it('wakes a waiting batch poll as soon as work is queued', async () => {
      await call(t.app, 'POST', '/api/metadata/workflow', {
        name: 'wake_wf',
        tasks: [{ name: 'wake_task', taskReferenceName: 'w', type: 'SIMPLE' }],
      });
      const began = Date.now();
      const polling = call(
        t.app,
        'GET',
        '/api/tasks/poll/batch/wake_task?count=1&timeout=5000&workerid=waiter',
      );
      // Start only once the poll is really waiting (bounded wait on a condition).
      for (let i = 0; i < 500 && t.server.app && (await pollersWaiting()) === 0; i++)
        await new Promise((r) => setTimeout(r, 5));
      const started = await call(t.app, 'POST', '/api/workflow/wake_wf', {});
      const res = await polling;
      assert.equal(res.body.length, 1);
      assert.equal(res.body[0].workflowInstanceId, started.text);
      // Woken, not timed out: far less than the 5 s it would otherwise have waited.
      assert.ok(Date.now() - began < 4500, `poll took ${Date.now() - began} ms`);
    });

    async function pollersWaiting(): Promise<number> {
      const data = await call(t.app, 'GET', '/api/tasks/queue/polldata?taskType=wake_task');
      return data.body.length;
    }

    it('fails the run with a reason naming the task when a worker fails it with no retries left', async () => {
      const id = (await call(t.app, 'POST', '/api/workflow/three_steps', { input: { x: 1 } })).text;
      let a = await pollOne('http_a');
      while (a.workflowInstanceId !== id) {
        await call(t.app, 'POST', '/api/tasks', {
          taskId: a.taskId,
          workflowInstanceId: a.workflowInstanceId,
          status: 'FAILED_WITH_TERMINAL_ERROR',
        });
        a = await pollOne('http_a');
      }
      const res = await call(t.app, 'POST', '/api/tasks', {
        taskId: a.taskId,
        workflowInstanceId: id,
        status: 'FAILED',
        reasonForIncompletion: 'disk full',
      });
      assert.equal(res.status, 200);
      const run = (await call(t.app, 'GET', `/api/workflow/${id}`)).body;
      assert.equal(run.status, 'FAILED');
      assert.equal(run.reasonForIncompletion, "Task a failed with status: FAILED and reason: 'disk full'");
      assert.deepEqual(run.failedReferenceTaskNames, ['a']);
    });

    it('completes a task by reference name from outside', async () => {
      const id = (await call(t.app, 'POST', '/api/workflow/three_steps', { input: { x: 2 } })).text;
      const res = await call(t.app, 'POST', `/api/tasks/${id}/a/COMPLETED?workerid=ops`, { y: 'by-ref' });
      assert.equal(res.status, 200, res.text);
      const run = (await call(t.app, 'GET', `/api/workflow/${id}`)).body;
      assert.equal(run.tasks[0].status, 'COMPLETED');
      assert.deepEqual(run.tasks[0].outputData, { y: 'by-ref' });
      assert.equal(run.tasks[1].referenceTaskName, 'b');
      const none = await call(t.app, 'POST', `/api/tasks/${id}/zzz/COMPLETED`, {});
      assert.equal(none.status, 200);
      assert.equal(none.text, '');
      assert.equal((await call(t.app, 'POST', `/api/tasks/${id}/b/DONE`, {})).status, 400);
      assert.equal((await call(t.app, 'POST', '/api/tasks/nope/b/COMPLETED', {})).status, 404);
    });

    it('refuses bad bodies with a clear 4xx and changes nothing', async () => {
      const before = (await call(t.app, 'GET', '/api/workflow/search?name=three_steps')).body.totalHits;
      const cases: Array<[string, string, unknown, number, RegExp]> = [
        ['POST', '/api/workflow/three_steps', '{"input": {', 400, /JSON/i],
        ['POST', '/api/workflow/three_steps', { input: 'not an object' }, 400, /body\.input/],
        ['POST', '/api/workflow/three_steps', { priority: 100 }, 400, /body\.priority/],
        ['POST', '/api/workflow/three_steps', { version: 'one' }, 400, /body\.version/],
        [
          'POST',
          '/api/workflow/three_steps',
          { idempotencyStrategy: 'SOMETIMES' },
          400,
          /idempotencyStrategy/,
        ],
        ['POST', '/api/workflow', { input: {} }, 400, /body\.name/],
        ['POST', '/api/tasks', { status: 'COMPLETED' }, 400, /body\.taskId/],
        ['POST', '/api/tasks', { taskId: 'x', status: 'DONE' }, 400, /body\.status/],
        [
          'POST',
          '/api/tasks',
          { taskId: 'nope', workflowInstanceId: 'w', status: 'COMPLETED' },
          404,
          /No such task/,
        ],
        [
          'POST',
          '/api/tasks',
          { taskId: 'x', status: 'COMPLETED', outputData: [1] },
          400,
          /body\.outputData/,
        ],
        ['POST', '/api/metadata/workflow', { name: 5, tasks: 'none' }, 400, /body\.name/],
        ['GET', '/api/workflow/not-a-run', undefined, 404, /No such workflow found by id: not-a-run/],
        ['GET', '/api/tasks/not-a-task', undefined, 404, /No such task found by id/],
      ];
      for (const [method, url, body, status, message] of cases) {
        const res = await call(
          t.app,
          method as 'POST',
          url,
          typeof body === 'string' ? body : body,
          typeof body === 'string' ? { 'content-type': 'application/json' } : {},
        );
        assert.equal(
          res.status,
          status,
          `${method} ${url} ${JSON.stringify(body)} → ${res.status} ${res.text}`,
        );
        assert.equal(res.body.status, status);
        assert.equal(typeof res.body.retryable, 'boolean');
        assert.match(res.body.message + JSON.stringify(res.body.validationErrors ?? []), message, res.text);
      }
      const huge = await call(t.app, 'POST', '/api/workflow/three_steps', {
        input: { blob: 'x'.repeat(6 * 1024 * 1024) },
      });
      assert.equal(huge.status, 413);
      assert.equal(
        (await call(t.app, 'GET', '/api/workflow/search?name=three_steps')).body.totalHits,
        before,
      );
    });
  });
}
