import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { groupOfRoute } from '../../src/auth/route-groups.js';
import { freePort } from '../helpers/baton-process.js';
import { storeCases } from '../helpers/stores.js';
import { authSuite, BOOTSTRAP, send } from './auth-fixture.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Every operation of the OpenAPI document, its path parameters filled with a placeholder. */
function operations(doc: {
  paths: Record<string, Record<string, unknown>>;
}): Array<{ method: Method; url: string; pattern: string }> {
  const out: Array<{ method: Method; url: string; pattern: string }> = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops)) {
      const upper = method.toUpperCase();
      if (!['GET', 'POST', 'PUT', 'DELETE'].includes(upper)) continue;
      out.push({
        method: upper as Method,
        url: path.replace(/\{[^}]+\}/g, 'zz-placeholder'),
        pattern: path.replace(/\{([^}]+)\}/g, ':$1'),
      });
    }
  }
  return out;
}

const [storeCase] = storeCases();
if (storeCase) {
  void describe('auth: every route of the API with auth on', () => {
    const t = authSuite(storeCase);

    void it('refuses every non-open route without a token before reading its body (401), whatever the body', async () => {
      const doc = (await send(t.app, 'GET', '/api/openapi.json')).body;
      const ops = operations(doc);
      assert.ok(ops.length > 40, `${ops.length} operations`);
      for (const op of ops) {
        const res = await send(t.app, op.method, op.url, { raw: '{"broken": ' });
        if (groupOfRoute(op.pattern) === 'open') {
          assert.ok(res.status < 500, `${op.method} ${op.url}: ${res.status}`);
        } else {
          assert.equal(res.status, 401, `${op.method} ${op.url}: ${res.status} ${res.text}`);
        }
      }
    });

    void it('answers bad input from an admin with a 4xx, never a 5xx, on every route', async () => {
      const admin = (await send(t.app, 'POST', '/api/token', { body: BOOTSTRAP })).body.token as string;
      const doc = (await send(t.app, 'GET', '/api/openapi.json')).body;
      for (const op of operations(doc)) {
        if (op.url.includes('poll')) continue; // long polls: covered by their own suites
        for (const raw of [
          '{"broken": ',
          '[1, {"x": null}]',
          '"text"',
          '{"name": {"deep": [[[]]]}, "keyId": 5}',
        ]) {
          const res = await send(t.app, op.method, op.url, { token: admin, raw });
          assert.ok(res.status < 500, `${op.method} ${op.url} ${raw}: ${res.status} ${res.text}`);
        }
      }
    });

    void it('answers bad input to the application routes with 400 naming the field, and changes nothing', async () => {
      const admin = (await send(t.app, 'POST', '/api/token', { body: BOOTSTRAP })).body.token as string;
      const before = (await send(t.app, 'GET', '/api/applications', { token: admin })).body;
      for (const body of [{}, { name: '' }, { name: 5 }, { name: 'x'.repeat(201) }]) {
        const res = await send(t.app, 'POST', '/api/applications', { token: admin, body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.ok(res.body.validationErrors?.[0]?.path.startsWith('body'), res.text);
      }
      for (const body of [
        {},
        { keyId: 'a' },
        { keyId: 5, keySecret: 'x' },
        { keyId: 'a', keySecret: 'b', expiration: 0 },
      ]) {
        const res = await send(t.app, 'POST', '/api/token', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
      }
      assert.equal(
        (await send(t.app, 'PUT', '/api/applications/none', { token: admin, body: { name: 'x' } })).status,
        404,
      );
      assert.equal(
        (await send(t.app, 'POST', '/api/applications/none/accessKeys', { token: admin })).status,
        404,
      );
      assert.equal(
        (await send(t.app, 'POST', '/api/applications/none/roles/admin', { token: admin })).status,
        404,
      );
      assert.equal(
        (await send(t.app, 'DELETE', '/api/applications/none/accessKeys/k', { token: admin })).status,
        404,
      );
      assert.deepEqual((await send(t.app, 'GET', '/api/applications', { token: admin })).body, before);
    });

    void it('limits token exchanges per address even with no general rate limit', async () => {
      // Invalid bodies are counted too (the limit is checked before the body), and cost no hash.
      let limited: { status: number; headers: Record<string, unknown> } | undefined;
      for (let i = 0; i < 200 && !limited; i++) {
        const res = await send(t.app, 'POST', '/api/token', { body: {} });
        if (res.status === 429) limited = res;
        else assert.equal(res.status, 400);
      }
      assert.ok(limited, 'the token exchange was never limited');
      assert.ok(Number(limited.headers['retry-after']) > 0);
      // Other routes are not limited by it.
      const admin = await t.token('c-admin');
      assert.equal((await send(t.app, 'GET', '/api/applications', { token: admin })).status, 200);
    });
  });

  void describe('auth: the identity provider cannot be reached', () => {
    let port = 0;
    const t = authSuite(storeCase, {});
    void it('answers 503 (retryable) instead of refusing the caller, and keeps application keys working', async () => {
      port = await freePort();
      // A second server whose issuer nobody listens on.
      const { compileOptions } = await import('../../src/config/options.js');
      const { createServer } = await import('../../src/server.js');
      const { pino } = await import('pino');
      const { mkdtempSync, rmSync } = await import('node:fs');
      const dir = mkdtempSync('/tmp/baton-auth-down-');
      const server = await createServer({
        options: compileOptions({
          BATON_DATA_DIR: dir,
          BATON_AUTH_ISSUER: `http://127.0.0.1:${port}`,
          BATON_AUTH_AUDIENCE: 'x',
          BATON_AUTH_BOOTSTRAP_KEY_ID: BOOTSTRAP.keyId,
          BATON_AUTH_BOOTSTRAP_KEY_SECRET: BOOTSTRAP.keySecret,
        }),
        logger: pino({ level: 'silent' }),
        timerLoop: false,
      });
      try {
        await server.app.ready();
        const idpToken = await t.token('c-admin');
        const forged = idpToken.replace(
          /^[^.]+/,
          Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'k' })).toString('base64url'),
        );
        // The token names an issuer this server is not configured for: refused without a fetch.
        assert.equal((await send(server.app, 'GET', '/api/admin/config', { token: forged })).status, 401);
        const payload = JSON.parse(
          Buffer.from(idpToken.split('.')[1] ?? '', 'base64url').toString(),
        ) as Record<string, unknown>;
        const mine = [
          Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'k' })).toString('base64url'),
          Buffer.from(JSON.stringify({ ...payload, iss: `http://127.0.0.1:${port}` })).toString('base64url'),
          'c2ln',
        ].join('.');
        const down = await send(server.app, 'GET', '/api/admin/config', { token: mine });
        assert.equal(down.status, 503, down.text);
        assert.equal(down.body.retryable, true);
        const key = (await send(server.app, 'POST', '/api/token', { body: BOOTSTRAP })).body.token as string;
        assert.equal((await send(server.app, 'GET', '/api/admin/config', { token: key })).status, 200);
      } finally {
        // The whole server, not just its HTTP app: its executor, brokers and relays stop too.
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
