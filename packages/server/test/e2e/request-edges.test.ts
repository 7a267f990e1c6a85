import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';

import { type BatonProcess, startBaton } from '../helpers/baton-process.js';

/**
 * Requests at the edge of HTTP, against a real server process: bodies over the limit (sent with a
 * length and chunked, through undici's fetch) get the 413 with the error body rather than a
 * network error, and requests meant for another host are refused.
 */

const LIMIT = 64 * 1024;

/** Sends raw bytes on a fresh connection and answers the status code and body of the reply. */
async function raw(port: number, request: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
      // One answer is enough: stop once its body (content-length) is complete.
      const end = data.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(data.slice(0, end));
      if (end >= 0 && length && data.length >= end + 4 + Number(length[1])) socket.end();
    });
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, body: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
    // A server that refuses a request may reset the connection while it is still being written;
    // what it answered before that is the answer.
    socket.on('error', (error) => (data ? socket.emit('end') : reject(error)));
    socket.write(request);
  });
}

function chunkedBody(total: number, chunk = 16 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  const piece = new TextEncoder().encode('x'.repeat(chunk));
  return new ReadableStream({
    pull(controller) {
      if (sent === 0) controller.enqueue(new TextEncoder().encode('{"input":{"a":"'));
      if (sent >= total) {
        controller.enqueue(new TextEncoder().encode('"}}'));
        controller.close();
        return;
      }
      sent += piece.length;
      controller.enqueue(piece);
    },
  });
}

describe('request edges on a real server', () => {
  let baton: BatonProcess;
  before(async () => {
    baton = await startBaton({ env: { BATON_MAX_BODY_BYTES: String(LIMIT) } });
  });
  after(async () => {
    await baton?.stop();
  });

  async function expect413(res: Response): Promise<void> {
    assert.equal(res.status, 413);
    const body = (await res.json()) as { status: number; code: string; message: string; retryable: boolean };
    assert.equal(body.status, 413);
    assert.equal(body.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(body.retryable, false);
    assert.match(body.message, /65536 bytes/);
    assert.match(body.message, /external payload storage/);
  }

  it('answers 413 with the error body to fetch sending a body with a length', async () => {
    for (const size of [LIMIT + 1, 2 * 1024 * 1024, 24 * 1024 * 1024]) {
      const res = await fetch(`${baton.url}/api/workflow`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'x', input: { a: 'x'.repeat(size) } }),
      });
      await expect413(res);
    }
    // The connection is still usable: the next request on it is answered.
    assert.equal((await fetch(`${baton.url}/health`)).status, 200);
  });

  it('answers 413 with the error body to fetch sending a chunked body', async () => {
    for (const size of [LIMIT * 2, 8 * 1024 * 1024]) {
      const res = await fetch(`${baton.url}/api/workflow/some_flow`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: chunkedBody(size),
        duplex: 'half',
      });
      await expect413(res);
    }
    assert.equal((await fetch(`${baton.url}/health`)).status, 200);
  });

  it('refuses absolute-form and asterisk request targets', async () => {
    for (const target of [
      'http://other.host/api/admin/config',
      `http://127.0.0.1:${baton.port}/api/admin/config`,
      '*',
      '//other.host/api/admin/config',
    ]) {
      const res = await raw(
        baton.port,
        `GET ${target} HTTP/1.1\r\nHost: other.host\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(res.status, 400, `${target}: ${res.body}`);
      const body = JSON.parse(res.body) as { status: number; message: string };
      assert.equal(body.status, 400);
      assert.match(body.message, /request target/);
      assert.doesNotMatch(res.body, /BATON_PORT/);
    }
  });

  it('refuses Host headers that name no host, and serves ordinary ones', async () => {
    for (const host of [
      'evil.com/api',
      'user@evil.com',
      'a b',
      'evil.com:port',
      'evil.com:80:81',
      '[::1',
      'x'.repeat(300),
    ]) {
      const res = await raw(
        baton.port,
        `GET /api/admin/config HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(res.status, 400, `${host}: ${res.body}`);
      assert.doesNotMatch(res.body, /BATON_PORT/);
    }
    for (const host of [`127.0.0.1:${baton.port}`, 'localhost', 'baton.example.com:8080', '[::1]:8080']) {
      const res = await raw(baton.port, `GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      assert.equal(res.status, 200, `${host}: ${res.body}`);
    }
  });

  it('answers requests the HTTP parser refuses with the error body', async () => {
    const cases: Array<[request: string, status: number]> = [
      ['GARBAGE\r\n\r\n', 400],
      ['GET /health HTTP/1.1\r\nHost: a\r\nBad Header Line\r\n\r\n', 400],
      [
        'POST /api/workflow HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        400,
      ],
      [`GET /health HTTP/1.1\r\nHost: a\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`, 431],
    ];
    for (const [request, status] of cases) {
      const res = await raw(baton.port, request);
      assert.equal(res.status, status, `${request.slice(0, 60)}: ${res.body}`);
      const body = JSON.parse(res.body) as { status: number; message: string; retryable: boolean };
      assert.equal(body.status, status);
      assert.equal(typeof body.message, 'string');
    }
  });
});
