import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { chainDefinitions, RunDriver } from './run-control-driver.js';

/** Mailbox, signals, idempotent start, bulk operations, test runs and sync execute, on each store. */
for (const storeCase of storeCases()) {
  describe(`run messages, bulk, test runs and sync execute on ${storeCase.name}`, () => {
    let d: RunDriver;
    const bulk = chainDefinitions('rc_bulk');
    const exec = chainDefinitions('rc_exec');

    const pullDef = (name: string, params: Record<string, unknown>) =>
      workflowDef(
        name,
        [
          {
            name: 'pull',
            taskReferenceName: 'pull',
            type: 'PULL_WORKFLOW_MESSAGES',
            inputParameters: params,
          },
          {
            name: `${name}_after`,
            taskReferenceName: 'after',
            type: 'SIMPLE',
            inputParameters: { got: '${pull.output.messages}', count: '${pull.output.count}' },
          },
        ],
        {},
      );

    const t = appSuite(storeCase);
    before(async () => {
      d = new RunDriver(t.app);
      await d.register(
        [
          pullDef('rc_pull', { batchSize: 2 }),
          pullDef('rc_pull_nb', { blocking: false }),
          workflowDef('rc_pull_late', [
            { name: 'rc_pull_gate', taskReferenceName: 'gate', type: 'SIMPLE' },
            {
              name: 'pull',
              taskReferenceName: 'pull',
              type: 'PULL_WORKFLOW_MESSAGES',
              inputParameters: { batchSize: 2 },
            },
          ]),
          bulk.def('rc_bulk_wf'),
          exec.def('rc_exec_wf'),
          workflowDef('rc_idem', [{ name: 'rc_idem_t', taskReferenceName: 't', type: 'SIMPLE' }]),
          workflowDef('rc_idem2', [{ name: 'rc_idem_t', taskReferenceName: 't', type: 'SIMPLE' }]),
        ],
        [
          ...workerTaskDefs(['rc_pull_after', 'rc_pull_nb_after', 'rc_pull_gate', 'rc_idem_t']),
          ...bulk.taskDefs,
          ...exec.taskDefs,
          ...workerTaskDefs(['rc_mock_a', 'rc_mock_b'], { retryCount: 1, retryDelaySeconds: 3600 }),
        ],
      );
    });

    it('a blocking PULL_WORKFLOW_MESSAGES task waits for messages and takes them in order', async () => {
      const id = await d.start('rc_pull');
      assert.deepEqual(await d.taskStates(id), [['pull', 'IN_PROGRESS']]);
      const m1 = await d.ok('POST', `/api/workflow/${id}/messages`, { n: 1 });
      assert.match(m1.text, /^[0-9a-f-]{36}$/);
      const run = await d.run(id);
      assert.deepEqual(
        run.tasks.map((x: any) => [x.referenceTaskName, x.status]),
        [
          ['pull', 'COMPLETED'],
          ['after', 'SCHEDULED'],
        ],
      );
      assert.equal(run.tasks[0].outputData.count, 1);
      assert.deepEqual(run.tasks[0].outputData.messages[0].payload, { n: 1 });
      assert.equal(run.tasks[0].outputData.messages[0].id, m1.text);
      const after = await d.pollOne('rc_pull_after');
      assert.equal(after.inputData.count, 1);

      // While paused, the blocked reader still takes the first message (recorded), nothing follows.
      const paused = await d.start('rc_pull');
      await d.ok('PUT', `/api/workflow/${paused}/pause`);
      await d.ok('POST', `/api/workflow/${paused}/messages`, { n: 'p' });
      assert.deepEqual(await d.taskStates(paused), [['pull', 'COMPLETED']]);
      assert.deepEqual(await d.poll('rc_pull_after'), [], 'a paused run schedules nothing');
      await d.ok('PUT', `/api/workflow/${paused}/resume`);
      assert.equal((await d.pollOne('rc_pull_after')).inputData.count, 1);

      // Messages sent before the reader is reached wait in the mailbox; it takes a batch, oldest first.
      const late = await d.start('rc_pull_late');
      for (const n of ['a', 'b', 'c']) await d.ok('POST', `/api/workflow/${late}/messages`, { n });
      await d.complete('rc_pull_gate');
      const taken = (await d.run(late)).tasks[1];
      assert.equal(taken.status, 'COMPLETED');
      assert.deepEqual(
        taken.outputData.messages.map((m: any) => m.payload.n),
        ['a', 'b'],
      );
      assert.equal(await d.status(late), 'COMPLETED');
    });

    it('a non-blocking reader with an empty mailbox completes with no messages', async () => {
      const id = await d.start('rc_pull_nb');
      const run = await d.run(id);
      assert.deepEqual(run.tasks[0].outputData, { messages: [], count: 0 });
      assert.equal((await d.pollOne('rc_pull_nb_after')).inputData.count, 0);
    });

    it('a signal appends a message and completes the first blocked task at once', async () => {
      const id = await d.start('rc_pull');
      const pullTask = (await d.run(id)).tasks[0];
      const answer = await d.ok('POST', `/api/workflow/${id}/signal`, { approved: true });
      assert.equal(answer.body.taskId, pullTask.taskId);
      assert.match(answer.body.messageId, /^[0-9a-f-]{36}$/);
      const run = await d.run(id);
      assert.deepEqual(run.tasks[0].outputData.messages[0].payload, { approved: true });
      assert.equal(run.tasks[1].status, 'SCHEDULED');

      // Nothing blocked: the message stays in the mailbox, no task is named.
      const none = await d.ok('POST', `/api/workflow/${id}/signal`, { again: true });
      assert.equal(none.body.taskId, undefined);
      // Conductor's task signal on a run with nothing blocked changes nothing.
      const taskSignal = await d.ok('POST', `/api/tasks/${id}/COMPLETED/signal`, { x: 1 });
      assert.equal(taskSignal.body.taskId, undefined);
      // The task signal appends nothing to the mailbox, so a blocked mailbox reader keeps waiting.
      const other = await d.start('rc_pull');
      const viaTask = await d.ok('POST', `/api/tasks/${other}/COMPLETED/signal`, { x: 1 });
      assert.equal(viaTask.body.taskId, undefined);
      assert.deepEqual(await d.taskStates(other), [['pull', 'IN_PROGRESS']]);
      assert.equal((await call(t.app, 'POST', '/api/workflow/nope/signal', {})).status, 404);
      assert.equal((await call(t.app, 'POST', '/api/workflow/nope/messages', {})).status, 404);
      for (const run of [id, other]) {
        await d.ok('DELETE', `/api/workflow/${run}`);
        await d.conflict('POST', `/api/workflow/${run}/messages`, 'TERMINATED', {});
      }
    });

    it('idempotent start: FAIL (the default) answers 409, RETURN_EXISTING the first run; keys are per name', async () => {
      const first = await d.start('rc_idem', { idempotencyKey: 'order-7' });
      await d.conflict('POST', '/api/workflow/rc_idem', 'order-7', { idempotencyKey: 'order-7' });
      await d.conflict('POST', '/api/workflow/rc_idem', first, {
        idempotencyKey: 'order-7',
        idempotencyStrategy: 'FAIL',
      });
      const again = await d.start('rc_idem', {
        idempotencyKey: 'order-7',
        idempotencyStrategy: 'RETURN_EXISTING',
      });
      assert.equal(again, first);
      const otherName = await d.start('rc_idem2', { idempotencyKey: 'order-7' });
      assert.notEqual(otherName, first);
      const search = await d.ok('GET', '/api/workflow/search?name=rc_idem');
      assert.equal(search.body.totalHits, 1);
      assert.equal((await d.run(first)).idempotencyKey, 'order-7');
    });

    it('bulk operations answer a result per id and refuse more than 1000 ids', async () => {
      const a = await d.start('rc_bulk_wf', { input: { x: 1 } });
      const b = await d.start('rc_bulk_wf', { input: { x: 2 } });
      const paused = await d.ok('PUT', '/api/workflow/bulk/pause', [a, b, 'missing-run']);
      assert.deepEqual(paused.body.bulkSuccessfulResults, [a, b]);
      assert.match(paused.body.bulkErrorResults['missing-run'], /No such workflow/);
      const again = await d.ok('POST', '/api/workflow/bulk/pause', [a]);
      assert.match(again.body.bulkErrorResults[a], /PAUSED/);
      assert.deepEqual((await d.ok('PUT', '/api/workflow/bulk/resume', [a, b])).body.bulkSuccessfulResults, [
        a,
        b,
      ]);
      const terminated = await d.ok('POST', '/api/workflow/bulk/terminate?reason=cleanup', [a, b]);
      assert.deepEqual(terminated.body, { bulkSuccessfulResults: [a, b], bulkErrorResults: {} });
      assert.equal((await d.run(a)).reasonForIncompletion, 'cleanup');
      const retried = await d.ok('POST', '/api/workflow/bulk/retry', [a]);
      assert.deepEqual(retried.body.bulkSuccessfulResults, [a]);
      const restarted = await d.ok('POST', '/api/workflow/bulk/restart', [b]);
      assert.deepEqual(restarted.body.bulkSuccessfulResults, [b]);
      for (const id of [a, b]) {
        const successor = (await d.run(id)).links;
        const next = successor.retried_by?.[0] ?? successor.restarted_by?.[0];
        await d.ok('DELETE', `/api/workflow/${next}`);
      }
      const tooMany = await call(
        t.app,
        'POST',
        '/api/workflow/bulk/terminate',
        Array.from({ length: 1001 }, (_, i) => `id-${i}`),
      );
      assert.equal(tooMany.status, 400, tooMany.text);
      assert.equal((await call(t.app, 'POST', '/api/workflow/bulk/explode', [a])).status, 400);
    });

    it('a test run uses mocks in order per attempt, exercises retries, and calls nothing outside', async () => {
      const def = workflowDef(
        'rc_mock',
        [
          {
            name: 'rc_mock_a',
            taskReferenceName: 'a',
            type: 'SIMPLE',
            inputParameters: { x: '${workflow.input.x}' },
          },
          {
            name: 'rc_mock_b',
            taskReferenceName: 'b',
            type: 'SIMPLE',
            inputParameters: { y: '${a.output.y}' },
          },
        ],
        { out: '${b.output.z}' },
      );
      const res = await d.ok('POST', '/api/workflow/test', {
        workflowDef: def,
        input: { x: 1 },
        taskRefToMockOutput: {
          a: [
            { status: 'FAILED', reasonForIncompletion: 'first attempt fails' },
            { status: 'COMPLETED', output: { y: 2 } },
          ],
          b: [{ output: { z: 'done' } }],
        },
      });
      const run = res.body;
      assert.equal(run.status, 'COMPLETED');
      assert.deepEqual(run.output, { out: 'done' });
      assert.deepEqual(
        run.tasks.map((x: any) => [x.referenceTaskName, x.status, x.retryCount]),
        [
          ['a', 'FAILED', 0],
          ['a', 'COMPLETED', 1],
          ['b', 'COMPLETED', 0],
        ],
      );
      assert.deepEqual(run.tasks[2].inputData, { y: 2 });
      // The retry waited an hour of virtual time, no wall time.
      assert.ok(run.tasks[1].endTime - run.tasks[0].endTime >= 3_600_000);

      // A task without a mock leaves the run RUNNING.
      const open = await d.ok('POST', '/api/workflow/test', {
        workflowDef: def,
        input: { x: 1 },
        taskRefToMockOutput: { a: [{ output: { y: 1 } }] },
      });
      assert.equal(open.body.status, 'RUNNING');
      assert.deepEqual(
        open.body.tasks.map((x: any) => [x.referenceTaskName, x.status]),
        [
          ['a', 'COMPLETED'],
          ['b', 'SCHEDULED'],
        ],
      );
      // Nothing reached the real store: no run, no queued task.
      assert.equal((await call(t.app, 'GET', `/api/workflow/${open.body.workflowId}`)).status, 404);
      assert.equal(await d.queueSize('rc_mock_a'), 0);
      assert.equal(await d.queueSize('rc_mock_b'), 0);
      const invalid = await call(t.app, 'POST', '/api/workflow/test', {
        workflowDef: { name: 'x', tasks: [] },
      });
      assert.equal(invalid.status, 400, invalid.text);
    });

    it('publishes every run-control route in the OpenAPI document', async () => {
      const doc = (await d.ok('GET', '/api/openapi.json')).body;
      for (const path of [
        '/api/workflow/{workflowId}/pause',
        '/api/workflow/{workflowId}/resume',
        '/api/workflow/{workflowId}/retry',
        '/api/workflow/{workflowId}/restart',
        '/api/workflow/{workflowId}/rerun',
        '/api/workflow/{workflowId}/skiptask/{ref}',
        '/api/workflow/{workflowId}/messages',
        '/api/workflow/{workflowId}/signal',
        '/api/workflow/bulk/{operation}',
        '/api/workflow/test',
        '/api/workflow/execute/{name}/{version}',
      ]) {
        assert.ok(doc.paths[path], `${path} is missing`);
      }
      assert.ok(doc.paths['/api/workflow/{workflowId}'].delete);
    });

    it('sync execute answers once the run ends, blocks or the wait runs out', async () => {
      // Blocked at once: a PULL_WORKFLOW_MESSAGES waiting for messages.
      const blocked = await d.ok('POST', '/api/workflow/execute/rc_pull/0?waitForSeconds=30', {});
      assert.equal(blocked.body.status, 'RUNNING');
      assert.equal(blocked.body.signalTimeout, undefined);
      assert.equal(blocked.body.targetWorkflowId, blocked.body.workflowId);
      await d.ok('DELETE', `/api/workflow/${blocked.body.workflowId}`);

      // No wait: the run as it stands.
      const now = await d.ok('POST', '/api/workflow/execute/rc_exec_wf/1?waitForSeconds=0&requestId=r1', {
        input: { x: 1 },
      });
      assert.equal(now.body.signalTimeout, true);
      assert.equal(now.body.requestId, 'r1');
      await d.ok('DELETE', `/api/workflow/${now.body.workflowId}`);
      await d.poll('rc_exec_a', 10);

      // Woken by the commits that finish the run.
      const pending = call(t.app, 'POST', '/api/workflow/execute/rc_exec_wf/1?waitForSeconds=60', {
        input: { x: 1 },
      });
      for (const [type, output] of [
        ['rc_exec_a', { y: 1 }],
        ['rc_exec_b', { z: 1 }],
        ['rc_exec_c', { done: 'sync' }],
      ] as const) {
        const res = await call(t.app, 'GET', `/api/tasks/poll/batch/${type}?count=1&timeout=5000&workerid=w`);
        assert.equal(res.body.length, 1);
        await d.result(res.body[0], 'COMPLETED', output);
      }
      const answer = await pending;
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.status, 'COMPLETED');
      assert.equal(answer.body.output.final, 'sync');
      assert.equal(answer.body.signalTimeout, undefined);

      // waitUntilTaskRef: answered once that task has ended.
      const untilA = call(
        t.app,
        'POST',
        '/api/workflow/execute/rc_exec_wf/1?waitForSeconds=60&waitUntilTaskRef=a',
        {
          input: { x: 2 },
        },
      );
      const res = await call(t.app, 'GET', `/api/tasks/poll/batch/rc_exec_a?count=1&timeout=5000&workerid=w`);
      await d.result(res.body[0], 'COMPLETED', { y: 2 });
      const partial = await untilA;
      assert.equal(partial.body.status, 'RUNNING');
      assert.equal(partial.body.tasks[0].status, 'COMPLETED');
      await d.ok('DELETE', `/api/workflow/${partial.body.workflowId}`);
    });
  });
}
