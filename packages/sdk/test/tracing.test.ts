import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';

import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createTestDatabase, enabledStores, type TestDatabase } from '@baton/server/test/postgres';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '@baton/server/test/otlp-receiver';

import { BatonClient } from '../src/client.js';
import { forkJoin, httpTask, simpleTask, taskDef, waitTask, workflow } from '../src/definitions.js';
import { WorkerPool } from '../src/worker-pool.js';
import { defineWorker } from '../src/worker.js';
import { startBaton, waitFor, type BatonProcess } from './helpers/baton.js';
import { waitForEnd } from './helpers/runs.js';

/**
 * One trace from the request that starts a run to every task attempt, the worker's handler and
 * the HTTP service a task calls: real Baton processes export to a test OTLP receiver, and so
 * does this process's worker (the application's own tracer provider).
 */

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** The worker process's tracing, as an application sets it up. */
function registerWorkerTracing(receiver: OtlpReceiver): TracerProvider {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'test-worker' }),
    spanProcessors: [
      new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` }) }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  return provider;
}

interface Service {
  url: string;
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** The service the HTTP task calls: records each request's headers. */
async function startService(): Promise<Service> {
  const headers: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    headers.push(req.headers);
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Each span of the trace as `parent name > name` (the caller's span is `caller`), sorted. */
function edges(spans: readonly ReceivedSpan[], callerSpanId: string): string[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  return spans
    .map(
      (s) =>
        `${s.parentSpanId === callerSpanId ? 'caller' : (byId.get(s.parentSpanId)?.name ?? `? ${s.parentSpanId}`)} > ${s.name}`,
    )
    .sort();
}

const EXPECTED_TREE = [
  'POST /api/workflow > run traced',
  'caller > POST /api/workflow',
  'run traced > task call',
  'run traced > task flaky',
  'run traced > task flaky',
  'run traced > task pause',
  'run traced > task split',
  'run traced > task split_join',
  'run traced > task work',
  'task call > HTTP call',
  'task flaky > worker trace_flaky',
  'task flaky > worker trace_flaky',
  'task work > worker trace_work',
].sort();

async function register(client: BatonClient, service: Service): Promise<void> {
  await client.registerTaskDefs([
    taskDef('trace_work', { retryCount: 0 }),
    taskDef('trace_flaky', { retryCount: 1, retryDelaySeconds: 0 }),
  ]);
  await client.putWorkflowDefs([
    workflow('traced', [
      ...forkJoin('split', [
        [simpleTask('work', 'trace_work')],
        [httpTask('call', { uri: `${service.url}/orders`, method: 'GET' })],
      ]),
      waitTask('pause', '1 second'),
      simpleTask('flaky', 'trace_flaky'),
    ]),
  ]);
}

function workers(client: BatonClient): WorkerPool {
  return new WorkerPool({
    client,
    workerId: 'trace-worker',
    workers: [
      defineWorker({ taskType: 'trace_work', handler: () => ({ done: true }) }),
      defineWorker({
        taskType: 'trace_flaky',
        handler: (_input, ctx) => {
          if (ctx.attempt === 1) throw new Error('first attempt fails');
          return { attempt: ctx.attempt };
        },
      }),
    ],
  }).start();
}

/** Starts the run with a caller's traceparent; answers the caller's trace and span ids. */
async function startTraced(
  url: string,
): Promise<{ workflowId: string; traceId: string; callerSpanId: string }> {
  const traceId = hex(16);
  const callerSpanId = hex(8);
  const response = await fetch(`${url}/api/workflow`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${callerSpanId}-01` },
    body: JSON.stringify({ name: 'traced', correlationId: 'order-17', input: {} }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  return { workflowId: await response.text(), traceId, callerSpanId };
}

/** The whole trace once every span is in, with its exact tree and the attributes that matter. */
async function assertTrace(
  receiver: OtlpReceiver,
  service: Service,
  started: { workflowId: string; traceId: string; callerSpanId: string },
): Promise<void> {
  const inTrace = () => receiver.spans.filter((s) => s.traceId === started.traceId);
  await receiver.waitFor(() => inTrace().length >= EXPECTED_TREE.length, 30_000);
  const spans = inTrace();
  assert.deepEqual(edges(spans, started.callerSpanId), EXPECTED_TREE);

  const one = (name: string) => {
    const found = spans.filter((s) => s.name === name);
    assert.equal(found.length, 1, name);
    return found[0]!;
  };
  const run = one('run traced');
  assert.equal(run.service, 'baton');
  assert.deepEqual(
    {
      id: run.attributes['baton.workflow.id'],
      name: run.attributes['baton.workflow.name'],
      version: run.attributes['baton.workflow.version'],
      status: run.attributes['baton.workflow.status'],
      correlation: run.attributes['baton.correlation_id'],
    },
    { id: started.workflowId, name: 'traced', version: 1, status: 'COMPLETED', correlation: 'order-17' },
  );
  // Every task attempt starts and ends inside the run.
  for (const span of spans.filter((s) => s.name.startsWith('task '))) {
    assert.ok(span.startMs >= run.startMs && span.endMs <= run.endMs, `${span.name} inside the run`);
    assert.equal(span.attributes['baton.workflow.id'], started.workflowId);
  }
  const work = one('task work');
  assert.deepEqual(
    work.events.map((e) => e.name),
    ['queued', 'handed out', 'result'],
  );
  assert.equal(work.attributes['baton.worker.id'], 'trace-worker');
  const attempts = spans
    .filter((s) => s.name === 'task flaky')
    .sort((a, b) => Number(a.attributes['baton.task.attempt']) - Number(b.attributes['baton.task.attempt']));
  assert.deepEqual(
    attempts.map((a) => [
      a.attributes['baton.task.attempt'],
      a.attributes['baton.task.status'],
      a.status.code,
    ]),
    [
      [1, 'FAILED', 2],
      [2, 'COMPLETED', 0],
    ],
  );
  assert.ok(attempts[0]!.events.some((e) => e.name === 'retry scheduled'));
  const wait = one('task pause');
  assert.ok(wait.endMs - wait.startMs >= 900, 'the WAIT span lasts its second');
  const workerSpans = spans.filter((s) => s.name.startsWith('worker '));
  assert.ok(workerSpans.every((s) => s.service === 'test-worker' && s.kind === 5)); // CONSUMER
  // The called service got the client span's traceparent: it joins the trace under the call.
  const call = one('HTTP call');
  assert.equal(call.kind, 3); // CLIENT
  const seen = service.headers.map((h) => h.traceparent);
  assert.deepEqual(seen, [`00-${started.traceId}-${call.spanId}-01`]);
}

