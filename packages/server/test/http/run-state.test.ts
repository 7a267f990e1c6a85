import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { appSuite, register } from '../helpers/app-suite.js';
import { call } from '../helpers/app.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { pollOneTask, postResult, runOf, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

/** Variable updates and the synchronous signal, through the real routes, on every store. */

const varsFlow = workflowDef('rs_vars', [
  { name: 'rs_first', taskReferenceName: 'first', type: 'SIMPLE', inputParameters: {} },
  {
    name: 'rs_second',
    taskReferenceName: 'second',
    type: 'SIMPLE',
    inputParameters: { color: '${workflow.variables.color}', size: '${workflow.variables.size}' },
  },
]);
const child = workflowDef('rs_child', [
  { name: 'hold', taskReferenceName: 'child_wait', type: 'WAIT', inputParameters: {} },
]);
const signalFlow = workflowDef('rs_signal', [
  { name: 'hold', taskReferenceName: 'gate', type: 'WAIT', inputParameters: {} },
  {
    name: 'rs_after',
    taskReferenceName: 'after',
    type: 'SIMPLE',
    inputParameters: { got: '${gate.output.answer}' },
  },
]);
const nestedFlow = workflowDef('rs_nested', [
  { name: 'hold', taskReferenceName: 'outer_gate', type: 'WAIT', inputParameters: {} },
  {
    name: 'rs_child',
    taskReferenceName: 'sub',
    type: 'SUB_WORKFLOW',
    subWorkflowParam: { name: 'rs_child', version: 1 },
  },
]);

