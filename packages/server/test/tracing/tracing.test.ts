import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { pino } from 'pino';

import { compileOptions, ConfigError } from '../../src/config/options.js';
import { createTracing } from '../../src/tracing/tracing.js';
import { traceLogFields } from '../../src/tracing/log-fields.js';
import { call, testApp, type TestApp } from '../helpers/app.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { pollOneTask, postResult, runOf, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

/**
 * Tracing in one process, on each store: a run's trace under the caller's, a child run under its
 * parent's task, pauses, slow transactions, an event handler's span, sampling kept by the run;
 * and off by default, at no cost.
 */

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

async function register(t: TestApp, defs: Array<Record<string, unknown>>): Promise<void> {
  const res = await call(t.app, 'PUT', '/api/metadata/workflow', defs);
  assert.equal(res.status, 200, res.text);
}

async function waitForStatus(t: TestApp, id: string, status: string): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const run = await runOf(t.app, id);
    if (run.status === status) return run;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`run ${id} did not reach ${status}`);
}

/** `parent > child` for every span of a trace (`caller` for the caller's span), sorted. */
function edges(spans: readonly ReceivedSpan[], callerSpanId: string): string[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  return spans
    .map(
      (s) =>
        `${s.parentSpanId === callerSpanId ? 'caller' : (byId.get(s.parentSpanId)?.name ?? `? ${s.parentSpanId}`)} > ${s.name}`,
    )
    .sort();
}

