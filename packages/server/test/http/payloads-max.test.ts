import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { appSuite, register } from '../helpers/app-suite.js';
import { call } from '../helpers/app.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { pollOneTask, postResult, runOf, startRun } from '../helpers/runs.js';
import { TestS3Server } from '../helpers/s3-server.js';
import { storeCases } from '../helpers/stores.js';

/**
 * An S3 presigned upload takes a payload of any size, and what Baton reads from storage becomes
 * part of a task's record: through the real routes, on every store and a real s3rver, a result
 * output or start input uploaded over `BATON_PAYLOAD_MAX_BYTES` is refused with 413 naming the
 * field, the path, the size and the setting, and changes nothing; one at the limit is taken.
 */

const MAX = 64 * 1024;

const definition = workflowDef('max_payload_flow', [
  { name: 'mp_produce', taskReferenceName: 'produce', type: 'SIMPLE', inputParameters: {} },
]);

/** Three branches whose outputs each fit, joined into one that does not. */
const fanIn = workflowDef('max_join_flow', [
  {
    name: 'fork',
    taskReferenceName: 'fork',
    type: 'FORK_JOIN',
    forkTasks: ['a', 'b', 'c'].map((ref) => [
      { name: 'mp_produce', taskReferenceName: ref, type: 'SIMPLE', inputParameters: {} },
    ]),
  },
  { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['a', 'b', 'c'] },
  { name: 'mp_produce', taskReferenceName: 'after', type: 'SIMPLE', inputParameters: {} },
]);

/** A JSON object of exactly `bytes` bytes. */
function jsonOf(bytes: number): string {
  const text = JSON.stringify({ blob: 'x'.repeat(bytes - '{"blob":""}'.length) });
  assert.equal(Buffer.byteLength(text), bytes);
  return text;
}

