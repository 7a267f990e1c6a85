import { randomUUID } from 'node:crypto';

import type { RunRecord, TaskRecord, WorkflowDef } from '@baton/protocol';

import type { QueueMessage, StoredWorkflowDef, Tx } from '../../src/store/store.js';
import type { TaskRowColumns } from '../../src/store/task-record-storage.js';

/** A fixed base time: stores never read the clock, tests pass every time in. */
export const T0 = Date.UTC(2026, 0, 1);

export function uid(prefix = ''): string {
  return `${prefix}${randomUUID()}`;
}

export function workflowDef(name: string, version = 1, extra: Partial<WorkflowDef> = {}): StoredWorkflowDef {
  return {
    name,
    version,
    description: `${name} v${version}`,
    tasks: [
      {
        name: 'a',
        taskReferenceName: 'a_ref',
        type: 'SIMPLE',
        inputParameters: { x: '${workflow.input.x}' },
      },
    ],
    schemaVersion: 2,
    createTime: T0,
    updateTime: T0,
    ...extra,
  };
}

export function run(overrides: Partial<RunRecord> = {}): RunRecord {
  const name = overrides.workflowName ?? 'wf';
  return {
    workflowId: uid('run-'),
    workflowName: name,
    workflowVersion: 1,
    status: 'RUNNING',
    input: { x: 1 },
    output: {},
    variables: {},
    priority: 0,
    taskToDomain: {},
    failedReferenceTaskNames: [],
    failedTaskNames: [],
    createTime: T0,
    updateTime: T0,
    endTime: 0,
    links: {},
    workflowDefinition: workflowDef(name, overrides.workflowVersion ?? 1),
    ...overrides,
  };
}

export function task(workflowId: string, seq: number, overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    taskId: uid('task-'),
    workflowInstanceId: workflowId,
    workflowType: 'wf',
    taskType: 'resize',
    taskDefName: 'resize',
    referenceTaskName: `ref_${seq}`,
    status: 'SCHEDULED',
    seq,
    retryCount: 0,
    inputData: { seq },
    outputData: {},
    pollCount: 0,
    scheduledTime: T0,
    startTime: 0,
    endTime: 0,
    updateTime: T0,
    startDelayInSeconds: 0,
    callbackAfterSeconds: 0,
    responseTimeoutSeconds: 60,
    retried: false,
    executed: false,
    workflowPriority: 0,
    iteration: 0,
    workflowTask: { name: 'resize', taskReferenceName: `ref_${seq}`, type: 'SIMPLE' },
    ...overrides,
  };
}

/** The columns of the row a store writes for `t` (its record aside). */
export function taskRowColumns(t: TaskRecord): TaskRowColumns {
  return {
    task_id: t.taskId,
    workflow_id: t.workflowInstanceId,
    seq: t.seq,
    reference_task_name: t.referenceTaskName,
    task_type: t.taskType,
    status: t.status,
    update_time: t.updateTime,
  };
}

export function message(queueName: string, overrides: Partial<QueueMessage> = {}): QueueMessage {
  return {
    taskId: uid('msg-'),
    queueName,
    workflowId: 'run-1',
    taskRef: 'ref',
    attempt: 1,
    priority: 0,
    visibleAt: T0,
    lockMs: 60_000,
    ...overrides,
  };
}

/**
 * Queues `messages` as the engine does: each behind the task it hands out (written SCHEDULED, or
 * IN_PROGRESS when it is queued already handed out), in its run, unless that task is stored
 * already. The engine never queues a message without its task, so tests do not either: a store may
 * keep a message's queue state on its task.
 */
export async function enqueueTasks(tx: Tx, messages: readonly QueueMessage[], now: number): Promise<void> {
  const ids = [...new Set(messages.map((m) => m.taskId))];
  const stored = new Set((await tx.getTasks(ids)).map((t) => t.taskId));
  const fresh = new Map<string, TaskRecord>();
  for (const m of messages) {
    if (stored.has(m.taskId)) continue;
    fresh.set(
      m.taskId,
      task(m.workflowId, fresh.size + 1, {
        taskId: m.taskId,
        referenceTaskName: m.taskRef,
        retryCount: m.attempt - 1,
        status: m.lock === undefined ? 'SCHEDULED' : 'IN_PROGRESS',
        scheduledTime: now,
        updateTime: now,
        workflowPriority: m.priority,
      }),
    );
  }
  if (fresh.size > 0) await tx.insertTasks([...fresh.values()]);
  await tx.enqueue(messages, now);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise with its resolve function, for choreographing concurrent transactions. */
export function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
