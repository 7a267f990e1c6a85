import {
  isTerminalTaskStatus,
  type JsonObject,
  type RunRecord,
  type TaskRecord,
  type WorkflowStatus,
} from '@baton/protocol';

import type { Decision } from '../engine/index.js';
import { newId } from '../ids.js';
import type { AfterCommit } from '../decisions/decision-applier.js';
import { OUTBOX_WAKE, type OutboxEntry } from '../store/ports/events.js';
import type { Tx } from '../store/store.js';
import { DEFAULT_LIFECYCLE_SINK } from './handler-model.js';

const RUN_END_EVENTS: Partial<Record<WorkflowStatus, string>> = {
  COMPLETED: 'workflow.completed',
  FAILED: 'workflow.failed',
  TIMED_OUT: 'workflow.timed_out',
  TERMINATED: 'workflow.terminated',
};

const TASK_END_EVENTS: Record<string, string> = {
  COMPLETED: 'task.completed',
  COMPLETED_WITH_ERRORS: 'task.completed',
  FAILED: 'task.failed',
  FAILED_WITH_TERMINAL_ERROR: 'task.failed',
  TIMED_OUT: 'task.timed_out',
  CANCELED: 'task.canceled',
  SKIPPED: 'task.skipped',
};

/** Where a run's lifecycle events go: its definition's sink, or the internal bus; none unless it opted in. */
export function lifecycleSink(run: RunRecord): string | undefined {
  const def = run.workflowDefinition;
  if (def.workflowStatusListenerEnabled !== true) return undefined;
  const sink = def.workflowStatusListenerSink;
  return typeof sink === 'string' && sink !== '' ? sink : DEFAULT_LIFECYCLE_SINK;
}

/**
 * The lifecycle events of one decision, in the order they happened: the run's start (and how it
 * was made: retried, restarted, rerun), pause or resume, its tasks scheduled and ended, then the
 * run's end. One event per change; nothing for a run whose definition did not opt in.
 */
export function lifecycleEvents(
  before: RunRecord | undefined,
  beforeTasks: readonly TaskRecord[],
  decision: Decision,
): Array<{ type: string; task?: TaskRecord }> {
  const run = decision.run;
  const events: Array<{ type: string; task?: TaskRecord }> = [];
  if (!before) {
    events.push({ type: 'workflow.started' });
    if (run.links.retry_of !== undefined) events.push({ type: 'workflow.retried' });
    if (run.links.restart_of !== undefined) events.push({ type: 'workflow.restarted' });
    if (run.links.rerun_of !== undefined) events.push({ type: 'workflow.rerun' });
  } else if (before.status !== run.status) {
    if (run.status === 'PAUSED') events.push({ type: 'workflow.paused' });
    if (before.status === 'PAUSED' && run.status === 'RUNNING') events.push({ type: 'workflow.resumed' });
  }
  // Tasks that ended come before the tasks their ends scheduled (a retry: failed, then scheduled).
  const was = new Map(beforeTasks.map((t) => [t.taskId, t.status]));
  const fresh = new Set(decision.newTasks.map((t) => t.taskId));
  for (const task of decision.updatedTasks) {
    if (fresh.has(task.taskId)) continue;
    const previous = was.get(task.taskId);
    if (!isTerminalTaskStatus(task.status) || (previous !== undefined && isTerminalTaskStatus(previous)))
      continue;
    const end = TASK_END_EVENTS[task.status];
    if (end !== undefined) events.push({ type: end, task });
  }
  for (const task of decision.newTasks) {
    events.push({ type: 'task.scheduled', task });
    const end = TASK_END_EVENTS[task.status];
    if (end !== undefined) events.push({ type: end, task });
  }
  if (before?.status !== run.status) {
    const end = RUN_END_EVENTS[run.status];
    if (end !== undefined) events.push({ type: end });
  }
  return events;
}

function payload(type: string, run: RunRecord, now: number, task?: TaskRecord): JsonObject {
  const body: JsonObject = {
    type,
    time: now,
    workflowId: run.workflowId,
    workflowName: run.workflowName,
    workflowVersion: run.workflowVersion,
    status: run.status,
    correlationId: run.correlationId ?? null,
  };
  if (run.reasonForIncompletion !== undefined && type.startsWith('workflow.'))
    body.reason = run.reasonForIncompletion;
  if (type === 'workflow.completed') body.output = run.output;
  if (task) {
    body.taskId = task.taskId;
    body.taskRefName = task.referenceTaskName;
    body.taskType = task.taskType;
    body.taskStatus = task.status;
    body.retryCount = task.retryCount;
    if (task.reasonForIncompletion !== undefined) body.reason = task.reasonForIncompletion;
  }
  return body;
}

/** The executor's `onDecided` hook: writes the decision's lifecycle events to the outbox, in its transaction. */
export function lifecycleOutbox(now: () => number) {
  return async (
    tx: Tx,
    before: RunRecord | undefined,
    beforeTasks: readonly TaskRecord[],
    decision: Decision,
    after: AfterCommit,
  ): Promise<void> => {
    const sink = lifecycleSink(decision.run);
    if (sink === undefined) return;
    const events = lifecycleEvents(before, beforeTasks, decision);
    if (events.length === 0) return;
    const at = now();
    const entries: OutboxEntry[] = events.map((e) => {
      const messageId = newId();
      return {
        sink,
        messageId,
        payload: { id: messageId, ...payload(e.type, decision.run, at, e.task) },
        createdAt: at,
      };
    });
    await tx.events.appendOutbox(entries);
    after.wakeQueues.add(OUTBOX_WAKE);
    await tx.notifyQueues([OUTBOX_WAKE]);
  };
}