for (const storeCase of storeCases()) {
  describe(`external payloads over BATON_PAYLOAD_MAX_BYTES: s3 blobs, ${storeCase.name}`, () => {
    const s3 = new TestS3Server();
    const env: Record<string, string> = { BATON_PAYLOAD_MAX_BYTES: String(MAX) };
    before(async () => {
      await s3.start();
      Object.assign(env, s3.env(`payloads-max-${storeCase.name}`));
    });
    after(() => s3.dispose());
    const t = appSuite(storeCase, { env });
    before(() => register(t.app, [definition, fanIn], workerTaskDefs(['mp_produce'])));

    async function uploaded(payloadType: string, body: string): Promise<string> {
      const where = await call(
        t.app,
        'GET',
        `/api/tasks/external-storage-location?operation=WRITE&payloadType=${payloadType}`,
      );
      assert.equal(where.status, 200, where.text);
      const { uri, path } = where.body as { uri: string; path: string };
      // Straight to S3: nothing of Baton's sees the upload or bounds it.
      assert.equal((await fetch(uri, { method: 'PUT', body })).status, 200);
      return path;
    }

    /** Posts a COMPLETED result whose output is the payload uploaded at `path`. */
    function completedFrom(task: { taskId: string; workflowInstanceId: string }, path: string) {
      return call(t.app, 'POST', '/api/tasks', {
        taskId: task.taskId,
        workflowInstanceId: task.workflowInstanceId,
        status: 'COMPLETED',
        externalOutputPayloadStoragePath: path,
      });
    }

    it('refuses a result whose uploaded output is over the limit, changing nothing, and takes one at it', async () => {
      const id = await startRun(t.app, 'max_payload_flow');
      const produce = await pollOneTask(t.app, 'mp_produce');
      const over = await uploaded('TASK_OUTPUT', jsonOf(MAX + 1));
      const refused = await completedFrom(produce, over);
      assert.equal(refused.status, 413, refused.text);
      assert.equal(refused.body.errorCode, 'PAYLOAD_OVER_MAX');
      assert.equal(
        refused.body.message,
        `The payload at ${over} is ${MAX + 1} bytes, over the ${MAX} bytes Baton takes through external storage (BATON_PAYLOAD_MAX_BYTES)`,
      );
      assert.deepEqual(refused.body.validationErrors, [
        {
          path: 'body.externalOutputPayloadStoragePath',
          message: `the payload is ${MAX + 1} bytes`,
          invalidValue: over,
        },
      ]);
      const task = await call(t.app, 'GET', `/api/tasks/${produce.taskId}`);
      assert.equal(task.body.status, 'IN_PROGRESS');
      assert.deepEqual(task.body.outputData, {});

      const atLimit = await uploaded('TASK_OUTPUT', jsonOf(MAX));
      await postResult(t.app, produce, 'COMPLETED', { externalOutputPayloadStoragePath: atLimit });
      const run = await runOf(t.app, id);
      assert.equal(run.status, 'COMPLETED');
      assert.equal(run.tasks[0].outputData.blob.length, MAX - '{"blob":""}'.length);
    });

    it('refuses an uploaded output nested deeper than a body may be, changing nothing', async () => {
      await startRun(t.app, 'max_payload_flow');
      const produce = await pollOneTask(t.app, 'mp_produce');
      // Small (40 KB) but 20,000 levels deep: every recursive walk of it overflows the stack.
      const deep = await uploaded('TASK_OUTPUT', `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`);
      const refused = await completedFrom(produce, deep);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.errorCode, 'BODY_TOO_DEEP');
      assert.match(
        refused.body.message,
        new RegExp(
          `^payload\\.a(\\[0\\])+ \\(the payload at ${deep}\\) is nested deeper than 128 levels \\(the limit\\); flatten the value or keep it within 128 levels$`,
        ),
      );
      assert.equal(refused.body.validationErrors[0].path, 'body.externalOutputPayloadStoragePath');
      const task = await call(t.app, 'GET', `/api/tasks/${produce.taskId}`);
      assert.equal(task.body.status, 'IN_PROGRESS');
      assert.deepEqual(task.body.outputData, {});
      await postResult(t.app, produce, 'COMPLETED', { outputData: {} });
    });

    it('fails a JOIN whose branches’ outputs together pass the limit, and its run, keeping no output', async () => {
      const id = await startRun(t.app, 'max_join_flow');
      for (let n = 0; n < 3; n++) {
        const branch = await pollOneTask(t.app, 'mp_produce');
        await postResult(t.app, branch, 'COMPLETED', { outputData: { blob: 'b'.repeat(MAX / 2) } });
      }
      const run = await runOf(t.app, id);
      assert.equal(run.status, 'FAILED');
      const joinTask = run.tasks.find((x: { referenceTaskName: string }) => x.referenceTaskName === 'join');
      assert.equal(joinTask.status, 'FAILED_WITH_TERMINAL_ERROR');
      assert.deepEqual(joinTask.outputData, {});
      assert.match(
        joinTask.reasonForIncompletion,
        new RegExp(
          `^The payload size: over \\d+ of task: ${joinTask.taskId} in workflow: ${id} is greater than the permissible limit: ${MAX} bytes \\(BATON_PAYLOAD_MAX_BYTES`,
        ),
      );
      assert.ok(!run.tasks.some((x: { referenceTaskName: string }) => x.referenceTaskName === 'after'));
    });

    it('refuses a start whose uploaded input is over the limit, starting nothing', async () => {
      const before = await call(t.app, 'GET', '/api/workflow/search?query=workflowType%3Dmax_payload_flow');
      assert.equal(before.status, 200, before.text);
      const over = await uploaded('WORKFLOW_INPUT', jsonOf(MAX + 1));
      const refused = await call(t.app, 'POST', '/api/workflow/max_payload_flow', {
        externalInputPayloadStoragePath: over,
      });
      assert.equal(refused.status, 413, refused.text);
      assert.equal(refused.body.errorCode, 'PAYLOAD_OVER_MAX');
      assert.equal(refused.body.validationErrors[0].path, 'body.externalInputPayloadStoragePath');
      const afterwards = await call(
        t.app,
        'GET',
        '/api/workflow/search?query=workflowType%3Dmax_payload_flow',
      );
      assert.equal(afterwards.body.totalHits, before.body.totalHits);
    });
  });
}
