import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { appSuite } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { RunDriver } from './run-control-driver.js';

/** An operator's terminate (`DELETE /api/workflow/{id}`): failure workflows and child runs. */
for (const storeCase of storeCases()) {
  describe(`terminate and linked runs on ${storeCase.name}`, () => {
    let d: RunDriver;

    const t = appSuite(storeCase);
    before(async () => {
      d = new RunDriver(t.app);
      await d.register(
        [
          workflowDef('tl_cleanup', [{ name: 'tl_note', taskReferenceName: 'note', type: 'SIMPLE' }]),
          {
            ...workflowDef('tl_guarded', [{ name: 'tl_work', taskReferenceName: 'work', type: 'SIMPLE' }]),
            failureWorkflow: 'tl_cleanup',
          },
          workflowDef('tl_leaf', [{ name: 'tl_leaf_work', taskReferenceName: 'work', type: 'SIMPLE' }]),
          workflowDef('tl_mid', [
            {
              name: 'sub',
              taskReferenceName: 'leaf',
              type: 'SUB_WORKFLOW',
              subWorkflowParam: { name: 'tl_leaf' },
            },
          ]),
          workflowDef('tl_top', [
            {
              name: 'sub',
              taskReferenceName: 'mid',
              type: 'SUB_WORKFLOW',
              subWorkflowParam: { name: 'tl_mid' },
            },
          ]),
        ],
        workerTaskDefs(['tl_note', 'tl_work', 'tl_leaf_work']),
      );
    });

    it("an operator's terminate starts the failure workflow with Conductor's input and records its id", async () => {
      const id = await d.start('tl_guarded', { input: { order: 3 }, correlationId: 'corr-t' });
      const work = await d.pollOne('tl_work');
      await d.ok('DELETE', `/api/workflow/${id}?reason=${encodeURIComponent('stop it')}`);
      const ended = await d.run(id);
      assert.equal(ended.status, 'TERMINATED');
      assert.equal(ended.tasks[0].status, 'CANCELED');
      const failureId = ended.output['conductor.failure_workflow'];
      assert.equal(typeof failureId, 'string');
      const failure = await d.run(failureId);
      assert.equal(failure.workflowName, 'tl_cleanup');
      assert.equal(failure.status, 'RUNNING');
      assert.equal(failure.correlationId, 'corr-t');
      assert.equal(failure.input.order, 3);
      assert.equal(failure.input.workflowId, id);
      assert.equal(failure.input.failureStatus, 'TERMINATED');
      assert.equal(failure.input.reason, ended.reasonForIncompletion);
      assert.equal(failure.input.failedWorkflow.workflowId, id);
      assert.equal(failure.input.failedWorkflow.tasks[0].taskId, work.taskId);
      // The failure workflow is a run like any other: its task is handed out.
      assert.equal((await d.pollOne('tl_note')).workflowInstanceId, failureId);
    });

    it('terminating a parent terminates its running child and grandchild, and their open tasks', async () => {
      const top = await d.start('tl_top');
      const mid = (await d.run(top)).tasks[0].subWorkflowId;
      const leaf = (await d.run(mid)).tasks[0].subWorkflowId;
      assert.ok(mid && leaf);
      await d.ok('DELETE', `/api/workflow/${top}`);
      assert.equal(await d.status(top), 'TERMINATED');
      for (const id of [mid, leaf]) {
        const child = await d.run(id);
        assert.equal(child.status, 'TERMINATED', id);
        assert.ok(child.tasks.every((x: any) => x.status === 'CANCELED'));
      }
      assert.deepEqual(await d.poll('tl_leaf_work'), [], 'the canceled leaf task is no longer handed out');
    });
  });
}
