import { type Context, ROOT_CONTEXT, type SpanContext, trace } from '@opentelemetry/api';

/** The instrumentation scope of every span Baton makes. */
export const SCOPE = { name: '@baton/server', version: '0.1.0' } as const;

/** The context a span starts in: under `parent`, or a new trace's root. */
export function parentContext(parent: SpanContext | undefined): Context {
  return parent === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, parent);
}
