import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { FastifyInstance } from 'fastify';

import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import {
  closedWithin,
  delayUnlessClosed,
  eventually,
  json,
  startHttpTarget,
  type HttpTarget,
} from '../helpers/http-target.js';
import { runOf, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

/**
 * HTTP tasks end to end through the API, on SQLite and PostgreSQL, against real HTTP servers
 * on 127.0.0.1: the call is made by the node's system-task executor, its outcome recorded
 * through the worker result path.
 */

let seq = 0;
function httpWorkflow(
  request: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  seq += 1;
  return {
    name: `http_wf_${seq}`,
    ownerEmail: 'test@example.com',
    tasks: [
      {
        name: `call_${seq}`,
        taskReferenceName: 'call',
        type: 'HTTP',
        inputParameters: { http_request: request },
        ...extra,
      },
    ],
    outputParameters: { status: '${call.output.response.statusCode}', body: '${call.output.response.body}' },
  };
}

async function runTo(app: FastifyInstance, id: string, statuses: string[], timeoutMs = 30_000): Promise<any> {
  return eventually(
    async () => {
      const run = await runOf(app, id);
      return statuses.includes(run.status) ? run : undefined;
    },
    `run ${id} to reach ${statuses.join('/')}`,
    timeoutMs,
  );
}

async function startHttp(
  app: FastifyInstance,
  request: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  taskDef?: Record<string, unknown>,
): Promise<string> {
  const def = httpWorkflow(request, extra);
  const name = String(def.name);
  const tasks = def.tasks as Array<Record<string, unknown>>;
  await register(app, [def], taskDef ? [{ name: tasks[0]?.name, ...taskDef }] : []);
  return startRun(app, name, { input: { who: 'world' } });
}

for (const storeCase of storeCases()) {
  void describe(`HTTP tasks on ${storeCase.name}`, () => {
    const suite = appSuite(storeCase);
    let target: HttpTarget;
    const held = (() => {
      let release = (): void => {};
      const promise = new Promise<void>((resolve) => (release = resolve));
      return { promise, release: () => release() };
    })();
    before(async () => {
      target = await startHttpTarget(async (req, res, body) => {
        const url = new URL(req.url ?? '/', 'http://x');
        if (url.pathname === '/json')
          return json(res, 200, { hello: 'world', echo: body === '' ? null : JSON.parse(body) });
        if (url.pathname === '/text') {
          res.writeHead(201, { 'content-type': 'text/plain', 'x-extra': 'yes' });
          res.end('plain text');
          return;
        }
        if (url.pathname === '/fail') return json(res, 503, { error: 'down for maintenance' });
        if (url.pathname === '/deep') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
          return;
        }
        if (url.pathname === '/flaky') {
          const seen = target.requests.filter((r) => r.url === '/flaky').length;
          return seen === 1
            ? json(res, 500, { error: 'first time fails' })
            : json(res, 200, { attempt: seen });
        }
        if (url.pathname === '/redirect') {
          res.writeHead(302, { location: '/json' });
          res.end();
          return;
        }
        if (url.pathname === '/held') {
          // Open until the test lets it go: a test that reads the call in flight races no clock.
          await held.promise;
          if (!res.destroyed) json(res, 200, { held: true });
          return;
        }
        if (url.pathname === '/slow') {
          const ms = Number(url.searchParams.get('ms') ?? '1000');
          await delayUnlessClosed(res, ms);
          if (!res.destroyed) json(res, 200, { slept: ms });
          return;
        }
        json(res, 404, { error: 'no such path' });
      });
    });
    after(async () => {
      held.release();
      await target.close();
    });

    void it('makes the call and completes the task with the response (JSON parsed, Idempotency-Key = taskId)', async () => {
      const { app } = suite;
      const id = await startHttp(app, {
        uri: `${target.url}/json`,
        method: 'POST',
        headers: { 'X-Who': '${workflow.input.who}' },
        body: { greeting: 'hello ${workflow.input.who}' },
      });
      const run = await runTo(app, id, ['COMPLETED', 'FAILED']);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run));
      const task = run.tasks[0];
      assert.equal(task.taskType, 'HTTP');
      assert.equal(task.status, 'COMPLETED');
      const response = task.outputData.response;
      assert.deepEqual(response.body, { hello: 'world', echo: { greeting: 'hello world' } });
      assert.equal(response.reasonPhrase, 'OK');
      assert.deepEqual(response.headers['content-type'], ['application/json']);
      assert.deepEqual(run.output, {
        status: 200,
        body: { hello: 'world', echo: { greeting: 'hello world' } },
      });
      const seen = target.requests.find((r) => r.headers['idempotency-key'] === task.taskId);
      assert.ok(seen, 'the request carries Idempotency-Key: <taskId>');
      assert.equal(seen.method, 'POST');
      assert.equal(seen.headers['x-who'], 'world');
      assert.equal(seen.headers['content-type'], 'application/json');
    });

    void it('reuses connections across calls to one target', async () => {
      const { app } = suite;
      const own = await startHttpTarget((_req, res) => json(res, 200, { ok: true }));
      try {
        for (let i = 0; i < 3; i++) {
          const id = await startHttp(app, { uri: `${own.url}/ok`, method: 'GET' });
          assert.equal((await runTo(app, id, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
        }
        assert.equal(own.requests.length, 3);
        assert.equal(own.connections(), 1, 'three calls, one kept-alive connection');
      } finally {
        await own.close();
      }
    });

    void it('accepts the keys at the top of inputParameters, a text body, and follows redirects', async () => {
      const { app } = suite;
      const def = httpWorkflow({});
      const tasks = def.tasks as Array<Record<string, unknown>>;
      tasks[0] = { ...tasks[0], inputParameters: { uri: `${target.url}/text`, method: 'GET' } };
      await register(app, [def]);
      const id = await startRun(app, String(def.name));
      const run = await runTo(app, id, ['COMPLETED', 'FAILED']);
      assert.equal(run.status, 'COMPLETED');
      assert.equal(run.tasks[0].outputData.response.statusCode, 201);
      assert.equal(run.tasks[0].outputData.response.body, 'plain text');
      assert.deepEqual(run.tasks[0].outputData.response.headers['x-extra'], ['yes']);

      const redirected = await startHttp(app, { uri: `${target.url}/redirect`, method: 'GET' });
      const r2 = await runTo(app, redirected, ['COMPLETED', 'FAILED']);
      assert.equal(r2.status, 'COMPLETED');
      assert.equal(r2.tasks[0].outputData.response.body.hello, 'world');
    });

    void it('fails on a non-2xx answer with the status and body in the reason', async () => {
      const { app } = suite;
      const id = await startHttp(app, { uri: `${target.url}/fail`, method: 'GET' }, { retryCount: 0 });
      const run = await runTo(app, id, ['COMPLETED', 'FAILED']);
      assert.equal(run.status, 'FAILED');
      const task = run.tasks[0];
      assert.equal(task.status, 'FAILED');
      assert.match(
        task.reasonForIncompletion,
        /^HTTP 503 Service Unavailable: \{"error":"down for maintenance"\}/,
      );
      assert.equal(task.outputData.response.statusCode, 503);
    });

    void it('fails a call whose answer nests deeper than free JSON may, and the node goes on', async () => {
      const { app } = suite;
      // 200 KB of brackets: parsed, then every recursive walk of it would overflow the stack.
      const id = await startHttp(app, { uri: `${target.url}/deep`, method: 'GET' }, { retryCount: 0 });
      const run = await runTo(app, id, ['COMPLETED', 'FAILED']);
      assert.equal(run.status, 'FAILED');
      assert.equal(
        run.tasks[0].reasonForIncompletion,
        'Failed to invoke HTTP task due to: its output is nested deeper than 128 levels (the limit)',
      );
      const next = await startHttp(app, { uri: `${target.url}/json`, method: 'GET' });
      assert.equal((await runTo(app, next, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
    });

    void it('retries a failed call under the task definition of the same name', async () => {
      const { app } = suite;
      const id = await startHttp(
        app,
        { uri: `${target.url}/flaky`, method: 'GET' },
        {},
        {
          retryCount: 2,
          retryDelaySeconds: 0,
          responseTimeoutSeconds: 10,
        },
      );
      const run = await runTo(app, id, ['COMPLETED', 'FAILED']);
      assert.equal(run.status, 'COMPLETED');
      assert.deepEqual(
        run.tasks.map((t: any) => t.status),
        ['FAILED', 'COMPLETED'],
      );
      assert.equal(run.tasks[1].retryCount, 1);
      assert.equal(
        run.tasks[1].responseTimeoutSeconds,
        10,
        "the lease is the definition's response timeout when shorter than 30 s",
      );
    });

    void it("a transport failure fails with Conductor's message", async () => {
      const { app } = suite;
      const closed = await startHttpTarget(() => {});
      const url = closed.url;
      await closed.close();
      const id = await startHttp(app, { uri: `${url}/gone`, method: 'GET' }, { retryCount: 0 });
      const run = await runTo(app, id, ['COMPLETED', 'FAILED']);
      assert.equal(run.status, 'FAILED');
      assert.match(run.tasks[0].reasonForIncompletion, /^Failed to invoke HTTP task due to: /);
    });

    void it('readTimeOut fails a call whose answer is late', async () => {
      const { app } = suite;
      const id = await startHttp(
        app,
        { uri: `${target.url}/slow?ms=3000`, method: 'GET', readTimeOut: 200 },
        { retryCount: 0 },
      );
      const run = await runTo(app, id, ['COMPLETED', 'FAILED']);
      assert.equal(run.status, 'FAILED');
      assert.match(run.tasks[0].reasonForIncompletion, /^Failed to invoke HTTP task due to: .*[Tt]imeout/);
    });

    void it('says why an open call waits, and counts calls in /metrics', async () => {
      const { app } = suite;
      const id = await startHttp(app, {
        uri: `${target.url}/held`,
        method: 'GET',
        readTimeOut: 60_000,
      });
      // The executor holds the message before the task's start is written; wait for both.
      const waiting = await eventually(async () => {
        const run = await runOf(app, id);
        const task = run.tasks[0];
        const w = task?.waitingFor;
        return w?.reason === 'lock' && task.status === 'IN_PROGRESS' ? w : undefined;
      }, 'the call to be in flight');
      held.release();
      assert.match(
        waiting.message,
        new RegExp(`^waiting: calling GET ${target.url}/held \\(attempt 1 since `),
      );
      assert.match(waiting.workerId, /^baton-executor@/);
      await runTo(app, id, ['COMPLETED']);
      const metrics = await call(app, 'GET', '/metrics');
      assert.match(metrics.text, /baton_system_calls_total\{kind="HTTP",outcome="completed"\} [1-9]/);
      assert.match(
        metrics.text,
        /baton_system_call_duration_seconds_count\{kind="HTTP",outcome="completed"\} [1-9]/,
      );
      assert.match(metrics.text, /baton_system_calls_in_flight\{kind="HTTP"\} 0/);
    });

    void it('asyncComplete leaves the task IN_PROGRESS after the call until it is completed from outside', async () => {
      const { app } = suite;
      const id = await startHttp(app, { uri: `${target.url}/json`, method: 'GET' }, { asyncComplete: true });
      const task = await eventually(async () => {
        const run = await runOf(app, id);
        const t = run.tasks[0];
        return t?.status === 'IN_PROGRESS' && t.outputData.response !== undefined ? t : undefined;
      }, 'the call to be made');
      assert.equal(task.outputData.response.statusCode, 200);
      assert.equal(task.waitingFor.reason, 'external');
      // Stays so: no second call, no lease to lapse.
      await new Promise((r) => setTimeout(r, 300));
      const calls = target.requests.filter((r) => r.headers['idempotency-key'] === task.taskId).length;
      assert.equal(calls, 1);
      const done = await call(app, 'POST', `/api/tasks/${id}/call/COMPLETED`, { confirmed: true });
      assert.equal(done.status, 200, done.text);
      const run = await runTo(app, id, ['COMPLETED']);
      assert.equal(run.tasks[0].outputData.confirmed, true);
      assert.equal(run.tasks[0].outputData.response.statusCode, 200);
    });

    void it('terminate aborts the call in flight: the target sees the connection close, the task is CANCELED', async () => {
      const { app } = suite;
      const id = await startHttp(app, {
        uri: `${target.url}/slow?ms=30000`,
        method: 'GET',
        readTimeOut: 60_000,
      });
      const seen = await eventually(
        () => Promise.resolve(target.requests.find((r) => r.url === '/slow?ms=30000')),
        'the call to reach the target',
      );
      const terminatedAt = Date.now();
      const res = await call(app, 'DELETE', `/api/workflow/${id}?reason=stop`);
      assert.equal(res.status, 200, res.text);
      const closedAt = await closedWithin(seen, 15_000, 'connection still open after 15 s');
      assert.ok(
        closedAt - terminatedAt < 15_000, // the call would run 30 s: closing well before proves the abort (the delay is a figure, not a bound)
        `the connection closed ${closedAt - terminatedAt} ms after terminate`,
      );
      const run = await runOf(app, id);
      assert.equal(run.status, 'TERMINATED');
      assert.equal(run.tasks[0].status, 'CANCELED');
      const metrics = await call(app, 'GET', '/metrics');
      assert.match(metrics.text, /baton_system_calls_total\{kind="HTTP",outcome="canceled"\} [1-9]/);
    });

    void it("a parent run's end aborts the call of its child run", async () => {
      const { app } = suite;
      const child = httpWorkflow({ uri: `${target.url}/slow?ms=30001`, method: 'GET', readTimeOut: 60_000 });
      await register(app, [child]);
      seq += 1;
      const parent = {
        name: `http_parent_${seq}`,
        tasks: [
          {
            name: 'child',
            taskReferenceName: 'child',
            type: 'SUB_WORKFLOW',
            subWorkflowParam: { name: child.name, version: 1 },
          },
        ],
      };
      await register(app, [parent]);
      const id = await startRun(app, parent.name);
      const seen = await eventually(
        () => Promise.resolve(target.requests.find((r) => r.url === '/slow?ms=30001')),
        'the child run to make its call',
      );
      const res = await call(app, 'DELETE', `/api/workflow/${id}?reason=parent%20stopped`);
      assert.equal(res.status, 200, res.text);
      await closedWithin(seen, 5000, 'the child call is still open after 5 s');
      const parentRun = await runOf(app, id);
      const childRun = await runOf(app, parentRun.tasks[0].subWorkflowId);
      assert.equal(childRun.status, 'TERMINATED');
      assert.equal(childRun.tasks[0].status, 'CANCELED');
    });

    void it('workers cannot poll the internal queues', async () => {
      const { app } = suite;
      for (const url of [
        '/api/tasks/poll/_system-HTTP',
        '/api/tasks/poll/batch/_system-HTTP?count=5&timeout=0',
      ]) {
        const res = await call(app, 'GET', url);
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.validationErrors[0].path, 'params.taskType');
      }
    });

    void it('test runs never call out: HTTP tasks take their mocks, or stop the run without a mock', async () => {
      const { app } = suite;
      // A target of its own, so nothing else in this suite can reach it.
      const untouched = await startHttpTarget((_req, res) => json(res, 200, {}));
      const def = httpWorkflow({ uri: `${untouched.url}/json`, method: 'GET' });
      const mocked = await call(app, 'POST', '/api/workflow/test', {
        workflowDef: def,
        input: {},
        taskRefToMockOutput: {
          call: [{ status: 'COMPLETED', output: { response: { statusCode: 299, body: 'mocked' } } }],
        },
      });
      assert.equal(mocked.status, 200, mocked.text);
      assert.equal(mocked.body.status, 'COMPLETED');
      assert.equal(mocked.body.output.status, 299);
      const unmocked = await call(app, 'POST', '/api/workflow/test', { workflowDef: def, input: {} });
      assert.equal(unmocked.status, 200, unmocked.text);
      assert.equal(unmocked.body.status, 'RUNNING');
      assert.equal(unmocked.body.tasks[0].status, 'SCHEDULED');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(untouched.requests.length, 0, 'no request reached the target');
      assert.equal(untouched.connections(), 0, 'no connection was opened');
      await untouched.close();
    });

    void it('refuses bad definitions at registration, naming the path', async () => {
      const { app } = suite;
      const noUri = httpWorkflow({ method: 'GET' });
      let res = await call(app, 'POST', '/api/metadata/workflow', noUri);
      assert.equal(res.status, 400);
      assert.ok(
        res.body.validationErrors.some(
          (e: any) =>
            e.path === 'tasks[0].inputParameters.http_request.uri' && /Missing HTTP URI/.test(e.message),
        ),
        res.text,
      );
      const badMethod = httpWorkflow({ uri: 'http://127.0.0.1:1/x', method: 'FETCH' });
      res = await call(app, 'POST', '/api/metadata/workflow', badMethod);
      assert.equal(res.status, 400);
      assert.ok(
        res.body.validationErrors.some(
          (e: any) =>
            e.path === 'tasks[0].inputParameters.http_request.method' &&
            /Unknown HTTP method FETCH/.test(e.message),
        ),
        res.text,
      );
      const noParams = {
        ...httpWorkflow({}),
        tasks: [{ name: 'x', taskReferenceName: 'call', type: 'HTTP' }],
      };
      res = await call(app, 'POST', '/api/metadata/workflow', noParams);
      assert.equal(res.status, 400);
      const expressions = httpWorkflow({ uri: '${workflow.input.url}', method: '${workflow.input.method}' });
      res = await call(app, 'POST', '/api/metadata/workflow', expressions);
      assert.equal(res.status, 200, res.text);
      const whole = {
        ...httpWorkflow({}),
        tasks: [
          {
            name: 'y',
            taskReferenceName: 'call',
            type: 'HTTP',
            inputParameters: { http_request: '${workflow.input.req}' },
          },
        ],
      };
      res = await call(app, 'POST', '/api/metadata/workflow', whole);
      assert.equal(res.status, 200, res.text);
    });

    void it('a uri that is no URL is refused on a required task, and on an optional one fails only its run (as Conductor does)', async () => {
      const { app } = suite;
      const required = httpWorkflow({ uri: 'uncorrect_uri', method: 'GET' });
      const refused = await call(app, 'POST', '/api/metadata/workflow', required);
      assert.equal(refused.status, 400);
      assert.ok(
        refused.body.validationErrors.some(
          (e: any) =>
            e.path === 'tasks[0].inputParameters.http_request.uri' &&
            /Invalid HTTP URI: uncorrect_uri/.test(e.message),
        ),
        refused.text,
      );
      const id = await startHttp(
        app,
        { uri: 'uncorrect_uri', method: 'GET' },
        { optional: true },
        { retryCount: 0 },
      );
      const run = await runTo(app, id, ['COMPLETED', 'FAILED']);
      assert.equal(run.status, 'COMPLETED');
      assert.equal(run.tasks[0].status, 'COMPLETED_WITH_ERRORS');
      assert.match(String(run.tasks[0].reasonForIncompletion), /Invalid HTTP URI: uncorrect_uri/);
    });

    void it('a kind with no handler on this server is refused at registration', async () => {
      const { app } = suite;
      // CONNECTOR has no handler in this build unless one is registered.
      const def = {
        name: `connector_wf_${seq++}`,
        tasks: [
          {
            name: 'c',
            taskReferenceName: 'c',
            type: 'CONNECTOR',
            inputParameters: { connector: 'x', operation: 'y' },
          },
        ],
      };
      const res = await call(app, 'POST', '/api/metadata/workflow', def);
      if (res.status === 400 && /no executor handles it/.test(res.text)) {
        assert.equal(res.body.validationErrors[0].path, 'tasks[0].type');
      } else {
        // Registered by the tool handlers: then its own checks apply, and nothing here is refused blindly.
        assert.ok(res.status === 200 || res.status === 400, res.text);
      }
    });
  });

  void describe(`HTTP egress policy on ${storeCase.name}`, () => {
    const suite = appSuite(storeCase, {
      env: {
        BATON_HTTP_DENY: '169.254.0.0/16,fe80::/10,127.0.0.2/32,localhost',
        BATON_HTTP_MAX_RESPONSE_BYTES: '1000',
      },
    });
    let target: HttpTarget;
    before(async () => {
      target = await startHttpTarget((req, res) => {
        if (req.url === '/big') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('x'.repeat(5000));
          return;
        }
        if (req.url === '/to-localhost') {
          res.writeHead(302, { location: `http://localhost:${target.port}/json` });
          res.end();
          return;
        }
        json(res, 200, { ok: true });
      });
    });
    after(async () => target.close());

    void it('denies link-local (cloud metadata) by default, naming the rule, with no connection', async () => {
      const { app } = suite;
      const id = await startHttp(app, { uri: 'http://169.254.169.254/latest/meta-data/', method: 'GET' });
      const run = await runTo(app, id, ['FAILED', 'COMPLETED']);
      assert.equal(run.status, 'FAILED');
      assert.equal(run.tasks[0].status, 'FAILED_WITH_TERMINAL_ERROR');
      assert.equal(
        run.tasks[0].reasonForIncompletion,
        'Failed to invoke HTTP task due to: egress to 169.254.169.254 denied by BATON_HTTP_DENY rule 169.254.0.0/16',
      );
      assert.equal(run.tasks.length, 1, 'a denied destination is not retried');
    });

    void it('denies a CIDR and a host name checked after DNS and on redirects, before any connection', async () => {
      const { app } = suite;
      const before = target.connections();
      const deniedAddress = await startHttp(app, {
        uri: `http://127.0.0.2:${target.port}/json`,
        method: 'GET',
      });
      let run = await runTo(app, deniedAddress, ['FAILED', 'COMPLETED']);
      assert.match(run.tasks[0].reasonForIncompletion, /denied by BATON_HTTP_DENY rule 127\.0\.0\.2\/32$/);
      const deniedName = await startHttp(app, { uri: `http://localhost:${target.port}/json`, method: 'GET' });
      run = await runTo(app, deniedName, ['FAILED', 'COMPLETED']);
      assert.match(
        run.tasks[0].reasonForIncompletion,
        /egress to localhost denied by BATON_HTTP_DENY rule localhost$/,
      );
      assert.equal(target.connections() - before, 0, 'no connection was opened to a denied destination');

      const viaRedirect = await startHttp(app, { uri: `${target.url}/to-localhost`, method: 'GET' });
      run = await runTo(app, viaRedirect, ['FAILED', 'COMPLETED']);
      assert.equal(run.status, 'FAILED');
      assert.match(
        run.tasks[0].reasonForIncompletion,
        /egress to localhost denied by BATON_HTTP_DENY rule localhost$/,
      );
      assert.equal(
        target.requests.filter((r) => r.url === '/json').length,
        0,
        'the redirect target was never called',
      );
    });

    void it('caps the response body', async () => {
      const { app } = suite;
      const id = await startHttp(app, { uri: `${target.url}/big`, method: 'GET' }, { retryCount: 0 });
      const run = await runTo(app, id, ['FAILED', 'COMPLETED']);
      assert.equal(run.status, 'FAILED');
      assert.equal(
        run.tasks[0].reasonForIncompletion,
        'Failed to invoke HTTP task due to: response body larger than BATON_HTTP_MAX_RESPONSE_BYTES (1000 bytes)',
      );
    });
  });
}