describe('tracing: one trace from the start request to every task, worker and call (SQLite)', () => {
  let receiver: OtlpReceiver;
  let service: Service;
  let node: BatonProcess;
  let provider: TracerProvider;

  before(async () => {
    receiver = await startOtlpReceiver();
    service = await startService();
    provider = registerWorkerTracing(receiver);
    node = await startBaton({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        BATON_TRACE_SLOW_TX_MS: '600000',
        BATON_TIMER_IDLE_MS: '100',
      },
    });
  });
  after(async () => {
    await node?.stop();
    await provider?.shutdown();
    trace.disable();
    context.disable();
    await service?.close();
    await receiver?.close();
  });

  it(
    'a run with a fork, a retry, a WAIT, an HTTP call and a worker is one trace, asserted exactly',
    { timeout: 90_000 },
    async () => {
      const client = new BatonClient({ baseUrl: node.url });
      await register(client, service);
      const pool = workers(client);
      try {
        const started = await startTraced(node.url);
        const done = await waitForEnd(client, started.workflowId);
        assert.equal(done.status, 'COMPLETED');
        assert.equal(done.trace?.traceId, started.traceId);
        for (const task of done.tasks) {
          assert.match(task.traceparent ?? '', new RegExp(`^00-${started.traceId}-[0-9a-f]{16}-01$`));
        }
        await assertTrace(receiver, service, started);
      } finally {
        await pool.stop({ graceMs: 500 });
      }
    },
  );
});

if (enabledStores().includes('postgres'))
  describe('tracing across a node restart (PostgreSQL, two nodes)', () => {
    let receiver: OtlpReceiver;
    let service: Service;
    let db: TestDatabase;
    let nodes: BatonProcess[] = [];
    let provider: TracerProvider;
    const env = (url: string) => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      BATON_TRACE_SLOW_TX_MS: '600000',
      BATON_TIMER_IDLE_MS: '100',
    });

    before(async () => {
      receiver = await startOtlpReceiver();
      service = await startService();
      provider = registerWorkerTracing(receiver);
      db = await createTestDatabase('baton_tracing');
      nodes = await Promise.all(
        ['node-a', 'node-b'].map((name) => startBaton({ name, databaseUrl: db.url, env: env(receiver.url) })),
      );
    });
    after(async () => {
      await Promise.all(nodes.map((n) => n.stop()));
      await provider?.shutdown();
      trace.disable();
      context.disable();
      await service?.close();
      await receiver?.close();
      await db?.drop();
    });

    it(
      'the node that started the run stops mid-run and comes back: the trace is the same, whole',
      { timeout: 120_000 },
      async () => {
        const [a, b] = nodes as [BatonProcess, BatonProcess];
        const clientA = new BatonClient({ baseUrl: a.url });
        const clientB = new BatonClient({ baseUrl: b.url });
        await register(clientA, service);
        const started = await startTraced(a.url);
        // Node A goes away with the run open (nothing handed out yet); B carries it on.
        await a.stop();
        const pool = workers(clientB);
        try {
          await waitFor(
            async () => {
              const run = await clientB.getWorkflow(started.workflowId);
              return run.tasks.some((t) => t.referenceTaskName === 'pause') ? true : undefined;
            },
            { timeoutMs: 60_000, intervalMs: 50, what: 'the run to reach its WAIT' },
          );
          // A comes back on the same database while the run waits; either node may end it.
          nodes[0] = await startBaton({
            name: 'node-a',
            databaseUrl: db.url,
            port: a.port,
            env: env(receiver.url),
          });
          const done = await waitForEnd(clientB, started.workflowId);
          assert.equal(done.status, 'COMPLETED');
        } finally {
          await pool.stop({ graceMs: 500 });
        }
        await Promise.all(nodes.map((n) => n.stop()));
        await assertTrace(receiver, service, started);
      },
    );
  });
