import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { RunDriver } from './run-control-driver.js';

/** Signals reaching WAIT and HUMAN tasks, in the run itself or in its running child runs. */
for (const storeCase of storeCases()) {
  describe(`signals to WAIT and HUMAN on ${storeCase.name}`, () => {
    let d: RunDriver;

    const after1 = (name: string, from: string) => ({
      name: `${name}_after`,
      taskReferenceName: 'after',
      type: 'SIMPLE',
      inputParameters: { got: `\${${from}.output}` },
    });

    const t = appSuite(storeCase);
    before(async () => {
      d = new RunDriver(t.app);
      await d.register(
        [
          workflowDef('sg_wait', [
            { name: 'w', taskReferenceName: 'w', type: 'WAIT' },
            after1('sg_wait', 'w'),
          ]),
          workflowDef('sg_timed', [
            { name: 'w', taskReferenceName: 'w', type: 'WAIT', inputParameters: { duration: '1 days' } },
            { name: 'h', taskReferenceName: 'h', type: 'HUMAN', assignee: 'ann' },
          ]),
          workflowDef('sg_human', [
            { name: 'h', taskReferenceName: 'h', type: 'HUMAN' },
            after1('sg_human', 'h'),
          ]),
          workflowDef('sg_parent', [
            {
              name: 'sub',
              taskReferenceName: 'sub',
              type: 'SUB_WORKFLOW',
              subWorkflowParam: { name: 'sg_wait', version: 1 },
            },
            after1('sg_parent', 'sub'),
          ]),
        ],
        workerTaskDefs(['sg_wait_after', 'sg_human_after', 'sg_parent_after']),
      );
    });

    it('a workflow signal completes an untimed WAIT with the payload, and the run moves on at once', async () => {
      const id = await d.start('sg_wait');
      const wait = (await d.run(id)).tasks[0];
      const answer = await d.ok('POST', `/api/workflow/${id}/signal`, { approved: true });
      assert.equal(answer.body.taskId, wait.taskId);
      assert.equal(answer.body.workflowId, id);
      const run = await d.run(id);
      assert.deepEqual(
        run.tasks.map((x: any) => [x.referenceTaskName, x.status]),
        [
          ['w', 'COMPLETED'],
          ['after', 'SCHEDULED'],
        ],
      );
      assert.deepEqual(run.tasks[0].outputData, { approved: true });
      assert.deepEqual((await d.pollOne('sg_wait_after')).inputData.got, { approved: true });
    });

    it('a timed WAIT is not blocked: the signal passes it and reaches the HUMAN task after it', async () => {
      const id = await d.start('sg_timed');
      assert.deepEqual(await d.taskStates(id), [['w', 'IN_PROGRESS']]);
      const none = await d.ok('POST', `/api/tasks/${id}/COMPLETED/signal`, { early: true });
      assert.equal(none.body.taskId, undefined, 'a timed WAIT does not take a signal');
      assert.deepEqual(await d.taskStates(id), [['w', 'IN_PROGRESS']]);
      // Completed by name instead, the HUMAN task after it is the next to take a signal.
      await d.ok('POST', `/api/tasks/${id}/w/COMPLETED`, {});
      const human = (await d.run(id)).tasks[1];
      assert.equal(human.status, 'IN_PROGRESS');
      const answer = await d.ok('POST', `/api/tasks/${id}/COMPLETED/signal`, { ok: 1 });
      assert.equal(answer.body.taskId, human.taskId);
      assert.equal(await d.status(id), 'COMPLETED');
    });

    it("Conductor's task signal ends a HUMAN task with its status; a failing one fails the run", async () => {
      const done = await d.start('sg_human');
      await d.ok('POST', `/api/tasks/${done}/COMPLETED/signal`, { by: 'ann' });
      const run = await d.run(done);
      assert.deepEqual(run.tasks[0].outputData, { by: 'ann' });
      assert.equal(run.tasks[1].status, 'SCHEDULED');
      assert.equal(run.tasks[1].inputData.got.by, 'ann');

      const failed = await d.start('sg_human');
      const answer = await d.ok('POST', `/api/tasks/${failed}/FAILED_WITH_TERMINAL_ERROR/signal`, { no: 1 });
      assert.ok(answer.body.taskId);
      const ended = await d.run(failed);
      assert.equal(ended.status, 'FAILED');
      assert.equal(ended.tasks[0].status, 'FAILED_WITH_TERMINAL_ERROR');
      assert.match(ended.reasonForIncompletion, /Signaled FAILED_WITH_TERMINAL_ERROR/);
    });

    it('a signal to a parent reaches the WAIT blocked in its running child; the parent moves on', async () => {
      const id = await d.start('sg_parent');
      const childId = (await d.run(id)).tasks[0].subWorkflowId;
      assert.ok(childId);
      const childWait = (await d.run(childId)).tasks[0];
      const answer = await d.ok('POST', `/api/tasks/${id}/COMPLETED/signal`, { deep: true });
      assert.equal(answer.body.taskId, childWait.taskId);
      assert.equal(answer.body.workflowId, childId);
      // The child's next task is a worker task: completing it ends the child, then the parent moves on.
      assert.deepEqual((await d.pollOne('sg_wait_after')).inputData.got, { deep: true });
      const child = await d.run(childId);
      assert.equal(child.tasks[0].status, 'COMPLETED');
      // Nothing blocked in either run now: the answer names no task.
      const none = await d.ok('POST', `/api/workflow/${id}/signal`, { again: true });
      assert.equal(none.body.taskId, undefined);
      assert.ok(none.body.messageId);
    });

    it('unknown workflow: 404 on both routes; an ended run: 409', async () => {
      assert.equal((await call(t.app, 'POST', '/api/tasks/nope/COMPLETED/signal', {})).status, 404);
      assert.equal((await call(t.app, 'POST', '/api/workflow/nope/signal', {})).status, 404);
      const id = await d.start('sg_wait');
      await d.ok('DELETE', `/api/workflow/${id}`);
      await d.conflict('POST', `/api/tasks/${id}/COMPLETED/signal`, 'TERMINATED', {});
    });
  });
}
