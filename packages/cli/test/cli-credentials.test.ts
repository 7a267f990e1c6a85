import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';

import { runCli } from './helpers/cli.js';

// Authentication is the server's; this stand-in speaks Orkes's documented shapes
// (POST /api/token {keyId, keySecret} → {token}; a bearer token on every other request) to
// observe what the CLI sends for each kind of credential in the environment.
describe('baton credentials from the environment', () => {
  let url = '';
  const seen: Array<{ method: string; path: string; authorization?: string; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body,
      });
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/token') {
        res.end(JSON.stringify({ token: 'issued-token' }));
        return;
      }
      if (
        req.headers.authorization !== 'Bearer given-token' &&
        req.headers.authorization !== 'Bearer issued-token'
      ) {
        res.statusCode = 401;
        res.end(JSON.stringify({ status: 401, message: 'missing or invalid token', retryable: false }));
        return;
      }
      res.end(
        JSON.stringify({
          greet: { waiting: 0, scheduled: 0, inFlight: 0, deadLettered: 0, activeWorkers: 0 },
        }),
      );
    });
  });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('BATON_TOKEN is sent as a bearer token', async () => {
    const r = await runCli(['queues', '--server', url], { env: { BATON_TOKEN: 'given-token' } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(seen.at(-1)?.authorization, 'Bearer given-token');
  });

  it('BATON_KEY_ID and BATON_KEY_SECRET are exchanged at POST /api/token', async () => {
    seen.length = 0;
    const r = await runCli(['queues'], {
      env: { BATON_URL: url, BATON_KEY_ID: 'app-1', BATON_KEY_SECRET: 'shh' },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      seen.map((s) => `${s.method} ${s.path}`),
      ['POST /api/token', 'GET /api/tasks/queue/sizes'],
    );
    assert.deepEqual(JSON.parse(seen[0]!.body), { keyId: 'app-1', keySecret: 'shh' });
    assert.equal(seen[1]!.authorization, 'Bearer issued-token');
  });

  it('without credentials a 401 says which settings to give', async () => {
    const r = await runCli(['queues', '--server', url]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /HTTP 401\): missing or invalid token/);
    assert.match(r.stderr, /set BATON_TOKEN, or BATON_KEY_ID and BATON_KEY_SECRET/);
  });

  it('--version prints the version', async () => {
    const r = await runCli(['--version']);
    assert.equal(r.code, 0);
    assert.match(r.stdout.trim(), /^\d+\.\d+\.\d+$/);
  });

  it('half an application key is a usage error', async () => {
    const r = await runCli(['queues', '--server', url], { env: { BATON_KEY_ID: 'app-1' } });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /BATON_KEY_ID and BATON_KEY_SECRET go together/);
  });
});
