import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import type { FastifyInstance } from 'fastify';

import { appSuite, register } from '../helpers/app-suite.js';
import { call } from '../helpers/app.js';
import { type AnalyzeTestServer, startAnalyzeServer } from '../helpers/integration-servers.js';
import { runOf, startRun } from '../helpers/runs.js';
import { TestS3Server } from '../helpers/s3-server.js';
import { storeCases } from '../helpers/stores.js';

/**
 * DOCUMENT_INTELLIGENCE with a `blobPath` source, end to end through the API on every store and
 * both blob stores (a directory, and S3 on a real s3rver): a document uploaded through the
 * external-payload route is read by the executor and reaches the analysis service as
 * `base64Source`; a missing document or a path outside the payload area ends the task at once.
 */

const WORKFLOW = {
  name: 'analyze_blob',
  ownerEmail: 'a@b.c',
  tasks: [
    {
      name: 'doc_blob',
      taskReferenceName: 'doc',
      type: 'DOCUMENT_INTELLIGENCE',
      inputParameters: { service: 'docs', modelId: 'prebuilt-layout', blobPath: '${workflow.input.path}' },
    },
  ],
  outputParameters: { content: '${doc.output.analyzeResult.content}' },
};
// Retries allowed: a missing document must still end the task on its first attempt.
const TASK_DEF = { name: 'doc_blob', ownerEmail: 'a@b.c', retryCount: 3, retryDelaySeconds: 0 };

/** Uploads bytes to a location's uri: through the app for Baton-served URLs, else over HTTP. */
async function upload(app: FastifyInstance, uri: string, body: Buffer): Promise<number> {
  const url = new URL(uri);
  if (url.pathname.startsWith('/api/payloads/')) {
    const res = await app.inject({
      method: 'PUT',
      url: `${url.pathname}${url.search}`,
      payload: body,
      headers: { 'content-type': 'application/pdf' },
    });
    return res.statusCode;
  }
  return (await fetch(uri, { method: 'PUT', body, headers: { 'content-type': 'application/pdf' } })).status;
}

/** The run once it has ended (bounded wait; the analysis checks come a second apart). */
async function endedRun(app: FastifyInstance, id: string): Promise<any> {
  let run = await runOf(app, id);
  const deadline = Date.now() + 60_000;
  while (run.status === 'RUNNING' && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    run = await runOf(app, id);
  }
  return run;
}

for (const blobKind of ['filesystem', 's3'] as const) {
  for (const storeCase of storeCases()) {
    describe(`DOCUMENT_INTELLIGENCE blobPath: ${blobKind} blobs, ${storeCase.name}`, () => {
      const s3 = new TestS3Server();
      const env: Record<string, string> = {};
      let analyze: AnalyzeTestServer;
      before(async () => {
        analyze = await startAnalyzeServer(1);
        if (blobKind === 's3') {
          await s3.start();
          Object.assign(env, s3.env(`documents-${storeCase.name}`));
        }
      });
      after(async () => {
        await analyze.close();
        await s3.dispose();
      });
      const t = appSuite(storeCase, { env });
      before(async () => {
        const service = { name: 'docs', kind: 'document-intelligence', url: analyze.url };
        const res = await call(t.app, 'POST', '/api/registry/service', service);
        assert.equal(res.status, 200, res.text);
        await register(t.app, [WORKFLOW], [TASK_DEF]);
      });

      it('reads the uploaded document from blob storage and sends its bytes to the service', async () => {
        // Bytes that are not text, so a lossy read (UTF-8, JSON) would show.
        const document = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(200 * 1024)]);
        const where = await call(
          t.app,
          'GET',
          '/api/tasks/external-storage-location?operation=WRITE&payloadType=WORKFLOW_INPUT',
        );
        assert.equal(where.status, 200, where.text);
        const { uri, path } = where.body as { uri: string; path: string };
        if (blobKind === 's3') assert.match(uri, /X-Amz-Signature=/);
        assert.equal(await upload(t.app, uri, document), 200);

        const id = await startRun(t.app, WORKFLOW.name, { input: { path } });
        const run = await endedRun(t.app, id);
        assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks));
        assert.equal(run.output.content, 'Invoice 42');
        const sent = analyze.sources.at(-1) as { base64Source?: string };
        assert.ok(sent.base64Source, 'the analyze request carried base64Source');
        assert.ok(Buffer.from(sent.base64Source, 'base64').equals(document), 'the service got the bytes');
        // The stored input names the path; the document itself is not copied into the run.
        assert.equal(run.tasks[0].inputData.blobPath, path);
        assert.ok(!JSON.stringify(run.tasks[0].inputData).includes(sent.base64Source.slice(0, 64)));
      });

      it('a missing document ends the task on its first attempt, naming the path', async () => {
        const started = analyze.started;
        const missing = 'payloads/workflow_input/never-uploaded.pdf';
        const id = await startRun(t.app, WORKFLOW.name, { input: { path: missing } });
        const run = await endedRun(t.app, id);
        assert.equal(run.status, 'FAILED');
        assert.equal(run.tasks.length, 1, 'not retried');
        assert.equal(run.tasks[0].status, 'FAILED_WITH_TERMINAL_ERROR');
        assert.match(
          run.tasks[0].reasonForIncompletion,
          /no document at blob path payloads\/workflow_input\/never-uploaded\.pdf/,
        );
        assert.equal(analyze.started, started, 'nothing reached the service');
      });

      it('a path outside the payload area is refused: at registration when literal, at the call otherwise', async () => {
        const started = analyze.started;
        const id = await startRun(t.app, WORKFLOW.name, { input: { path: 'archive/runs/x.json.gz' } });
        const run = await endedRun(t.app, id);
        assert.equal(run.status, 'FAILED');
        assert.equal(run.tasks.length, 1, 'not retried');
        assert.equal(run.tasks[0].status, 'FAILED_WITH_TERMINAL_ERROR');
        assert.match(
          run.tasks[0].reasonForIncompletion,
          /blobPath 'archive\/runs\/x\.json\.gz' refused: blobPath must be a path inside the payload area \(payloads\/…\)/,
        );
        assert.equal(analyze.started, started, 'nothing reached the service');

        const literal = {
          ...WORKFLOW,
          name: 'analyze_blob_literal',
          tasks: [
            {
              ...WORKFLOW.tasks[0],
              inputParameters: { ...WORKFLOW.tasks[0]?.inputParameters, blobPath: '../secrets.key' },
            },
          ],
        };
        const refused = await call(t.app, 'POST', '/api/metadata/workflow', literal);
        assert.equal(refused.status, 400, refused.text);
        assert.ok(
          refused.body.validationErrors.some(
            (e: { path: string; message: string }) =>
              e.path === 'tasks[0].inputParameters.blobPath' && /inside the payload area/.test(e.message),
          ),
          refused.text,
        );
      });
    });
  }
}
