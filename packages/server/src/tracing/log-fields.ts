import type { Tracing } from './tracing.js';

/** `trace_id` and `span_id` of the span active where a log line is written (pino's mixin). */
export function traceLogFields(tracing: Tracing): Record<string, string> {
  const active = tracing.current();
  return active === undefined ? {} : { trace_id: active.traceId, span_id: active.spanId };
}
