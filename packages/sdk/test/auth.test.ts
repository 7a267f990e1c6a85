import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { jwtExpiry, tokenSource } from '../src/auth.js';
import { BatonClient } from '../src/client.js';
import { simpleTask, taskDef, workflow } from '../src/definitions.js';
import { BatonApiError, BatonConnectionError } from '../src/errors.js';
import type { RunnerEvent } from '../src/task-runner.js';
import { WorkerPool } from '../src/worker-pool.js';
import { defineWorker } from '../src/worker.js';
import { freePort, startBaton, waitFor, type BatonProcess } from './helpers/baton.js';
import { until, waitForEnd } from './helpers/runs.js';

const ADMIN = { keyId: 'sdk-test-admin', keySecret: 'sdk-test-admin-secret-0123' };

/** A fetch that counts the token exchanges it carries, so the client's side is observed exactly. */
function countingFetch(): {
  fetch: typeof fetch;
  exchanges: () => number;
  bodies: unknown[];
  tokens: string[];
} {
  const bodies: unknown[] = [];
  const tokens: string[] = [];
  const counted: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.endsWith('/api/token')) return fetch(input, init);
    bodies.push(JSON.parse(init?.body as string) as unknown);
    const res = await fetch(input, init);
    if (res.ok) tokens.push(((await res.clone().json()) as { token: string }).token);
    return res;
  };
  return { fetch: counted, exchanges: () => bodies.length, bodies, tokens };
}

