import { trace } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace';

import type { TracingOptions } from '../config/tracing-options.js';
import type { Tracing } from './tracing-contract.js';

export type { Tracing } from './tracing-contract.js';

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
