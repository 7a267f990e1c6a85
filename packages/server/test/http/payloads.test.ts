import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { FastifyInstance } from 'fastify';

import { appSuite, register } from '../helpers/app-suite.js';
import { call } from '../helpers/app.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { pollOneTask, postResult, runOf, startRun } from '../helpers/runs.js';
import { TestS3Server } from '../helpers/s3-server.js';
import { storeCases } from '../helpers/stores.js';

/**
 * External payloads through the real routes, on every store and both blob stores (a directory,
 * and S3 on a real s3rver): a 20 MB output uploaded through the signed URL feeds the next task.
 */

const MB = 1024 * 1024;
const INLINE_MAX = 256 * 1024;

const definition = workflowDef(
  'payload_flow',
  [
    { name: 'pl_produce', taskReferenceName: 'produce', type: 'SIMPLE', inputParameters: {} },
    {
      name: 'pl_consume',
      taskReferenceName: 'consume',
      type: 'SIMPLE',
      inputParameters: { blob: '${produce.output.blob}', note: '${produce.output.note}' },
    },
  ],
  { size: '${consume.output.size}' },
);

/** Uploads bytes to a location's uri: through the app for Baton-served URLs, else over HTTP. */
async function upload(app: FastifyInstance, uri: string, body: string): Promise<number> {
  const url = new URL(uri);
  if (url.pathname.startsWith('/api/payloads/')) {
    const res = await app.inject({
      method: 'PUT',
      url: `${url.pathname}${url.search}`,
      payload: body,
      headers: { 'content-type': 'application/json' },
    });
    return res.statusCode;
  }
  return (await fetch(uri, { method: 'PUT', body })).status;
}

async function download(app: FastifyInstance, uri: string): Promise<{ status: number; text: string }> {
  const url = new URL(uri);
  if (url.pathname.startsWith('/api/payloads/')) {
    const res = await app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    return { status: res.statusCode, text: res.body };
  }
  const res = await fetch(uri);
  return { status: res.status, text: await res.text() };
}

