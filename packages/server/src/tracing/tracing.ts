import { type Attributes, type Span, type SpanKind, type SpanContext, trace } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { RunTrace } from '@baton/protocol';

import type { TracingOptions } from '../config/tracing-options.js';

/**
 * Baton's tracing: live spans (HTTP requests, calls, slow transactions, event handlers,
 * schedules) through the SDK's tracer, and durable spans (runs, task attempts) built at their end
 * from what the store kept (`durable-spans.ts`). When off, `enabled` is false and every caller
 * checks it first: no span, no context, no id is made.
 *
 * The active span is kept in this instance's own AsyncLocalStorage, not the OpenTelemetry global
 * context: an embedded server leaves the application's global tracer and context alone.
 */
export interface Tracing {
  readonly enabled: boolean;
  readonly resource: Resource | undefined;
  /** The span context active here (a request's server span, an event handler's span). */
  current(): SpanContext | undefined;
  /** Runs `fn` with `span` active. */
  within<T>(span: Span | undefined, fn: () => T): T;
  /** Starts a live span under `parent` (default: the active one). */
  startSpan(
    name: string,
    kind: SpanKind,
    attributes?: Attributes,
    parent?: SpanContext | null,
    startTime?: number,
  ): Span;
  /** A new run's trace: a child of `parent` (or the active span), with its sampling decided now. */
  newRunTrace(name: string, parent?: SpanContext): RunTrace;
  /** Sends durable spans built by hand; a span already sent by this node (a retried transaction) is not sent twice. */
  emit(span: ReadableSpan): void;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

const OFF: Tracing = {
  enabled: false,
  resource: undefined,
  current: () => undefined,
  within: (_span, fn) => fn(),
  startSpan: () => trace.wrapSpanContext({ traceId: '', spanId: '', traceFlags: 0 }),
  newRunTrace: () => {
    throw new Error('tracing is off');
  },
  emit: () => {},
  flush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

/**
 * Tracing as configured: off (no exporter, no spans) unless an OTLP endpoint is set. The
 * OpenTelemetry SDK and its exporter are loaded only then: a node that does not trace does not
 * carry them (about 25 MB).
 */
export async function createTracing(options: TracingOptions, exporter?: SpanExporter): Promise<Tracing> {
  if (options.endpoint === undefined && exporter === undefined) return OFF;
  const { openOtelTracing } = await import('./otel-tracing.js');
  return openOtelTracing(options, exporter);
}

export const TRACING_OFF = OFF;
