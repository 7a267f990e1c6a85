import { type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';

import { parseTraceparent } from './trace-ids.js';
import type { Tracing } from './tracing.js';

/**
 * A server span per HTTP request (method, route, status), a child of the caller's `traceparent`.
 * The handler runs with it active, so a run the request starts is its child, and so are the
 * store transactions slow enough to be spans.
 */
export function installHttpTracing(app: FastifyInstance, tracing: Tracing): void {
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url ?? 'unknown route';
    const parent = parseTraceparent(firstHeader(request.headers.traceparent));
    const span = tracing.startSpan(
      `${request.method} ${route}`,
      SpanKind.SERVER,
      {
        'http.request.method': request.method,
        'http.route': route,
        'url.path': request.url.split('?')[0] ?? '',
      },
      parent === undefined
        ? null
        : {
            traceId: parent.traceId,
            spanId: parent.spanId,
            traceFlags: parent.sampled ? 1 : 0,
            isRemote: true,
          },
    );
    spans.set(request, span);
    done();
  });
  // The handler runs inside preHandler's continuation: it sees the span as the active one.
  app.addHook('preHandler', (request, _reply, done) => {
    tracing.within(spans.get(request), done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = spans.get(request);
    if (span !== undefined) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      spans.delete(request);
    }
    done();
  });
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
