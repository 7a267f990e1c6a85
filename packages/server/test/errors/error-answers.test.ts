import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ERROR_REGISTRY, type ErrorBody, type SpecificErrorCode } from '@baton/protocol';
import Fastify from 'fastify';

import type { BlobStore } from '../../src/blobs/blob-store.js';
import { installErrorHandling } from '../../src/http/error-handler.js';
import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { authSuite, send } from '../auth/auth-fixture.js';

/**
 * Every error class answered through the real routes carries its specific code: the class stays
 * in `code` (where clients read it) and the registered code comes in `errorCode`.
 */

function assertError(
  answer: { status: number; body: unknown; text: string },
  errorCode: SpecificErrorCode,
  status: number,
): ErrorBody {
  const body = answer.body as ErrorBody;
  assert.equal(answer.status, status, answer.text);
  assert.equal(body.status, status, answer.text);
  assert.equal(body.errorCode, errorCode, answer.text);
  assert.equal(body.code, ERROR_REGISTRY[errorCode].class, answer.text);
  assert.equal(typeof body.message, 'string');
  assert.equal(typeof body.retryable, 'boolean');
  return body;
}

const flow = workflowDef('err_flow', [{ name: 'err_work', taskReferenceName: 'work', type: 'SIMPLE' }]);

/** Blob storage that does not answer, as a bucket that is down would. */
const downBlobs: BlobStore = {
  kind: 'filesystem',
  location: 'nowhere',
  put: () => Promise.reject(new Error('blob storage is down')),
  get: () => Promise.reject(new Error('blob storage is down')),
  delete: () => Promise.reject(new Error('blob storage is down')),
  presign: () => Promise.reject(new Error('blob storage is down')),
  close: () => Promise.resolve(),
};

for (const storeCase of storeCases()) {
  describe(`error answers carry their specific code (${storeCase.name})`, () => {
    const t = appSuite(storeCase, { env: { BATON_PAYLOAD_INLINE_MAX_BYTES: '1024' }, blobs: downBlobs });
    const started: string[] = [];

    it('VALIDATION: a route schema and a route check', async () => {
      const schema = assertError(
        await call(t.app, 'GET', '/api/tasks/poll/batch/err_work?count=many'),
        'REQUEST_INVALID',
        400,
      );
      assert.ok((schema.validationErrors ?? []).length > 0);
      const poll = await call(t.app, 'GET', '/api/tasks/poll/batch/err_work?timeout=6000');
      const body = assertError(poll, 'POLL_TIMEOUT_TOO_LONG', 400);
      assert.equal(body.message, 'Long Poll Timeout value cannot be more than 5 seconds');
      assert.equal(body.validationErrors?.[0]?.path, 'querystring.timeout');
    });

    it('BAD_REQUEST: a body that is not JSON', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/metadata/workflow',
        headers: { 'content-type': 'application/json' },
        payload: '{"name": ',
      });
      assertError({ status: res.statusCode, body: res.json(), text: res.body }, 'BODY_NOT_JSON', 400);
    });

    it('NOT_FOUND: an unknown run, and an unknown route', async () => {
      const run = assertError(await call(t.app, 'GET', '/api/workflow/no-such-run'), 'RUN_NOT_FOUND', 404);
      assert.equal(run.message, 'No such workflow found by id: no-such-run');
      assertError(await call(t.app, 'GET', '/api/no-such-thing'), 'ROUTE_NOT_FOUND', 404);
    });

    it('CONFLICT: pausing a run that has ended', async () => {
      await register(t.app, [flow], workerTaskDefs(['err_work']));
      const start = await call(t.app, 'POST', '/api/workflow/err_flow', {});
      assert.equal(start.status, 200, start.text);
      const id = start.text;
      started.push(id);
      assert.equal((await call(t.app, 'DELETE', `/api/workflow/${id}?reason=done`)).status, 200);
      const res = await call(t.app, 'PUT', `/api/workflow/${id}/pause`);
      const body = assertError(res, 'RUN_NOT_PAUSABLE', 409);
      assert.match(body.message, /TERMINATED: only a RUNNING workflow can be paused/);
    });

    it('PAYLOAD_TOO_LARGE: a start input over the inline limit', async () => {
      const res = await call(t.app, 'POST', '/api/workflow/err_flow', { big: 'x'.repeat(2048) });
      const body = assertError(res, 'PAYLOAD_OVER_INLINE_LIMIT', 413);
      assert.match(body.message, /^Workflow input of \d+ bytes is over the inline limit of 1024 bytes/);
    });

    it('UNSUPPORTED_MEDIA_TYPE: a body of a type no route reads', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/metadata/workflow',
        headers: { 'content-type': 'application/xml' },
        payload: '<workflow/>',
      });
      assertError(
        { status: res.statusCode, body: res.json(), text: res.body },
        'MEDIA_TYPE_UNSUPPORTED',
        415,
      );
    });

    it('NOT_READY: blob storage that does not answer, retryable', async () => {
      const res = await call(t.app, 'POST', '/api/workflow', {
        name: 'err_flow',
        externalInputPayloadStoragePath: 'payloads/never-written.json',
      });
      const body = assertError(res, 'BLOB_STORAGE_UNAVAILABLE', 503);
      assert.equal(body.retryable, true);
      assert.equal(body.message, 'Blob storage does not answer: blob storage is down');
    });
  });
}

describe('INTERNAL: an unexpected fault answers the registered code and hides its text', () => {
  it('answers INTERNAL_ERROR without the thrown message', async () => {
    const app = Fastify({ logger: false });
    installErrorHandling(app);
    app.get('/boom', () => {
      throw new Error('connection string postgres://user:hunter2@db');
    });
    const res = await app.inject({ method: 'GET', url: '/boom' });
    const body = assertError(
      { status: res.statusCode, body: res.json(), text: res.body },
      'INTERNAL_ERROR',
      500,
    );
    assert.equal(body.retryable, true);
    assert.doesNotMatch(res.body, /hunter2/);
    await app.close();
  });
});

void describe('UNAUTHENTICATED, FORBIDDEN, RATE_LIMITED: auth on', () => {
  const [storeCase] = storeCases();
  if (!storeCase) return;
  const t = authSuite(storeCase, { BATON_RATE_LIMIT_MAX: '2', BATON_RATE_LIMIT_WINDOW_MS: '60000' });

  void it('answers each refusal with its specific code', async () => {
    const anonymous = await send(t.app, 'GET', '/api/metadata/taskdefs');
    assertError(anonymous, 'TOKEN_REQUIRED', 401);
    const bad = await send(t.app, 'GET', '/api/metadata/taskdefs', { token: 'not-a-token' });
    assertError(bad, 'TOKEN_INVALID', 401);

    const metadata = await t.token('c-metadata');
    const forbidden = await send(t.app, 'GET', '/api/secrets', { token: metadata });
    const body = assertError(forbidden, 'ROLE_REQUIRED', 403);
    assert.match(body.message, /^Forbidden: GET \/api\/secrets needs the role 'admin'/);

    const admin = await t.token('c-admin');
    for (let i = 0; i < 2; i++) {
      assert.equal((await send(t.app, 'GET', '/api/metadata/taskdefs', { token: admin })).status, 200);
    }
    const limited = await send(t.app, 'GET', '/api/metadata/taskdefs', { token: admin });
    assertError(limited, 'RATE_LIMIT_EXCEEDED', 429);
  });
});
