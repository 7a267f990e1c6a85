import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  type SpanKind,
  trace,
} from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { RunTrace } from '@baton/protocol';

/** The instrumentation scope of every span Baton makes. */
export const SCOPE = { name: '@baton/server', version: '0.1.0' } as const;

/** The context a span starts in: under `parent`, or a new trace's root. */
export function parentContext(parent: SpanContext | undefined): Context {
  return parent === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, parent);
}

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
