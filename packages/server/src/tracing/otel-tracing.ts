import { AsyncLocalStorage } from 'node:async_hooks';

import {
  type Attributes,
  type Span,
  SpanKind,
  type SpanContext,
  TraceFlags,
  type Tracer,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  SamplingDecision,
  type SpanExporter,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { RunTrace } from '@baton/protocol';

import type { TracingOptions } from '../config/tracing-options.js';
import { newSpanId, newTraceId } from './trace-ids.js';
import { parentContext, SCOPE, type Tracing } from './tracing-contract.js';

const SHUTDOWN_WAIT_MS = 2000;

function samplerOf(options: TracingOptions): Sampler {
  const ratio = new TraceIdRatioBasedSampler(options.samplerRatio);
  switch (options.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** Remembers the last span ids sent, so a transaction retried after a conflict sends its spans once. */
class RecentIds {
  private readonly seen = new Set<string>();
  constructor(private readonly max: number) {}
  add(id: string): boolean {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    if (this.seen.size > this.max) {
      const first = this.seen.values().next();
      if (!first.done) this.seen.delete(first.value);
    }
    return true;
  }
}

/** Tracing through the OpenTelemetry SDK: a tracer for live spans, a batch processor to the exporter. */
class OtelTracing implements Tracing {
  readonly enabled = true;
  readonly resource: Resource;
  private readonly provider: TracerProvider;
  private readonly processor: SpanProcessor;
  private readonly tracer: Tracer;
  private readonly sampler: Sampler;
  private readonly active = new AsyncLocalStorage<SpanContext>();
  private readonly sent = new RecentIds(20_000);

  constructor(options: TracingOptions, exporter: SpanExporter) {
    this.resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName });
    this.sampler = samplerOf(options);
    this.processor = new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1000 });
    this.provider = new TracerProvider({
      resource: this.resource,
      sampler: this.sampler,
      spanProcessors: [this.processor],
    });
    this.tracer = this.provider.getTracer(SCOPE.name, SCOPE.version);
  }

  current(): SpanContext | undefined {
    return this.active.getStore();
  }

  within<T>(span: Span | undefined, fn: () => T): T {
    return span === undefined ? fn() : this.active.run(span.spanContext(), fn);
  }

  startSpan(
    name: string,
    kind: SpanKind,
    attributes?: Attributes,
    parent?: SpanContext | null,
    startTime?: number,
  ): Span {
    const ctx = parentContext(parent === null ? undefined : (parent ?? this.current()));
    return this.tracer.startSpan(
      name,
      { kind, ...(attributes && { attributes }), ...(startTime !== undefined && { startTime }) },
      ctx,
    );
  }

  newRunTrace(name: string, parent?: SpanContext): RunTrace {
    const from = parent ?? this.current();
    const traceId = from?.traceId ?? newTraceId();
    const decision = this.sampler.shouldSample(parentContext(from), traceId, name, SpanKind.INTERNAL, {}, []);
    return {
      traceId,
      spanId: newSpanId(),
      ...(from !== undefined && { parentSpanId: from.spanId }),
      sampled: decision.decision === SamplingDecision.RECORD_AND_SAMPLED,
    };
  }

  emit(span: ReadableSpan): void {
    const context = span.spanContext();
    if ((context.traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (!this.sent.add(`${context.traceId}/${context.spanId}`)) return;
    this.processor.onEnd(span);
  }

  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  /** Sends what is pending; a receiver that does not answer holds a stopping node at most 2 s. */
  async shutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.provider.shutdown().catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }
}

/** Tracing to `exporter`, or to the OTLP endpoint the settings name. */
export function openOtelTracing(options: TracingOptions, exporter?: SpanExporter): Tracing {
  return new OtelTracing(
    options,
    exporter ??
      new OTLPTraceExporter({
        headers: { ...options.headers },
        ...(options.endpoint !== undefined && { url: options.endpoint }),
      }),
  );
}
