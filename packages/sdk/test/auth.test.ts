import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';

import { jwtExpiry } from '../src/auth.js';
import { BatonClient } from '../src/client.js';
import { BatonApiError, BatonConnectionError } from '../src/errors.js';
import { freePort } from './helpers/baton.js';

/** An unsigned JWT-shaped token with the given exp (seconds); the client never verifies it. */
function token(id: number, expSeconds: number): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none' })}.${part({ sub: 'app', exp: expSeconds, id })}.x`;
}

// Authentication is checked by the server; here a small stand-in speaks Orkes's documented
// shapes (POST /api/token {keyId, keySecret} → {token}; 401 without a valid bearer token) so
// the client's side of the exchange is observed exactly: what it sends, when it refreshes.
describe('client credentials', () => {
  let url = '';
  let issued = 0;
  let valid = new Set<string>();
  const seen: Array<{ path: string; authorization: string | undefined; body: string }> = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
      if (req.url === '/api/token' && req.method === 'POST') {
        const { keyId, keySecret } = JSON.parse(body) as { keyId: string; keySecret: string };
        if (keyId !== 'k1' || keySecret !== 's3cret') {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ status: 401, message: 'unknown application key', retryable: false }));
          return;
        }
        issued += 1;
        const t = token(issued, Math.floor(Date.now() / 1000) + 3600);
        valid.add(t);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ token: t }));
        return;
      }
      const auth = req.headers.authorization ?? '';
      if (!auth.startsWith('Bearer ') || !(valid.has(auth.slice(7)) || auth === 'Bearer static-token')) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 401, message: 'no valid token', retryable: false }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ workflowId: 'w1', status: 'RUNNING', tasks: [] }));
    });
  });

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends a given token as a bearer token', async () => {
    const client = new BatonClient({ baseUrl: url, credentials: { token: 'static-token' } });
    assert.equal((await client.getWorkflow('w1')).workflowId, 'w1');
    assert.equal(seen.at(-1)!.authorization, 'Bearer static-token');
  });

  it('exchanges an application key once for many requests, and again after a 401', async () => {
    const client = new BatonClient({ baseUrl: url, credentials: { keyId: 'k1', keySecret: 's3cret' } });
    const before = issued;
    await Promise.all([client.getWorkflow('w1'), client.getWorkflow('w1'), client.getWorkflow('w1')]);
    assert.equal(issued, before + 1, 'concurrent requests share one exchange');
    const exchange = seen.find((s) => s.path === '/api/token')!;
    assert.deepEqual(JSON.parse(exchange.body), { keyId: 'k1', keySecret: 's3cret' });

    valid = new Set(); // the server forgets every token (restart, key rotation)
    assert.equal((await client.getWorkflow('w1')).workflowId, 'w1');
    assert.equal(issued, before + 2, 'refreshed after the 401');
  });

  it('a refused key is an error that names the key but never the secret', async () => {
    const client = new BatonClient({ baseUrl: url, credentials: { keyId: 'k1', keySecret: 'wrong-secret' } });
    await assert.rejects(client.getWorkflow('w1'), (err: Error) => {
      assert.match(err.message, /k1/);
      assert.doesNotMatch(err.message, /wrong-secret/);
      return true;
    });
  });

  it('without credentials a 401 is a BatonApiError with the server message', async () => {
    const client = new BatonClient({ baseUrl: url });
    await assert.rejects(client.getWorkflow('w1'), (err: unknown) => {
      assert.ok(err instanceof BatonApiError);
      assert.equal(err.status, 401);
      assert.equal(err.message, 'no valid token');
      return true;
    });
  });

  it('reads the expiry of a JWT', () => {
    assert.equal(jwtExpiry(token(1, 1_700_000_000)), 1_700_000_000_000);
    assert.equal(jwtExpiry('opaque'), undefined);
  });

  it('a server that is not there is a connection error naming the URL', async () => {
    const port = await freePort();
    const client = new BatonClient({ baseUrl: `http://127.0.0.1:${port}` });
    await assert.rejects(client.getWorkflow('w1'), (err: unknown) => {
      assert.ok(err instanceof BatonConnectionError);
      assert.equal(err.url, `http://127.0.0.1:${port}`);
      assert.match(err.message, new RegExp(`cannot reach Baton at http://127.0.0.1:${port}: ECONNREFUSED`));
      return true;
    });
  });
});
