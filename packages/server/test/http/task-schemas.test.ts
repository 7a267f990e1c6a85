import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';

/** inputSchema / outputSchema of a task definition, checked through the real routes. */
for (const storeCase of storeCases()) {
  describe(`task schemas on ${storeCase.name}`, () => {
    const t = appSuite(storeCase);
    before(async () => {
      const defs = workerTaskDefs(['sch_pay'], {
        retryCount: 1,
        retryDelaySeconds: 0,
        inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
        outputSchema: { type: 'object', required: ['receipt'], properties: { receipt: { type: 'string' } } },
      });
      assert.equal((await call(t.app, 'POST', '/api/metadata/taskdefs', defs)).status, 200);
      const wf = workflowDef('wf_sch', [
        {
          name: 'sch_pay',
          taskReferenceName: 'pay',
          type: 'SIMPLE',
          inputParameters: { amount: '${workflow.input.amount}' },
        },
      ]);
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', wf)).status, 200);
    });

    it('a bad input fails the task before hand-out with the schema error; nothing is queued', async () => {
      const id = (await call(t.app, 'POST', '/api/workflow/wf_sch', { input: { amount: 'ten' } })).text;
      const run = (await call(t.app, 'GET', `/api/workflow/${id}`)).body;
      assert.equal(run.status, 'FAILED');
      assert.equal(run.tasks.length, 1);
      assert.equal(run.tasks[0].status, 'FAILED_WITH_TERMINAL_ERROR');
      assert.equal(
        run.tasks[0].reasonForIncompletion,
        "Task input does not match the task definition's inputSchema: /amount must be number",
      );
      assert.match(run.reasonForIncompletion, /\/amount must be number/);
      const sizes = (await call(t.app, 'GET', '/api/tasks/queue/sizes')).body;
      assert.equal(sizes.sch_pay.waiting + sizes.sch_pay.scheduled + sizes.sch_pay.inFlight, 0);
      assert.equal((await call(t.app, 'GET', '/api/tasks/poll/sch_pay?workerid=w')).status, 204);
    });

    it('a bad output fails the attempt with the schema error and a retry is made', async () => {
      const id = (await call(t.app, 'POST', '/api/workflow/wf_sch', { input: { amount: 10 } })).text;
      const first = (await call(t.app, 'GET', '/api/tasks/poll/sch_pay?workerid=w')).body;
      assert.equal(first.workflowInstanceId, id);
      const posted = await call(t.app, 'POST', '/api/tasks', {
        taskId: first.taskId,
        workflowInstanceId: id,
        status: 'COMPLETED',
        outputData: { receipt: 7 },
      });
      assert.equal(posted.status, 200);
      const failed = (await call(t.app, 'GET', `/api/tasks/${first.taskId}`)).body;
      assert.equal(failed.status, 'FAILED');
      assert.match(failed.reasonForIncompletion, /outputSchema: \/receipt must be string/);
      const retry = (await call(t.app, 'GET', '/api/tasks/poll/sch_pay?workerid=w')).body;
      assert.equal(retry.retryCount, 1);
      assert.equal(retry.retriedTaskId, first.taskId);
      await call(t.app, 'POST', '/api/tasks', {
        taskId: retry.taskId,
        workflowInstanceId: id,
        status: 'COMPLETED',
        outputData: { receipt: 'r-10' },
      });
      assert.equal((await call(t.app, 'GET', `/api/workflow/${id}/status`)).body.status, 'COMPLETED');
    });

    it('registration refuses a schema that does not compile', async () => {
      const bad = workerTaskDefs(['sch_bad'], { inputSchema: { type: 'no-such-type' } });
      const res = await call(t.app, 'POST', '/api/metadata/taskdefs', bad);
      assert.equal(res.status, 400);
      assert.match(JSON.stringify(res.body.validationErrors), /inputSchema/);
    });
  });
}
