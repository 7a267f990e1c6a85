import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { pollOneTask, runOf, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

/**
 * Results for an attempt that has ended, or from a worker that does not hold the task, are
 * refused with 409 naming the task's status on every result path (POST /api/tasks, update-v2,
 * completion by name); an exact repeat of the recorded result is acknowledged again. Refusals
 * are counted in /metrics.
 */

for (const storeCase of storeCases()) {
  describe(`stale task results on ${storeCase.name}`, () => {
    const t = appSuite(storeCase);
    let seq = 0;

    /** A fresh one-step workflow of a fresh type; answers the type and a started run's id. */
    async function oneStep(): Promise<{ type: string; id: string }> {
      seq += 1;
      const type = `stale_${seq}`;
      assert.equal((await call(t.app, 'POST', '/api/metadata/taskdefs', workerTaskDefs([type]))).status, 200);
      const def = workflowDef(`wf_${type}`, [{ name: type, taskReferenceName: 'a', type: 'SIMPLE' }]);
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
      return { type, id: await startRun(t.app, `wf_${type}`, { input: {} }) };
    }
    const post = (body: Record<string, unknown>) => call(t.app, 'POST', '/api/tasks', body);
    const postV2 = (body: Record<string, unknown>) => call(t.app, 'POST', '/api/tasks/update-v2', body);

    it('POST /api/tasks: an exact repeat is 200, a different result for the ended attempt is 409 naming its status', async () => {
      const { type, id } = await oneStep();
      const task = await pollOneTask(t.app, type, 'w1');
      const result = {
        taskId: task.taskId,
        workflowInstanceId: id,
        workerId: 'w1',
        status: 'COMPLETED',
        outputData: { n: 1, list: [1, { b: 2, a: 1 }] },
      };
      assert.equal((await post(result)).status, 200);
      // The answer was lost; the worker posts again: the same status and output (key order aside).
      const again = await post({ ...result, outputData: { list: [1, { a: 1, b: 2 }], n: 1 } });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.text, task.taskId);
      // Without an output it asks to change none: still the recorded result.
      assert.equal((await post({ ...result, outputData: undefined })).status, 200);

      const otherOutput = await post({ ...result, outputData: { n: 2 } });
      assert.equal(otherOutput.status, 409, otherOutput.text);
      assert.equal(
        otherOutput.body.message,
        `Task ${task.taskId} (a) is COMPLETED: this attempt has ended, so the COMPLETED result was not applied`,
      );
      assert.equal(otherOutput.body.retryable, false);
      const otherStatus = await post({ ...result, status: 'FAILED', reasonForIncompletion: 'late' });
      assert.equal(otherStatus.status, 409);
      assert.match(otherStatus.body.message, /is COMPLETED: .* the FAILED result was not applied/);
      // Another worker repeating the output is not a repeat of this worker's result.
      assert.equal((await post({ ...result, workerId: 'w2' })).status, 409);

      const run = await runOf(t.app, id);
      assert.equal(run.status, 'COMPLETED');
      assert.deepEqual(run.tasks[0].outputData, { n: 1, list: [1, { b: 2, a: 1 }] });
    });

    it('a worker that does not hold the task is refused, naming the holder; the holder and an outside caller are not', async () => {
      const { type, id } = await oneStep();
      const task = await pollOneTask(t.app, type, 'holder');
      const base = { taskId: task.taskId, workflowInstanceId: id };
      const intruder = await post({
        ...base,
        workerId: 'intruder',
        status: 'COMPLETED',
        outputData: { x: 1 },
      });
      assert.equal(intruder.status, 409, intruder.text);
      assert.equal(
        intruder.body.message,
        `Task ${task.taskId} (a) is IN_PROGRESS and held by worker holder: the result of worker intruder was not applied`,
      );
      const lease = await post({ ...base, workerId: 'intruder', status: 'IN_PROGRESS', extendLease: true });
      assert.equal(lease.status, 409);
      const v2 = await postV2({ ...base, workerId: 'intruder', status: 'COMPLETED', outputData: {} });
      assert.equal(v2.status, 409);
      assert.match(v2.body.message, /held by worker holder/);
      assert.equal((await runOf(t.app, id)).tasks[0].status, 'IN_PROGRESS');

      // The holder's lease extension and result are applied.
      assert.equal(
        (await post({ ...base, workerId: 'holder', status: 'IN_PROGRESS', extendLease: true })).status,
        200,
      );
      assert.equal(
        (await post({ ...base, workerId: 'holder', status: 'COMPLETED', outputData: { y: 1 } })).status,
        200,
      );
      assert.equal((await runOf(t.app, id)).status, 'COMPLETED');

      // A caller naming no worker claims no hold (an operator completing a task from outside).
      const other = await oneStep();
      const held = await pollOneTask(t.app, other.type, 'holder');
      const outside = await post({ taskId: held.taskId, workflowInstanceId: other.id, status: 'COMPLETED' });
      assert.equal(outside.status, 200, outside.text);
      assert.equal((await runOf(t.app, other.id)).status, 'COMPLETED');
    });

    it('update-v2: a stale result is 409 and changes nothing; an exact repeat is 2xx', async () => {
      const { type, id } = await oneStep();
      const task = await pollOneTask(t.app, type, 'w1');
      const result = {
        taskId: task.taskId,
        workflowInstanceId: id,
        workerId: 'w1',
        status: 'COMPLETED',
        outputData: { v: 1 },
      };
      assert.equal((await postV2(result)).status, 204);
      assert.equal((await postV2(result)).status, 204, 'the repeat is acknowledged');
      const stale = await postV2({ ...result, outputData: { v: 2 } });
      assert.equal(stale.status, 409, stale.text);
      assert.match(stale.body.message, /is COMPLETED: this attempt has ended/);
      assert.deepEqual((await runOf(t.app, id)).tasks[0].outputData, { v: 1 });
    });

    it('completion by name: a repeat of the recorded result is 200, another result for the ended task is 409', async () => {
      const { id } = await oneStep();
      const url = `/api/tasks/${id}/a/COMPLETED`;
      const first = await call(t.app, 'POST', url, { answer: 42 });
      assert.equal(first.status, 200, first.text);
      const repeat = await call(t.app, 'POST', url, { answer: 42 });
      assert.equal(repeat.status, 200, repeat.text);
      assert.equal(repeat.text, first.text);
      const other = await call(t.app, 'POST', url, { answer: 43 });
      assert.equal(other.status, 409, other.text);
      assert.match(other.body.message, /\(a\) is COMPLETED: this attempt has ended/);
      const failed = await call(t.app, 'POST', `/api/tasks/${id}/a/FAILED`, { answer: 42 });
      assert.equal(failed.status, 409);
      assert.deepEqual((await runOf(t.app, id)).tasks[0].outputData, { answer: 42 });
    });

    it('refused results are counted by task type and reason', async () => {
      const text = (await call(t.app, 'GET', '/metrics')).text;
      const count = (type: string, reason: string): number => {
        const line = text
          .split('\n')
          .find((l) =>
            l.startsWith(`baton_task_results_refused_total{task_type="${type}",reason="${reason}"}`),
          );
        return line ? Number(line.split(' ').pop()) : 0;
      };
      assert.equal(count('stale_1', 'ended'), 3);
      assert.equal(count('stale_2', 'held'), 3);
      assert.equal(count('stale_4', 'ended'), 1);
      assert.equal(count('stale_5', 'ended'), 2);
    });
  });
}
