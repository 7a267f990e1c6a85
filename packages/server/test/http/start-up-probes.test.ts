import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';

import { listenForStartUpProbes } from '../../src/http/start-up-probes.js';
import { freePort } from '../helpers/baton-process.js';

/** Whether something can listen on the port now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

void describe('the answers on the port while a node starts', () => {
  void it('is alive, not ready, and turns every request away to try again; closing frees the port', async () => {
    const port = await freePort();
    const probes = await listenForStartUpProbes(port, '127.0.0.1');
    const base = `http://127.0.0.1:${port}`;
    try {
      const live = await fetch(`${base}/health/live`);
      assert.equal(live.status, 200);
      assert.deepEqual(await live.json(), { status: 'UP' });
      for (const path of ['/health', '/health/ready', '/api/health?verbose=1']) {
        const res = await fetch(`${base}${path}`);
        assert.equal(res.status, 503, path);
        const body = (await res.json()) as { status: string; components: Record<string, { error: string }> };
        assert.equal(body.status, 'DOWN', path);
        assert.match(body.components.startup?.error ?? '', /starting.*database/, path);
      }
      const api = await fetch(`${base}/api/workflow/some-run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ a: 1 }),
      });
      assert.equal(api.status, 503);
      assert.ok(Number(api.headers.get('retry-after')) > 0, 'Retry-After');
      const error = (await api.json()) as { errorCode: string; retryable: boolean; message: string };
      assert.equal(error.errorCode, 'DATABASE_UNAVAILABLE');
      assert.equal(error.retryable, true);
      assert.match(error.message, /starting/);
      assert.equal(await canListen(port), false, 'the port is held');
    } finally {
      await probes.close();
    }
    assert.equal(await canListen(port), true, 'the port is free for the server once closed');
  });

  void it('fails as a listen does when the port is taken', async () => {
    const port = await freePort();
    const first = await listenForStartUpProbes(port, '127.0.0.1');
    try {
      await assert.rejects(listenForStartUpProbes(port, '127.0.0.1'), { code: 'EADDRINUSE' });
    } finally {
      await first.close();
    }
  });
});
