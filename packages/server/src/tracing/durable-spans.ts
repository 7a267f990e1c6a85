import {
  type Attributes,
  type HrTime,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type SpanStatus,
  TraceFlags,
} from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';
import type { RunRecord, RunTrace, TaskRecord } from '@baton/protocol';

import { SCOPE } from './tracing-contract.js';
import { taskSpanId } from './trace-ids.js';
import { copyWith } from '../copy-with.js';

/**
 * Runs and task attempts last longer than a process, so their spans are never held open: each is
 * built when it ends, from the times the store kept, under ids every node derives the same way
 * (the run's from its record, an attempt's from its task id).
 */

export function hrTime(ms: number): HrTime {
  const whole = Math.floor(ms);
  return [Math.floor(whole / 1000), (whole % 1000) * 1_000_000];
}

function flags(sampled: boolean): number {
  return sampled ? TraceFlags.SAMPLED : TraceFlags.NONE;
}

export function runSpanContext(trace: RunTrace): SpanContext {
  return { traceId: trace.traceId, spanId: trace.spanId, traceFlags: flags(trace.sampled), isRemote: true };
}

export function taskSpanContext(trace: RunTrace, taskId: string): SpanContext {
  return {
    traceId: trace.traceId,
    spanId: taskSpanId(taskId),
    traceFlags: flags(trace.sampled),
    isRemote: true,
  };
}

interface SpanParts {
  name: string;
  kind?: SpanKind;
  context: SpanContext;
  parent: SpanContext | undefined;
  start: number;
  end: number;
  status: SpanStatus;
  attributes: Attributes;
  events?: TimedEvent[];
}

export function readableSpan(parts: SpanParts, resource: Resource): ReadableSpan {
  const end = Math.max(parts.end, parts.start);
  const duration = end - parts.start;
  const context = copyWith(parts.context, { isRemote: false });
  return {
    name: parts.name,
    kind: parts.kind ?? SpanKind.INTERNAL,
    spanContext: () => context,
    ...(parts.parent !== undefined && { parentSpanContext: parts.parent }),
    startTime: hrTime(parts.start),
    endTime: hrTime(end),
    status: parts.status,
    attributes: parts.attributes,
    links: [],
    events: parts.events ?? [],
    duration: hrTime(duration),
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

function event(name: string, at: number, attributes: Attributes = {}): TimedEvent {
  return { name, time: hrTime(at), attributes, droppedAttributesCount: 0 };
}

/** The run's span, from its start to its end (its status, definition, correlation id). */
export function runSpan(run: RunRecord, trace: RunTrace, resource: Resource, now: number): ReadableSpan {
  const failed = run.status !== 'COMPLETED';
  const attributes: Attributes = {
    'baton.workflow.id': run.workflowId,
    'baton.workflow.name': run.workflowName,
    'baton.workflow.version': run.workflowVersion,
    'baton.workflow.status': run.status,
  };
  if (run.correlationId !== undefined) attributes['baton.correlation_id'] = run.correlationId;
  if (run.parentWorkflowId !== undefined) attributes['baton.workflow.parent_id'] = run.parentWorkflowId;
  if (run.reasonForIncompletion !== undefined)
    attributes['baton.workflow.reason'] = run.reasonForIncompletion;
  if (run.event !== undefined) attributes['baton.workflow.event'] = run.event;
  return readableSpan(
    {
      name: `run ${run.workflowName}`,
      context: runSpanContext(trace),
      parent:
        trace.parentSpanId === undefined
          ? undefined
          : {
              traceId: trace.traceId,
              spanId: trace.parentSpanId,
              traceFlags: flags(trace.sampled),
              isRemote: true,
            },
      start: run.createTime,
      end: run.endTime || now,
      status: failed
        ? { code: SpanStatusCode.ERROR, message: run.reasonForIncompletion ?? run.status }
        : { code: SpanStatusCode.OK },
      attributes,
      events: (run.alerts ?? []).map((a) => event('timeout alert', a.time, { 'baton.timeout.kind': a.kind })),
    },
    resource,
  );
}

const FAILED_TASK = new Set(['FAILED', 'FAILED_WITH_TERMINAL_ERROR', 'TIMED_OUT', 'CANCELED']);

/** One task attempt's span: queued at its scheduled time, handed out, ended with its result. */
export function taskSpan(task: TaskRecord, trace: RunTrace, resource: Resource, now: number): ReadableSpan {
  const end = task.endTime || now;
  const attributes: Attributes = {
    'baton.workflow.id': task.workflowInstanceId,
    'baton.task.id': task.taskId,
    'baton.task.ref': task.referenceTaskName,
    'baton.task.type': task.taskType,
    'baton.task.attempt': task.retryCount + 1,
    'baton.task.status': task.status,
    'baton.task.poll_count': task.pollCount,
  };
  if (task.workerId !== undefined) attributes['baton.worker.id'] = task.workerId;
  if (task.reasonForIncompletion !== undefined) attributes['baton.task.reason'] = task.reasonForIncompletion;
  if (task.subWorkflowId !== undefined) attributes['baton.task.sub_workflow_id'] = task.subWorkflowId;
  const events: TimedEvent[] = [event('queued', task.scheduledTime)];
  if (task.startTime > 0 && task.pollCount > 0) {
    events.push(
      event(
        'handed out',
        task.startTime,
        task.workerId === undefined ? {} : { 'baton.worker.id': task.workerId },
      ),
    );
  }
  for (const alert of task.alerts ?? [])
    events.push(event('timeout alert', alert.time, { 'baton.timeout.kind': alert.kind }));
  if (task.status === 'TIMED_OUT')
    events.push(event('timed out', end, { 'baton.task.reason': task.reasonForIncompletion ?? '' }));
  events.push(event('result', end, { 'baton.task.status': task.status }));
  if (task.retried) events.push(event('retry scheduled', end));
  return readableSpan(
    {
      name: `task ${task.referenceTaskName}`,
      context: taskSpanContext(trace, task.taskId),
      parent: runSpanContext(trace),
      start: task.scheduledTime || end,
      end,
      status: FAILED_TASK.has(task.status)
        ? { code: SpanStatusCode.ERROR, message: task.reasonForIncompletion ?? task.status }
        : { code: SpanStatusCode.UNSET },
      attributes,
      events,
    },
    resource,
  );
}

/** A moment in a run (paused, resumed) as a span of no length under the run's. */
export function momentSpan(
  name: string,
  trace: RunTrace,
  spanId: string,
  at: number,
  attributes: Attributes,
  resource: Resource,
): ReadableSpan {
  return readableSpan(
    {
      name,
      context: { traceId: trace.traceId, spanId, traceFlags: flags(trace.sampled) },
      parent: runSpanContext(trace),
      start: at,
      end: at,
      status: { code: SpanStatusCode.UNSET },
      attributes,
    },
    resource,
  );
}