// The SDK against Baton's own authentication: application keys exchanged at POST /api/token,
// worker roles per task type, tokens that expire.
describe('client credentials (real server, auth on)', () => {
  let baton: BatonProcess;
  let admin: BatonClient;
  let worker: { keyId: string; keySecret: string };
  const pools: WorkerPool[] = [];

  before(async () => {
    baton = await startBaton({
      env: {
        BATON_AUTH_BOOTSTRAP_KEY_ID: ADMIN.keyId,
        BATON_AUTH_BOOTSTRAP_KEY_SECRET: ADMIN.keySecret,
        // An expired token is refused at once, so expiry is observable in a test.
        BATON_AUTH_CLOCK_SKEW_SECONDS: '0',
      },
    });
    admin = new BatonClient({ baseUrl: baton.url, credentials: ADMIN });
    await admin.registerTaskDefs([taskDef('greet', { retryCount: 0 }), taskDef('other', { retryCount: 0 })]);
    await admin.putWorkflowDefs([
      workflow('greet-flow', [simpleTask('g', 'greet', { who: '${workflow.input.who}' })], {
        outputParameters: { greeting: '${g.output.greeting}' },
      }),
      workflow('other-flow', [simpleTask('o', 'other', {})]),
    ]);
    // An application that may work `greet` tasks only, with its own access key.
    const app = await admin.send<{ id: string }>('POST', '/api/applications', () =>
      admin.api.POST('/api/applications', { body: { name: 'greeters' } }),
    );
    await admin.send('POST', '/api/applications/{id}/roles/{role}', () =>
      admin.api.POST('/api/applications/{applicationId}/roles/{role}', {
        params: { path: { applicationId: app.id, role: 'worker:greet' } },
        parseAs: 'text',
      }),
    );
    const key = await admin.send<{ id: string; secret: string }>(
      'POST',
      '/api/applications/{id}/accessKeys',
      () => admin.api.POST('/api/applications/{id}/accessKeys', { params: { path: { id: app.id } } }),
    );
    worker = { keyId: key.id, keySecret: key.secret };
  });
  after(async () => {
    await Promise.all(pools.map((p) => p.stop({ graceMs: 500 })));
    await baton?.stop();
  });

  it('a worker with an application key polls and completes its tasks', async () => {
    const counting = countingFetch();
    const client = new BatonClient({ baseUrl: baton.url, credentials: worker, fetch: counting.fetch });
    const pool = new WorkerPool({
      client,
      workers: [
        defineWorker<{ who: string }, { greeting: string }>({
          taskType: 'greet',
          handler: ({ who }) => ({ greeting: `hello, ${who}` }),
        }),
      ],
    }).start();
    pools.push(pool);
    const ids = await Promise.all(
      ['ada', 'alan', 'grace'].map((who) => admin.startWorkflow('greet-flow', { input: { who } })),
    );
    for (const [i, id] of ids.entries()) {
      const done = await waitForEnd(admin, id);
      assert.equal(done.status, 'COMPLETED');
      assert.deepEqual(done.output, { greeting: `hello, ${['ada', 'alan', 'grace'][i]!}` });
    }
    assert.equal(counting.exchanges(), 1, 'one token serves every poll and result');
    assert.deepEqual(counting.bodies[0], worker);
    await pool.stop({ graceMs: 500 });
  });

  it('a worker whose role lacks the task type is refused with the role it needs, and takes nothing', async () => {
    const errors: Error[] = [];
    const client = new BatonClient({ baseUrl: baton.url, credentials: worker });
    const pool = new WorkerPool({
      client,
      workers: [defineWorker({ taskType: 'other', handler: () => ({}) })],
      onEvent: (e: RunnerEvent) => {
        if (e.type === 'error') errors.push(e.error);
      },
    }).start();
    pools.push(pool);
    const id = await admin.startWorkflow('other-flow');
    await until(() => errors.length > 0, 'a refused poll');
    await pool.stop({ graceMs: 500 });
    const refused = errors[0];
    assert.ok(refused instanceof BatonApiError, String(refused));
    assert.equal(refused.status, 403);
    assert.match(refused.message, /task type 'other' needs the role 'worker:other'/);
    assert.equal((await admin.getWorkflow(id)).tasks[0]?.status, 'SCHEDULED');
  });

  it('without an event listener, a refused poll is written to stderr once, not at every retry', async () => {
    let polls = 0;
    const client = new BatonClient({
      baseUrl: baton.url,
      credentials: worker,
      fetch: (input, init) => {
        if ((input instanceof Request ? input.url : String(input)).includes('/poll/batch/')) polls += 1;
        return fetch(input, init);
      },
    });
    const lines: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
    try {
      const pool = new WorkerPool({
        client,
        workers: [defineWorker({ taskType: 'other', pollIntervalMs: 5, handler: () => ({}) })],
      }).start();
      pools.push(pool);
      await until(() => polls >= 5, 'five refused polls');
      await pool.stop({ graceMs: 500 });
    } finally {
      console.error = original;
    }
    assert.deepEqual(lines, [
      "baton worker other: poll failed: Forbidden: task type 'other' needs the role 'worker:other' (or 'task')",
    ]);
  });

  it('a refused key is an error that names the key but never the secret', async () => {
    const client = new BatonClient({
      baseUrl: baton.url,
      credentials: { keyId: worker.keyId, keySecret: 'wrong-secret-value' },
    });
    await assert.rejects(client.getWorkflow('w1'), (err: Error) => {
      assert.ok(err instanceof BatonApiError);
      assert.equal(err.status, 401);
      assert.equal(err.message, `application key ${worker.keyId} refused: invalid key id or secret`);
      assert.doesNotMatch(err.message, /wrong-secret-value/);
      return true;
    });
  });

  it('without credentials a 401 is a BatonApiError with the server message', async () => {
    const client = new BatonClient({ baseUrl: baton.url });
    await assert.rejects(client.listTaskDefs(), (err: unknown) => {
      assert.ok(err instanceof BatonApiError);
      assert.equal(err.status, 401);
      assert.match(err.message, /token/i);
      return true;
    });
  });

  it('a bearer token is sent as it is given', async () => {
    const { token } = (await (
      await fetch(`${baton.url}/api/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ADMIN),
      })
    ).json()) as { token: string };
    const client = new BatonClient({ baseUrl: baton.url, credentials: { token } });
    assert.ok((await client.listTaskDefs()).some((d) => d.name === 'greet'));
  });

  // The tokens below live 3 s: `exp` is in whole seconds, so a token asked for N seconds lives
  // between N - 1 and N, and the calls made before it is meant to run out get two seconds at least.
  it('exchanges the key again when a short-lived token runs out; concurrent requests share one exchange', async () => {
    const counting = countingFetch();
    const client = new BatonClient({
      baseUrl: baton.url,
      credentials: { ...ADMIN, expirationSeconds: 3 },
      fetch: counting.fetch,
    });
    await Promise.all([client.listTaskDefs(), client.listTaskDefs(), client.listTaskDefs()]);
    assert.equal(counting.exchanges(), 1);
    assert.deepEqual(counting.bodies[0], { ...ADMIN, expiration: 3 });
    await client.listTaskDefs();
    const first = counting.exchanges();
    // Once the first token has expired (the server refuses it now), the client has a new one.
    await waitFor(
      async () => ((await client.listTaskDefs()) && counting.exchanges() > first ? true : undefined),
      {
        timeoutMs: 10_000,
        intervalMs: 100,
        what: 'a second token exchange',
      },
    );
  });

  it('a token the server refuses as expired is exchanged again and the request repeated once', async () => {
    const counting = countingFetch();
    // A client whose clock stands still believes its token good; the server knows better.
    const frozen = Date.now();
    const client = new BatonClient({
      baseUrl: baton.url,
      credentials: { ...ADMIN, expirationSeconds: 3 },
      fetch: counting.fetch,
      now: () => frozen,
    });
    await client.listTaskDefs();
    const first = counting.tokens[0]!;
    await waitFor(
      async () => {
        const res = await fetch(`${baton.url}/api/metadata/taskdefs`, {
          headers: { authorization: `Bearer ${first}` },
        });
        return res.status === 401 ? true : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'the first token to expire' },
    );
    assert.ok((await client.listTaskDefs()).some((d) => d.name === 'greet'));
    assert.equal(counting.exchanges(), 2, 'the 401 got one fresh token');
    assert.ok(jwtExpiry(counting.tokens[1]!)! >= jwtExpiry(first)!);
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

// When a token is exchanged again, judged by an injected clock (no server: the token's `exp` is
// all the client reads).
describe('token lifetime', () => {
  function jwt(expSeconds: number): string {
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    return `${part({ alg: 'none' })}.${part({ sub: 'app', exp: expSeconds })}.x`;
  }
  function source(lifetimeSeconds: number) {
    let now = 1_700_000_000_000;
    let issued = 0;
    const fake: typeof fetch = () => {
      issued += 1;
      const body = JSON.stringify({ token: jwt(now / 1000 + lifetimeSeconds) });
      return Promise.resolve(new Response(body, { status: 200 }));
    };
    const tokens = tokenSource('http://127.0.0.1:1', { keyId: 'k', keySecret: 's' }, fake, () => now);
    return { tokens, issued: () => issued, advance: (ms: number) => (now += ms) };
  }

  it('keeps an hour-long token until a minute before it expires', async () => {
    const s = source(3600);
    await s.tokens.header();
    s.advance(3600_000 - 60_001);
    await s.tokens.header();
    assert.equal(s.issued(), 1);
    s.advance(2);
    await s.tokens.header();
    assert.equal(s.issued(), 2);
  });

  it('keeps a short token for four fifths of its life, not one request', async () => {
    const s = source(10);
    await s.tokens.header();
    await s.tokens.header();
    s.advance(7_999);
    await s.tokens.header();
    assert.equal(s.issued(), 1);
    s.advance(2);
    await s.tokens.header();
    assert.equal(s.issued(), 2);
  });

  it('reads the expiry of a JWT', () => {
    assert.equal(jwtExpiry(jwt(1_700_000_000)), 1_700_000_000_000);
    assert.equal(jwtExpiry('opaque'), undefined);
  });
});