describe('tracing settings', () => {
  it('is off unless an OTLP endpoint is configured, and off makes no exporter and no span', async () => {
    const off = compileOptions({});
    assert.equal(off.tracing.endpoint, undefined);
    const tracing = await createTracing(off.tracing);
    assert.equal(tracing.enabled, false);
    assert.equal(tracing.current(), undefined);
    assert.deepEqual(traceLogFields(tracing), {});
    assert.equal(
      compileOptions({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing
        .endpoint,
      undefined,
    );
  });

  it('log lines written inside a span carry its trace_id and span_id', async () => {
    const exported: ReadableSpan[] = [];
    const exporter: SpanExporter = {
      export: (spans, done) => {
        exported.push(...spans);
        done({ code: 0 });
      },
      shutdown: () => Promise.resolve(),
    };
    const tracing = await createTracing(compileOptions({}).tracing, exporter);
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino(
      { mixin: () => traceLogFields(tracing) },
      { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const span = tracing.startSpan('work', SpanKind.INTERNAL);
    tracing.within(span, () => logger.info({ workflowId: 'w-1', taskId: 't-1' }, 'inside'));
    span.end();
    logger.info('outside');
    await tracing.shutdown();
    const context = span.spanContext();
    assert.deepEqual(
      lines.map((l) => [l.msg, l.trace_id, l.span_id, l.workflowId]),
      [
        ['inside', context.traceId, context.spanId, 'w-1'],
        ['outside', undefined, undefined, undefined],
      ],
    );
    assert.deepEqual(
      exported.map((s) => s.name),
      ['work'],
    );
  });

  it('follows the OpenTelemetry variables', () => {
    assert.equal(
      compileOptions({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }).tracing.endpoint,
      'http://c:4318/v1/traces',
    );
    assert.equal(
      compileOptions({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing.endpoint,
      'http://localhost:4318/v1/traces',
    );
    const full = compileOptions({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:4318/traces',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%3D,tenant=blue',
      OTEL_SERVICE_NAME: 'orders-engine',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    }).tracing;
    assert.equal(full.endpoint, 'http://t:4318/traces');
    assert.deepEqual(full.headers, { 'x-api-key': 'abc=', tenant: 'blue' });
    assert.equal(full.serviceName, 'orders-engine');
    assert.equal(full.sampler, 'parentbased_traceidratio');
    assert.equal(full.samplerRatio, 0.25);
  });

  it('refuses bad values, naming the setting', () => {
    const refused = (env: Record<string, string>, pattern: RegExp) =>
      assert.throws(
        () => compileOptions(env),
        (err: Error) => err instanceof ConfigError && pattern.test(err.message),
      );
    refused({ OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER must be one of/);
    refused({ OTEL_TRACES_SAMPLER_ARG: '2' }, /OTEL_TRACES_SAMPLER_ARG/);
    refused({ OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER must be otlp or none/);
    refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'c:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http/);
    refused({ OTEL_EXPORTER_OTLP_HEADERS: 'novalue' }, /OTEL_EXPORTER_OTLP_HEADERS/);
    refused({ BATON_TRACE_SLOW_TX_MS: '-1' }, /BATON_TRACE_SLOW_TX_MS/);
    refused({ BATON_TRACE_URL_TEMPLATE: 'http://jaeger/trace/' }, /must contain \{traceId\}/);
  });
});

for (const store of storeCases()) {
  describe(`tracing (${store.name})`, () => {
    let receiver: OtlpReceiver;
    before(async () => {
      receiver = await startOtlpReceiver();
    });
    after(async () => {
      await receiver.close();
    });

    async function tracedApp(
      env: Record<string, string> = {},
    ): Promise<{ t: TestApp; cleanup: () => Promise<void> }> {
      const opened = await store.open();
      const t = await testApp(opened.store, {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, BATON_EVENT_REFRESH_MS: '50', ...env },
      });
      let closed = false;
      return {
        t,
        cleanup: async () => {
          if (!closed) await t.close();
          closed = true;
          await opened.cleanup();
        },
      };
    }

    it('tracing off: runs and tasks carry no trace context and nothing is exported', async () => {
      const opened = await store.open();
      const t = await testApp(opened.store);
      try {
        await register(t, [
          { name: 'untraced', tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }] },
        ]);
        const before = receiver.requests;
        const id = await startRun(t.app, 'untraced');
        const run = await waitForStatus(t, id, 'COMPLETED');
        assert.equal(run.trace, undefined);
        assert.ok(run.tasks.every((task: { traceparent?: string }) => task.traceparent === undefined));
        await t.close();
        assert.equal(receiver.requests, before);
      } finally {
        await opened.cleanup();
      }
    });

    it('a run under the caller, the runs its tasks start under those tasks, pauses, slow transactions', async () => {
      const { t, cleanup } = await tracedApp({ BATON_TRACE_SLOW_TX_MS: '0' });
      try {
        await register(t, [
          { name: 'leaf', tasks: [{ name: 'x', taskReferenceName: 'x', type: 'NOOP' }] },
          {
            name: 'parent',
            tasks: [
              { name: 'prep', taskReferenceName: 'prep', type: 'NOOP' },
              {
                name: 'kid',
                taskReferenceName: 'kid',
                type: 'SUB_WORKFLOW',
                subWorkflowParam: { name: 'leaf' },
              },
              {
                name: 'spawn',
                taskReferenceName: 'spawn',
                type: 'START_WORKFLOW',
                inputParameters: { startWorkflow: { name: 'leaf', input: {} } },
              },
              { name: 'hold', taskReferenceName: 'hold', type: 'WAIT' },
            ],
          },
        ]);
        const traceId = hex(16);
        const callerSpanId = hex(8);
        const res = await call(
          t.app,
          'POST',
          '/api/workflow/parent',
          { correlationId: 'c-1' },
          {
            traceparent: `00-${traceId}-${callerSpanId}-01`,
          },
        );
        assert.equal(res.status, 200, res.text);
        const id = res.text;
        const running = await waitForStatus(t, id, 'RUNNING');
        assert.equal(running.trace.traceId, traceId);
        assert.equal(running.trace.sampled, true);
        assert.ok(
          running.tasks.every((task: { traceparent?: string }) =>
            task.traceparent?.startsWith(`00-${traceId}-`),
          ),
        );
        assert.equal((await call(t.app, 'PUT', `/api/workflow/${id}/pause`)).status, 200);
        assert.equal((await call(t.app, 'PUT', `/api/workflow/${id}/resume`)).status, 200);
        let hold: { taskId: string } | undefined;
        for (let i = 0; i < 400 && hold === undefined; i++) {
          hold = (await runOf(t.app, id)).tasks.find(
            (x: { referenceTaskName: string }) => x.referenceTaskName === 'hold',
          );
          if (hold === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
        }
        assert.ok(hold);
        const done = await call(t.app, 'POST', `/api/tasks/${id}/COMPLETED/signal`, { by: 'test' });
        assert.equal(done.status, 200, done.text);
        await waitForStatus(t, id, 'COMPLETED');
        await t.close(); // flushes the spans
        await receiver.waitFor((spans) =>
          spans.some((s) => s.traceId === traceId && s.name === 'run parent'),
        );
        const spans = receiver.spans.filter((s) => s.traceId === traceId);
        const slow = spans.filter((s) => s.name.startsWith('store '));
        assert.ok(slow.length > 0, 'transactions past the threshold are spans');
        const server = spans.find((s) => s.name === 'POST /api/workflow/:name');
        assert.ok(server);
        assert.equal(server.attributes['http.response.status_code'], 200);
        assert.ok(slow.every((s) => s.parentSpanId === server.spanId));
        assert.deepEqual(
          edges(
            spans.filter((s) => !s.name.startsWith('store ')),
            callerSpanId,
          ),
          [
            'POST /api/workflow/:name > run parent',
            'caller > POST /api/workflow/:name',
            'run leaf > task x',
            'run leaf > task x',
            'run parent > run paused',
            'run parent > run resumed',
            'run parent > run signalled',
            'run parent > task hold',
            'run parent > task kid',
            'run parent > task prep',
            'run parent > task spawn',
            'task kid > run leaf',
            'task spawn > run leaf',
          ],
        );
        const run = spans.find((s) => s.name === 'run parent');
        assert.equal(run?.attributes['baton.correlation_id'], 'c-1');
      } finally {
        await cleanup();
      }
    });

    it("an event handler's execution is a span, and the run it starts is its child", async () => {
      const { t, cleanup } = await tracedApp();
      try {
        const channel = `baton:trace-${hex(4)}`;
        await register(t, [
          {
            name: 'emitter',
            tasks: [{ name: 'send', taskReferenceName: 'send', type: 'EVENT', sink: channel }],
          },
          { name: 'reacted', tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }] },
        ]);
        const handler = await call(t.app, 'POST', '/api/event', {
          name: `h-${hex(4)}`,
          event: channel,
          active: true,
          actions: [{ action: 'start_workflow', start_workflow: { name: 'reacted', input: {} } }],
        });
        assert.equal(handler.status, 200, handler.text);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await startRun(t.app, 'emitter');
        await receiver
          .waitFor((spans) => spans.some((s) => s.name === 'run reacted'), 30_000)
          .catch(async () => {
            await t.close();
            await receiver.waitFor((spans) => spans.some((s) => s.name === 'run reacted'));
          });
        const run = receiver.spans.find((s) => s.name === 'run reacted');
        const event = receiver.spans.find((s) => s.name === `event ${channel}`);
        assert.ok(run && event);
        assert.equal(run.parentSpanId, event.spanId);
        assert.equal(run.traceId, event.traceId);
      } finally {
        await cleanup();
      }
    });

    it('a retry makes a run with its own trace, and the attempts it copies belong to it', async () => {
      const { t, cleanup } = await tracedApp();
      try {
        const type = `trace_fail_${hex(3)}`;
        const defs = await call(t.app, 'POST', '/api/metadata/taskdefs', [{ name: type, retryCount: 0 }]);
        assert.equal(defs.status, 200, defs.text);
        await register(t, [
          {
            name: 'retried',
            tasks: [
              { name: 'ok', taskReferenceName: 'ok', type: 'NOOP' },
              { name: type, taskReferenceName: 'w', type: 'SIMPLE' },
            ],
          },
        ]);
        const id = await startRun(t.app, 'retried');
        const task = await pollOneTask(t.app, type);
        await postResult(t.app, task, 'FAILED');
        const failed = await waitForStatus(t, id, 'FAILED');
        const retried = await call(t.app, 'POST', `/api/workflow/${id}/retry`);
        assert.equal(retried.status, 200, retried.text);
        const successor = await runOf(t.app, retried.text);
        assert.ok(successor.trace);
        assert.notEqual(successor.trace.spanId, failed.trace.spanId);
        for (const copied of successor.tasks) {
          assert.match(copied.traceparent, new RegExp(`^00-${successor.trace.traceId}-`));
          assert.notEqual(
            copied.traceparent,
            failed.tasks.find(
              (f: { referenceTaskName: string }) => f.referenceTaskName === copied.referenceTaskName,
            )?.traceparent,
          );
        }
      } finally {
        await cleanup();
      }
    });

    it("the session answer gives the UI the trace viewer's URL template", async () => {
      const { t, cleanup } = await tracedApp({
        BATON_TRACE_URL_TEMPLATE: 'http://jaeger:16686/trace/{traceId}',
      });
      try {
        const session = await call(t.app, 'GET', '/api/auth/session');
        assert.equal(session.body.traceUrlTemplate, 'http://jaeger:16686/trace/{traceId}');
      } finally {
        await cleanup();
      }
    });

    it('a run keeps the sampling decision of its start: not sampled, no span of it or its tasks', async () => {
      const { t, cleanup } = await tracedApp({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' });
      try {
        await register(t, [
          { name: 'unsampled', tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }] },
        ]);
        const traceId = hex(16);
        const res = await call(
          t.app,
          'POST',
          '/api/workflow/unsampled',
          {},
          { traceparent: `00-${traceId}-${hex(8)}-00` },
        );
        const run = await waitForStatus(t, res.text, 'COMPLETED');
        assert.deepEqual([run.trace.traceId, run.trace.sampled], [traceId, false]);
        assert.match(run.tasks[0].traceparent, new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`));
        await t.close();
        assert.equal(receiver.spans.filter((s) => s.traceId === traceId).length, 0);
      } finally {
        await cleanup();
      }
    });
  });
}
