import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { TaskRecord } from '@baton/protocol';

import { outgoingTrace } from './outgoing-trace.js';
import { formatTraceparent, parseTraceparent } from './trace-ids.js';
import type { Tracing } from './tracing.js';

/** What a call answered, as far as its span cares. */
interface Outcome {
  readonly status: string;
  readonly reason?: string;
}

/**
 * A system call (HTTP, CALL_TOOL, CONNECTOR, DOCUMENT_INTELLIGENCE, LLM) as a client span under
 * its task attempt's span; the requests it sends carry the span's `traceparent`.
 */
export async function tracedCall<T extends Outcome>(
  tracing: Tracing,
  kind: string,
  task: TaskRecord,
  call: () => Promise<T>,
): Promise<T> {
  if (!tracing.enabled) return call();
  const parent = parseTraceparent(task.traceparent);
  if (parent === undefined || !parent.sampled) return call();
  const span = tracing.startSpan(
    `${kind} ${task.referenceTaskName}`,
    SpanKind.CLIENT,
    {
      'baton.workflow.id': task.workflowInstanceId,
      'baton.task.id': task.taskId,
      'baton.task.type': kind,
      'baton.task.attempt': task.retryCount + 1,
    },
    { traceId: parent.traceId, spanId: parent.spanId, traceFlags: 1, isRemote: true },
  );
  const context = span.spanContext();
  const header = formatTraceparent(context.traceId, context.spanId, true);
  try {
    const outcome = await outgoingTrace.run(header, () => tracing.within(span, call));
    span.setAttribute('baton.call.status', outcome.status);
    if (outcome.status !== 'COMPLETED' && outcome.status !== 'IN_PROGRESS') {
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.reason ?? outcome.status });
    }
    return outcome;
  } catch (error) {
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
    throw error;
  } finally {
    span.end();
  }
}
