import {
  isTerminalTaskStatus,
  isTerminalWorkflowStatus,
  type RunRecord,
  type RunTrace,
  type TaskRecord,
} from '@baton/protocol';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';

import type { Decision } from '../engine/index.js';
import type { TracedRun } from '../decisions/decision-applier.js';
import type { Tx } from '../store/store.js';
import { momentSpan, runSpan, taskSpan, taskSpanContext } from './durable-spans.js';
import { derivedSpanId, taskTraceparent } from './trace-ids.js';
import type { Tracing } from './tracing.js';

/**
 * The executor's tracing: a new run gets its trace context (kept on the run record), each task
 * a decision makes gets its attempt's `traceparent`, and every decision that ends a task attempt
 * or the run sends that span. Called inside the deciding transaction, like the metrics observer.
 */
export class RunTracer {
  private readonly resource: Resource;

  constructor(private readonly tracing: Tracing) {
    if (tracing.resource === undefined) throw new Error('RunTracer needs tracing on');
    this.resource = tracing.resource;
  }

  /**
   * The trace of a run being started: a child run continues its parent's trace under the task
   * that started it; any other run is a child of the active span (a request, an event handler,
   * a schedule's firing), or a new trace.
   */
  async traceRun(tx: Tx | undefined, run: TracedRun): Promise<RunTrace> {
    const taskId = run.parentWorkflowTaskId;
    if (taskId !== undefined && run.parentWorkflowId !== undefined) {
      const parent = run.parentTrace ?? (await tx?.getRun(run.parentWorkflowId))?.trace;
      if (parent !== undefined)
        return this.tracing.newRunTrace(run.workflowName, taskSpanContext(parent, taskId));
    }
    return this.tracing.newRunTrace(run.workflowName);
  }

  /** `work` inside a span of its own under the active one (an event handler's, a schedule's). */
  async within<T>(
    name: string,
    attributes: Record<string, string | number>,
    work: () => Promise<T>,
  ): Promise<T> {
    const span = this.tracing.startSpan(name, SpanKind.INTERNAL, attributes);
    try {
      return await this.tracing.within(span, work);
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

  /** Every task a decision makes (or a retry copies) carries its attempt's trace context: workers continue it. */
  stampTasks(run: RunRecord, tasks: readonly TaskRecord[]): void {
    const trace = run.trace;
    if (trace === undefined) return;
    for (const task of tasks) task.traceparent = taskTraceparent(trace, task.taskId);
  }

  /** A signal a task of the run took: a moment under the run's span. */
  signalled(run: RunRecord, status: string, now: number): void {
    this.moment('run signalled', run, now, { 'baton.signal.status': status });
  }

  private moment(name: string, run: RunRecord, now: number, attributes: Record<string, string> = {}): void {
    const trace = run.trace;
    if (trace === undefined || !trace.sampled) return;
    const id = derivedSpanId(`${name}:${run.workflowId}:${now}`);
    const all = { 'baton.workflow.id': run.workflowId, ...attributes };
    this.tracing.emit(momentSpan(name, trace, id, now, all, this.resource));
  }

  decided(
    before: RunRecord | undefined,
    beforeTasks: readonly TaskRecord[],
    decision: Decision,
    now: number,
  ): void {
    const run = decision.run;
    const trace = run.trace;
    if (trace === undefined || !trace.sampled) return;
    const previous = new Map(beforeTasks.map((t) => [t.taskId, t.status]));
    for (const task of [...decision.newTasks, ...decision.updatedTasks]) {
      const was = previous.get(task.taskId);
      if (isTerminalTaskStatus(task.status) && (was === undefined || !isTerminalTaskStatus(was))) {
        this.tracing.emit(taskSpan(task, trace, this.resource, now));
      }
    }
    const wasStatus = before?.status;
    if (
      wasStatus !== undefined &&
      wasStatus !== run.status &&
      (run.status === 'PAUSED' || wasStatus === 'PAUSED')
    ) {
      this.moment(run.status === 'PAUSED' ? 'run paused' : 'run resumed', run, now);
    }
    if (
      isTerminalWorkflowStatus(run.status) &&
      (wasStatus === undefined || !isTerminalWorkflowStatus(wasStatus))
    ) {
      this.tracing.emit(runSpan(run, trace, this.resource, now));
    }
  }
}
