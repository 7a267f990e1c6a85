import type { RawEnv } from './env.js';

/** The sampler names of the OpenTelemetry specification (`OTEL_TRACES_SAMPLER`). */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TraceSamplerName = (typeof TRACE_SAMPLERS)[number];

/** Tracing (OpenTelemetry over OTLP/HTTP protobuf); `endpoint` undefined = off. */
export interface TracingOptions {
  /** The full traces URL (…/v1/traces); undefined: tracing is off and costs nothing. */
  readonly endpoint: string | undefined;
  /** Headers for the receiver (OTEL_EXPORTER_OTLP_HEADERS); secret. */
  readonly headers: Readonly<Record<string, string>>;
  readonly serviceName: string;
  readonly sampler: TraceSamplerName;
  /** Ratio of the *traceidratio samplers, 0..1. */
  readonly samplerRatio: number;
  /** Store transactions at least this long become spans. */
  readonly slowTxMs: number;
  /** A trace viewer URL with `{traceId}`, for the UI's link. */
  readonly urlTemplate: string | undefined;
}

/** The problem of a tracing setting, thrown by `compileOptions` as a ConfigError. */
export class TracingOptionError extends Error {}

function url(text: string, name: string): string {
  if (!/^https?:\/\/[^\s]+$/.test(text))
    throw new TracingOptionError(`${name} must be an http:// or https:// URL`);
  return text;
}

/** The receiver's headers: `key=value` pairs separated by commas, values percent-decoded. */
function headerList(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (text === undefined) return out;
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const eq = pair.indexOf('=');
    const key = eq > 0 ? pair.slice(0, eq).trim() : '';
    if (key === '' || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(key)) {
      throw new TracingOptionError('OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas');
    }
    out[key.toLowerCase()] = decodeURIComponent(pair.slice(eq + 1).trim());
  }
  return out;
}

export function compileTracingOptions(raw: RawEnv): TracingOptions {
  const exporter = raw.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter !== undefined && exporter !== 'otlp' && exporter !== 'none') {
    throw new TracingOptionError(`OTEL_TRACES_EXPORTER must be otlp or none, got '${exporter}'`);
  }
  const base = raw.OTEL_EXPORTER_OTLP_ENDPOINT;
  const traces = raw.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  let endpoint: string | undefined;
  if (traces !== undefined) endpoint = url(traces, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  else if (base !== undefined)
    endpoint = `${url(base, 'OTEL_EXPORTER_OTLP_ENDPOINT').replace(/\/+$/, '')}/v1/traces`;
  else if (exporter === 'otlp') endpoint = 'http://localhost:4318/v1/traces';
  if (exporter === 'none') endpoint = undefined;
  const samplerText = (raw.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on').trim().toLowerCase();
  const sampler = TRACE_SAMPLERS.find((s) => s === samplerText);
  if (sampler === undefined) {
    throw new TracingOptionError(
      `OTEL_TRACES_SAMPLER must be one of ${TRACE_SAMPLERS.join(', ')}, got '${samplerText}'`,
    );
  }
  const ratioText = raw.OTEL_TRACES_SAMPLER_ARG ?? '1';
  const samplerRatio = Number(ratioText);
  if (!Number.isFinite(samplerRatio) || samplerRatio < 0 || samplerRatio > 1) {
    throw new TracingOptionError(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got '${ratioText}'`);
  }
  const slowText = raw.BATON_TRACE_SLOW_TX_MS ?? '50';
  const slowTxMs = Number(slowText);
  if (!Number.isInteger(slowTxMs) || slowTxMs < 0 || slowTxMs > 3_600_000) {
    throw new TracingOptionError(
      `BATON_TRACE_SLOW_TX_MS must be an integer from 0 to 3600000, got '${slowText}'`,
    );
  }
  const urlTemplate = raw.BATON_TRACE_URL_TEMPLATE;
  if (urlTemplate !== undefined && !urlTemplate.includes('{traceId}')) {
    throw new TracingOptionError('BATON_TRACE_URL_TEMPLATE must contain {traceId}');
  }
  return Object.freeze({
    endpoint,
    headers: Object.freeze(headerList(raw.OTEL_EXPORTER_OTLP_HEADERS)),
    serviceName: raw.OTEL_SERVICE_NAME?.trim() || 'baton',
    sampler,
    samplerRatio,
    slowTxMs,
    urlTemplate,
  });
}