for (const storeCase of storeCases()) {
  describe(`run state API: ${storeCase.name}`, () => {
    const t = appSuite(storeCase);
    before(() =>
      register(
        t.app,
        [varsFlow, child, signalFlow, nestedFlow],
        workerTaskDefs(['rs_first', 'rs_second', 'rs_after']),
      ),
    );

    it("merges variables into a running run under its lock, and the next task's input sees them", async () => {
      const id = await startRun(t.app, 'rs_vars');
      const first = await pollOneTask(t.app, 'rs_first');
      const updated = await call(t.app, 'POST', `/api/workflow/${id}/variables`, { color: 'red', size: 1 });
      assert.equal(updated.status, 200, updated.text);
      assert.deepEqual(updated.body.variables, { color: 'red', size: 1 });
      assert.equal(updated.body.workflowId, id);
      await call(t.app, 'POST', `/api/workflow/${id}/variables`, { size: 2 });
      await postResult(t.app, first, 'COMPLETED');
      const second = await pollOneTask(t.app, 'rs_second');
      assert.deepEqual(second.inputData, { color: 'red', size: 2 });
      await postResult(t.app, second, 'COMPLETED');
      const ended = await call(t.app, 'POST', `/api/workflow/${id}/variables`, { late: true });
      assert.equal(ended.status, 409);
      assert.deepEqual((await runOf(t.app, id)).variables, { color: 'red', size: 2 });
      assert.equal((await call(t.app, 'POST', '/api/workflow/none/variables', { a: 1 })).status, 404);
      const big = await call(t.app, 'POST', `/api/workflow/${await startRun(t.app, 'rs_vars')}/variables`, {
        blob: 'x'.repeat(300 * 1024),
      });
      assert.equal(big.status, 400);
      assert.match(big.body.message, /permissible limit: 256 kilobytes/);
    });

    it('signals synchronously and answers the run or what it now waits on (returnStrategy)', async () => {
      const target = await startRun(t.app, 'rs_signal');
      const answer = await call(t.app, 'POST', `/api/tasks/${target}/COMPLETED/signal/sync`, { answer: 42 });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.responseType, 'TARGET_WORKFLOW');
      assert.equal(answer.body.targetWorkflowId, target);
      assert.equal(answer.body.workflowId, target);
      assert.equal(answer.body.status, 'RUNNING');
      assert.deepEqual(
        answer.body.tasks.map((x: { referenceTaskName: string; status: string }) => [
          x.referenceTaskName,
          x.status,
        ]),
        [
          ['gate', 'COMPLETED'],
          ['after', 'SCHEDULED'],
        ],
      );

      const second = await startRun(t.app, 'rs_signal');
      const blocking = await call(
        t.app,
        'POST',
        `/api/tasks/${second}/COMPLETED/signal/sync?returnStrategy=BLOCKING_TASK`,
        { answer: 7 },
      );
      assert.equal(blocking.body.responseType, 'BLOCKING_TASK');
      assert.equal(blocking.body.referenceTaskName, 'after');
      assert.equal(blocking.body.taskType, 'rs_after');
      assert.deepEqual(blocking.body.input, { got: 7 });
      assert.equal(blocking.body.targetWorkflowStatus, 'RUNNING');
      const third = await startRun(t.app, 'rs_signal');
      const input = await call(
        t.app,
        'POST',
        `/api/tasks/${third}/COMPLETED/signal/sync?returnStrategy=BLOCKING_TASK_INPUT`,
        { answer: 8 },
      );
      assert.equal(input.body.responseType, 'BLOCKING_TASK_INPUT');
      assert.deepEqual(input.body.input, { got: 8 });
    });

    // Conductor's SignalTaskSpec "Signal on a workflow with no blocking task returns null" and
    // TaskResource: the asynchronous signal names no task, the synchronous one answers 404.
    it('SignalTaskSpec: a signal with nothing blocked names no task; the synchronous one answers 404', async () => {
      const id = await startRun(t.app, 'rs_signal');
      assert.equal((await call(t.app, 'POST', `/api/tasks/${id}/COMPLETED/signal`, {})).status, 200);
      const before = await runOf(t.app, id);
      const none = await call(t.app, 'POST', `/api/tasks/${id}/COMPLETED/signal/sync`, { late: 1 });
      assert.equal(none.status, 404, none.text);
      assert.equal(none.body.message, `Found no blocked task in workflow ${id} to signal`);
      const async = await call(t.app, 'POST', `/api/tasks/${id}/COMPLETED/signal`, { late: 1 });
      assert.equal(async.status, 200, async.text);
      assert.equal(async.body.taskId, undefined);
      assert.deepEqual((await runOf(t.app, id)).tasks, before.tasks, 'nothing changed');
      // An ended run takes no more signals (409, as a message to it), on both routes.
      assert.equal((await call(t.app, 'DELETE', `/api/workflow/${id}`)).status, 200);
      assert.equal((await call(t.app, 'POST', `/api/tasks/${id}/COMPLETED/signal/sync`, {})).status, 409);
      assert.equal((await call(t.app, 'POST', '/api/tasks/none/COMPLETED/signal', {})).status, 404);
    });

    it('answers the blocking run inside a child run (BLOCKING_WORKFLOW)', async () => {
      const parent = await startRun(t.app, 'rs_nested');
      const answer = await call(
        t.app,
        'POST',
        `/api/tasks/${parent}/COMPLETED/signal/sync?returnStrategy=BLOCKING_WORKFLOW`,
        {},
      );
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.responseType, 'BLOCKING_WORKFLOW');
      assert.equal(answer.body.targetWorkflowId, parent);
      assert.notEqual(answer.body.workflowId, parent, 'the child run blocks');
      const childRun = await runOf(t.app, answer.body.workflowId);
      assert.equal(childRun.parentWorkflowId, parent);
      assert.equal(answer.body.tasks[0].referenceTaskName, 'child_wait');
      assert.equal((await call(t.app, 'POST', '/api/tasks/none/COMPLETED/signal/sync', {})).status, 404);
      assert.equal(
        (await call(t.app, 'POST', `/api/tasks/${parent}/COMPLETED/signal/sync?returnStrategy=NOPE`, {}))
          .status,
        400,
      );
    });
  });
}