async function location(app: FastifyInstance, query: string): Promise<{ uri: string; path: string }> {
  const res = await call(app, 'GET', `/api/tasks/external-storage-location?${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body as { uri: string; path: string };
}

for (const blobKind of ['filesystem', 's3'] as const) {
  for (const storeCase of storeCases()) {
    describe(`external payloads: ${blobKind} blobs, ${storeCase.name}`, () => {
      const s3 = new TestS3Server();
      const env: Record<string, string> = { BATON_PAYLOAD_INLINE_MAX_BYTES: String(INLINE_MAX) };
      before(async () => {
        if (blobKind === 's3') {
          await s3.start();
          Object.assign(env, s3.env(`payloads-${storeCase.name}`));
        }
      });
      after(() => s3.dispose());
      const t = appSuite(storeCase, { env });
      before(() => register(t.app, [definition], workerTaskDefs(['pl_produce', 'pl_consume'])));

      it('takes a 20 MB output uploaded through the signed URL, and hands the next task its input by path', async () => {
        const id = await startRun(t.app, 'payload_flow');
        const produce = await pollOneTask(t.app, 'pl_produce');
        const where = await location(t.app, 'operation=WRITE&payloadType=TASK_OUTPUT');
        assert.match(where.path, /^payloads\/task_output\/.+\.json$/);
        if (blobKind === 's3') assert.match(where.uri, /X-Amz-Signature=/);
        else
          assert.match(
            where.uri,
            /\/api\/payloads\/payloads\/task_output\/.+\?op=WRITE&expires=\d+&signature=/,
          );
        const blob = 'x'.repeat(20 * MB);
        assert.equal(await upload(t.app, where.uri, JSON.stringify({ blob, note: 'big' })), 200);
        await postResult(t.app, produce, 'COMPLETED', { externalOutputPayloadStoragePath: where.path });

        // Over the inline limit: the worker gets the input by path, and reads it from there.
        const consume = await pollOneTask(t.app, 'pl_consume');
        assert.deepEqual(consume.inputData, {});
        assert.equal(consume.externalInputPayloadStoragePath, `payloads/task_input/${consume.taskId}.json`);
        const read = await location(
          t.app,
          `operation=READ&payloadType=TASK_INPUT&path=${encodeURIComponent(consume.externalInputPayloadStoragePath)}`,
        );
        const got = await download(t.app, read.uri);
        assert.equal(got.status, 200);
        const input = JSON.parse(got.text) as { blob: string; note: string };
        assert.equal(input.blob.length, 20 * MB);
        assert.equal(input.note, 'big');
        await postResult(t.app, consume, 'COMPLETED', { outputData: { size: input.blob.length } });

        // The run record holds the output as if it had been inline, with its path.
        const run = await runOf(t.app, id);
        assert.equal(run.status, 'COMPLETED');
        assert.deepEqual(run.output, { size: 20 * MB });
        const producedTask = run.tasks.find(
          (x: { referenceTaskName: string }) => x.referenceTaskName === 'produce',
        );
        assert.equal(producedTask.outputData.blob.length, 20 * MB);
        assert.equal(producedTask.externalOutputPayloadStoragePath, where.path);
      });

      it('hands a large input inline to a worker that asks for it', async () => {
        await startRun(t.app, 'payload_flow');
        const produce = await pollOneTask(t.app, 'pl_produce');
        await postResult(t.app, produce, 'COMPLETED', {
          outputData: { blob: 'y'.repeat(INLINE_MAX - 100), note: 'n' },
        });
        // The consume task's input is over the limit (blob + note), so only inlinePayloads gets it inline.
        const res = await call(t.app, 'GET', '/api/tasks/poll/pl_consume?workerid=w&inlinePayloads=true');
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.inputData.blob.length, INLINE_MAX - 100);
        assert.equal(res.body.externalInputPayloadStoragePath, undefined);
        await postResult(t.app, res.body, 'COMPLETED', { outputData: { size: 1 } });
      });

      it('refuses an inline output over the limit with 413 and says what to do, changing nothing', async () => {
        await startRun(t.app, 'payload_flow');
        const produce = await pollOneTask(t.app, 'pl_produce');
        const res = await call(t.app, 'POST', '/api/tasks', {
          taskId: produce.taskId,
          workflowInstanceId: produce.workflowInstanceId,
          status: 'COMPLETED',
          outputData: { blob: 'z'.repeat(INLINE_MAX + 1) },
        });
        assert.equal(res.status, 413, res.text);
        assert.match(res.body.message, /BATON_PAYLOAD_INLINE_MAX_BYTES/);
        assert.match(res.body.message, /external-storage-location/);
        assert.match(res.body.message, /externalOutputPayloadStoragePath/);
        const task = await call(t.app, 'GET', `/api/tasks/${produce.taskId}`);
        assert.equal(task.body.status, 'IN_PROGRESS');
        await postResult(t.app, produce, 'FAILED');
      });

      it('refuses a start input over the limit, and starts from an uploaded one', async () => {
        const big = { blob: 'i'.repeat(INLINE_MAX + 1) };
        const refused = await call(t.app, 'POST', '/api/workflow/payload_flow', { input: big });
        assert.equal(refused.status, 413);
        assert.match(refused.body.message, /externalInputPayloadStoragePath/);
        const where = await location(t.app, 'operation=WRITE&payloadType=WORKFLOW_INPUT');
        assert.equal(await upload(t.app, where.uri, JSON.stringify(big)), 200);
        const id = await startRun(t.app, 'payload_flow', { externalInputPayloadStoragePath: where.path });
        const run = await runOf(t.app, id);
        assert.equal(run.input.blob.length, INLINE_MAX + 1);
        await call(t.app, 'POST', `/api/workflow/${id}/terminate`);
      });

      it('refuses a result naming a payload that was never uploaded, or a path outside the payload area', async () => {
        await startRun(t.app, 'payload_flow');
        const produce = await pollOneTask(t.app, 'pl_produce');
        for (const [path, pattern] of [
          ['payloads/task_output/never.json', /No payload has been uploaded/],
          ['archive/2026/x.json.gz', /payload area/],
          ['payloads/../archive/x', /payload area/],
        ] as const) {
          const res = await call(t.app, 'POST', '/api/tasks', {
            taskId: produce.taskId,
            workflowInstanceId: produce.workflowInstanceId,
            status: 'COMPLETED',
            externalOutputPayloadStoragePath: path,
          });
          assert.equal(res.status, 400, res.text);
          assert.match(res.body.message, pattern);
          assert.equal(res.body.validationErrors[0].path, 'body.externalOutputPayloadStoragePath');
        }
        const outside = await call(
          t.app,
          'GET',
          '/api/tasks/external-storage-location?operation=WRITE&path=archive/x.json',
        );
        assert.equal(outside.status, 400);
        assert.equal(outside.body.validationErrors[0].path, 'querystring.path');
        await postResult(t.app, produce, 'FAILED');
      });

      it('answers a 20 MB inline result with 413 and the advice (the body limit)', async () => {
        await startRun(t.app, 'payload_flow');
        const produce = await pollOneTask(t.app, 'pl_produce');
        const res = await call(t.app, 'POST', '/api/tasks', {
          taskId: produce.taskId,
          workflowInstanceId: produce.workflowInstanceId,
          status: 'COMPLETED',
          outputData: { blob: 'w'.repeat(20 * MB) },
        });
        assert.equal(res.status, 413, res.text.slice(0, 300));
        assert.match(res.body.message, /externalOutputPayloadStoragePath/);
        await postResult(t.app, produce, 'FAILED');
      });

      if (blobKind === 's3') {
        it('/health names the blob store DOWN while the S3 server is stopped, and UP when it is back', async () => {
          const up = await call(t.app, 'GET', '/health');
          assert.equal(up.status, 200, up.text);
          assert.equal(up.body.components.blobs.status, 'UP');
          await s3.stop();
          try {
            const down = await call(t.app, 'GET', '/health');
            assert.equal(down.status, 503);
            assert.equal(down.body.status, 'DOWN');
            assert.equal(down.body.components.blobs.status, 'DOWN');
            assert.match(down.body.components.blobs.error, /^blob store s3 \(s3:\/\/baton-test\/payloads-/);
            assert.equal(down.body.components.database.status, 'UP');
          } finally {
            await s3.start();
          }
          const back = await call(t.app, 'GET', '/health');
          assert.equal(back.status, 200, back.text);
          assert.equal(back.body.components.blobs.status, 'UP');
        });
      }

      if (blobKind === 'filesystem') {
        it('answers 403 to a tampered, expired or repurposed signed URL', async () => {
          const where = await location(t.app, 'operation=WRITE&payloadType=TASK_OUTPUT');
          const url = new URL(where.uri);
          const put = (u: URL): Promise<number> => upload(t.app, u.toString(), '{"a":1}');
          const tamperedSig = new URL(url);
          const sig = tamperedSig.searchParams.get('signature') ?? '';
          tamperedSig.searchParams.set('signature', `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
          assert.equal(await put(tamperedSig), 403);
          const tamperedExpiry = new URL(url);
          tamperedExpiry.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
          assert.equal(await put(tamperedExpiry), 403);
          const otherPath = new URL(url.toString().replace(/task_output\/[^?]+/, 'task_output/other.json'));
          assert.equal(await put(otherPath), 403);
          const outside = new URL(url.toString().replace(/payloads\/task_output\/[^?]+/, 'archive/x.json'));
          assert.equal(await put(outside), 403);
          // A write URL does not read.
          assert.equal((await download(t.app, url.toString())).status, 403);
          const expired = new URL(url);
          expired.searchParams.set('expires', '1000');
          assert.equal(await put(expired), 403);
          assert.equal(await put(url), 200);
        });
      }
    });
  }
}
