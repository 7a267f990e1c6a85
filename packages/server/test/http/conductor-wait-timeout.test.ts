import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { ManualClock } from '../../src/clock.js';
import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { workflowDef } from '../helpers/definitions.js';
import { pollOneTask, postResult, runOf } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

/**
 * WorkflowAndTaskConfigurationSpec "Test wait time out task based simple workflow", through the
 * real routes on a manual clock: a WAIT whose task definition has `timeoutSeconds: 2` and
 * `timeoutPolicy: RETRY` times out, a new WAIT attempt replaces it, and completing that one
 * moves the run on.
 */

// WorkflowTestUtil's `waitTimeout` task definition; simple_wait_task_workflow_integration_test.json.
const taskDefs = [
  {
    name: 'waitTimeout',
    timeoutSeconds: 2,
    responseTimeoutSeconds: 2,
    retryCount: 1,
    timeoutPolicy: 'RETRY',
    retryDelaySeconds: 10,
    ownerEmail: 'test@harness.com',
  },
  { name: 'cwt_task_1', retryCount: 0, responseTimeoutSeconds: 10, ownerEmail: 'test@harness.com' },
];
const flow = workflowDef('cwt_wait_timeout', [
  { name: 'waitTimeout', taskReferenceName: 'wait0', type: 'WAIT', inputParameters: {} },
  { name: 'cwt_task_1', taskReferenceName: 't1', type: 'SIMPLE', inputParameters: {} },
]);

for (const storeCase of storeCases()) {
  describe(`WAIT under its task definition's timeout on ${storeCase.name}`, () => {
    const clock = new ManualClock();
    const t = appSuite(storeCase, { clock });
    before(async () => {
      assert.equal((await call(t.app, 'POST', '/api/metadata/taskdefs', taskDefs)).status, 200);
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', flow)).status, 200);
    });
    const fire = (): Promise<number> => t.server.timers.fireDue();
    const shape = (run: any) => run.tasks.map((task: any) => [task.taskType, task.status]);

    it('WorkflowAndTaskConfigurationSpec "wait time out task based simple workflow"', async () => {
      const id = (await call(t.app, 'POST', '/api/workflow/cwt_wait_timeout', {})).text;
      let run = await runOf(t.app, id);
      assert.equal(run.status, 'RUNNING');
      assert.deepEqual(shape(run), [['WAIT', 'IN_PROGRESS']]);

      clock.advance(1_999);
      assert.equal(await fire(), 0, 'not due yet');
      clock.advance(1_001);
      assert.ok((await fire()) >= 1);
      run = await runOf(t.app, id);
      assert.equal(run.status, 'RUNNING');
      assert.deepEqual(shape(run), [
        ['WAIT', 'TIMED_OUT'],
        ['WAIT', 'SCHEDULED'],
      ]);
      assert.equal(run.tasks[1].retriedTaskId, run.tasks[0].taskId);

      // The spec completes the replacement WAIT with a task update.
      const update = await call(t.app, 'POST', '/api/tasks', {
        taskId: run.tasks[1].taskId,
        workflowInstanceId: id,
        status: 'COMPLETED',
        outputData: {},
      });
      assert.equal(update.status, 200, update.text);
      run = await runOf(t.app, id);
      assert.equal(run.status, 'RUNNING');
      assert.deepEqual(shape(run), [
        ['WAIT', 'TIMED_OUT'],
        ['WAIT', 'COMPLETED'],
        ['cwt_task_1', 'SCHEDULED'],
      ]);
      await postResult(t.app, await pollOneTask(t.app, 'cwt_task_1'), 'COMPLETED', { op: 'task1.done' });
      run = await runOf(t.app, id);
      assert.equal(run.status, 'COMPLETED');
      assert.deepEqual(shape(run), [
        ['WAIT', 'TIMED_OUT'],
        ['WAIT', 'COMPLETED'],
        ['cwt_task_1', 'COMPLETED'],
      ]);
      // The replacement's own timers went with it.
      clock.advance(60_000);
      await fire();
      assert.equal((await runOf(t.app, id)).status, 'COMPLETED');
    });
  });
}
