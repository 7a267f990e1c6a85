import type * as OtelApi from '@opentelemetry/api';
import type { TaskRecord } from '@baton/protocol';

/**
 * The worker's side of Baton's tracing. A task handed out while tracing is on carries its
 * attempt's `traceparent`; the handler runs inside a span that continues it, so the spans the
 * handler makes nest under the task attempt in the run's trace.
 *
 * `@opentelemetry/api` is an optional peer: without it, or without a tracer provider registered
 * by the application, this does nothing (the API's no-op tracer).
 */

type Api = typeof OtelApi;

let loading: Promise<Api | undefined> | undefined;

function api(): Promise<Api | undefined> {
  loading ??= import('@opentelemetry/api').then(
    (m) => m,
    () => undefined,
  );
  return loading;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Runs `handler` inside a consumer span under the task's trace context, when there is one. */
export async function withTaskSpan<T>(
  task: TaskRecord,
  workerId: string,
  handler: () => Promise<T>,
): Promise<T> {
  const match = task.traceparent === undefined ? null : TRACEPARENT.exec(task.traceparent);
  if (!match) return handler();
  const otel = await api();
  if (otel === undefined) return handler();
  const [, traceId = '', spanId = '', flags = '00'] = match;
  const parent = otel.trace.setSpanContext(otel.ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: parseInt(flags, 16),
    isRemote: true,
  });
  const tracer = otel.trace.getTracer('@baton/sdk');
  const span = tracer.startSpan(
    `worker ${task.taskDefName || task.taskType}`,
    {
      kind: otel.SpanKind.CONSUMER,
      attributes: {
        'baton.workflow.id': task.workflowInstanceId,
        'baton.task.id': task.taskId,
        'baton.task.type': task.taskType,
        'baton.task.attempt': task.retryCount + 1,
        'baton.worker.id': workerId,
      },
    },
    parent,
  );
  try {
    return await otel.context.with(otel.trace.setSpan(parent, span), handler);
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({
      code: otel.SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
    throw error;
  } finally {
    span.end();
  }
}
