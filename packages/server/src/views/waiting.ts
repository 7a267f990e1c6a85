import {
  isTerminalTaskStatus,
  type PollData,
  type RunRecord,
  type RunWaitingFor,
  type TaskRecord,
  type WaitingFor,
} from '@baton/protocol';

import { isSystemQueue, outsideWaiting, taskKindOf, type WaitingFacts } from '../engine/index.js';
import { explainSystemCall } from './call-waiting.js';
import type { StoredQueueMessage, StoredTimer, Tx } from '../store/store.js';
import { isActivePoll } from '../handout/worker-liveness.js';
import { isoOrUnknown, storableTime } from '../bounds/time.js';
import { copyWith } from '../copy-with.js';

/**
 * Explainable waiting (docs/design/task-lifecycle.md#explainable-waiting): why an open task waits
 * and until when, worked out when the task is read from the task, its queue message and the poll
 * data. Nothing here is stored.
 */

function seconds(ms: number): number {
  return Math.max(0, Math.round(ms / 1000));
}

/** A time in a message; a stored value no Date can hold reads "unknown" rather than throw. */
function at(ms: number): string {
  return isoOrUnknown(ms);
}

/** The last poll of the queue serving `queueName` (its base queue for `-high`). */
function lastPollFor(queueName: string, polls: readonly PollData[]): PollData | undefined {
  const base = queueName.endsWith('-high') ? queueName.slice(0, -'-high'.length) : undefined;
  let last: PollData | undefined;
  for (const p of polls) {
    if (p.queueName !== queueName && p.queueName !== base) continue;
    if (!last || p.lastPollTime > last.lastPollTime) last = p;
  }
  return last;
}

/** The queue workers poll for a task: `{type}` or `{domain}-{type}` (a `-high` queue is drained by them). */
function pollQueueOf(task: TaskRecord): string {
  return task.domain === undefined ? task.taskType : `${task.domain}-${task.taskType}`;
}

/**
 * Why `task` waits, or undefined when it has ended. `message` is its queue message (undefined
 * when there is none); `polls` the poll data of its type; `facts` its timers, child run and
 * the run's other tasks, for the kinds that ask for them (their `waiting.needs`).
 */
export function explainTask(
  task: TaskRecord,
  message: StoredQueueMessage | undefined,
  polls: readonly PollData[],
  now: number,
  facts: WaitingFacts = {},
): WaitingFor | undefined {
  if (isTerminalTaskStatus(task.status)) return undefined;
  const queueName = task.queueName;
  if (queueName === undefined) {
    // Without a queue the task's kind says why it waits (or it waits to be completed from outside).
    const waiting = taskKindOf(task.workflowTask)?.waiting;
    return typeof waiting === 'object' ? waiting.explain(task, facts, now) : outsideWaiting(task);
  }
  const type = task.taskType;
  if (!message) {
    return {
      reason: 'missing-message',
      message: `waiting: ${type} has no message on queue ${queueName}; POST /api/admin/repair/${task.workflowInstanceId} re-queues it`,
      queueName,
    };
  }
  if (message.deadLettered) {
    return {
      reason: 'dead-letter',
      message: `waiting: dead-lettered on ${queueName} after its retries; POST /api/admin/requeue/${type} sends it again`,
      queueName,
    };
  }
  if (isSystemQueue(queueName)) {
    const call = explainSystemCall(task, message, now);
    if (call) return call;
  }
  if (message.lockedUntil !== null && message.lockedUntil > now) {
    const worker = message.workerId ?? task.workerId ?? 'unknown';
    const out: WaitingFor = {
      reason: 'lock',
      message: `waiting: worker ${worker} holds ${type} until ${at(message.lockedUntil)} (${seconds(message.lockedUntil - now)} s)`,
      until: message.lockedUntil,
      queueName,
    };
    if (message.workerId !== null) out.workerId = message.workerId;
    return out;
  }
  const lapsed = explainLapsedLock(task, message.lockedUntil, now);
  if (lapsed) return lapsed;
  if (message.visibleAt > now) {
    const until = message.visibleAt;
    const due = `${at(until)} (in ${seconds(until - now)} s)`;
    const deferral = task.limitDeferral;
    if (deferral !== undefined && deferral.until === until) {
      const what = deferral.reason === 'rate-limit' ? 'rate limit' : 'concurrentExecLimit';
      return {
        reason: deferral.reason,
        message: `waiting: ${type} is at its ${what}; handed out again from ${due}`,
        until,
        queueName,
      };
    }
    if (task.pollCount > 0) {
      return {
        reason: 'callback',
        message: `waiting: the worker asked to be called back; ${type} is due again at ${due}`,
        until,
        queueName,
      };
    }
    if (task.retryCount > 0) {
      return {
        reason: 'retry-delay',
        message: `waiting: attempt ${task.retryCount + 1} of ${type} is due at ${due}`,
        until,
        queueName,
      };
    }
    return {
      reason: 'start-delay',
      message: `waiting: ${type} starts after its startDelay, at ${due}`,
      until,
      queueName,
    };
  }
  const pollQueue = pollQueueOf(task);
  const last = lastPollFor(queueName, polls) ?? lastPollFor(pollQueue, polls);
  if (last === undefined || !isActivePoll(last.lastPollTime, now)) {
    return {
      reason: 'no-worker',
      message:
        last === undefined
          ? `waiting: no worker has ever polled ${pollQueue}`
          : `waiting: no worker has polled ${pollQueue} for ${seconds(now - last.lastPollTime)} s`,
      queueName,
    };
  }
  return {
    reason: 'worker',
    message: `waiting: queued on ${queueName} for a ${type} worker; last poll ${seconds(now - last.lastPollTime)} s ago by ${last.workerId}`,
    queueName,
  };
}

/** Reads what `explainTask` needs for these tasks (their messages, their types' poll data) and explains each open one. */
export async function explainTasks(
  tx: Tx,
  tasks: readonly TaskRecord[],
  now: number,
  /** Lays polls this node has not written yet over the stored ones (`PollRecorder.merge`). */
  withPending: (stored: readonly PollData[], taskType: string) => PollData[] = (stored) => [...stored],
): Promise<Map<string, WaitingFor>> {
  const out = new Map<string, WaitingFor>();
  const open = tasks.filter((t) => !isTerminalTaskStatus(t.status));
  if (open.length === 0) return out;
  const polls = new Map<string, PollData[]>();
  for (const task of open) {
    if (task.queueName === undefined || polls.has(task.taskType)) continue;
    polls.set(task.taskType, withPending(await tx.pollData(task.taskType), task.taskType));
  }
  const latestByRun = new Map<string, Map<string, TaskRecord>>();
  for (const task of open) {
    const message = task.queueName === undefined ? undefined : await tx.getMessage(task.taskId);
    const facts = await readFacts(tx, task, latestByRun);
    const why = explainSafely(() => explainTask(task, message, polls.get(task.taskType) ?? [], now, facts));
    if (why) out.set(task.taskId, why);
  }
  return out;
}

/**
 * An explanation never fails a read: one that throws, or names a time no store can hold, comes
 * from values an older version stored without bounds, and reads as the stated "unknown".
 */
function explainSafely(explain: () => WaitingFor | undefined): WaitingFor | undefined {
  let why: WaitingFor | undefined;
  try {
    why = explain();
  } catch {
    return { reason: 'unknown', message: 'waiting: the reason cannot be worked out from the stored task' };
  }
  if (why?.until !== undefined && storableTime(why.until) !== why.until) {
    const { until: _dropped, ...rest } = why;
    return rest;
  }
  return why;
}

/** Reads the timers, child run and run tasks an open task's explanation needs (only those). */
async function readFacts(
  tx: Tx,
  task: TaskRecord,
  latestByRun: Map<string, Map<string, TaskRecord>>,
): Promise<WaitingFacts> {
  const waiting = taskKindOf(task.workflowTask)?.waiting;
  const needed = typeof waiting === 'object' ? (waiting.needs?.(task) ?? {}) : {};
  const facts: { -readonly [K in keyof WaitingFacts]: WaitingFacts[K] } = {};
  if (needed.timers) {
    const timers: StoredTimer[] = await tx.listTimers({ taskIds: [task.taskId] });
    facts.timers = timers;
  }
  if (needed.child && task.subWorkflowId !== undefined) {
    const child = await tx.getRun(task.subWorkflowId);
    if (child) facts.child = child;
  }
  if (needed.runTasks) {
    let latest = latestByRun.get(task.workflowInstanceId);
    if (!latest) {
      latest = new Map();
      for (const t of await tx.getRunTasks(task.workflowInstanceId)) latest.set(t.referenceTaskName, t);
      latestByRun.set(task.workflowInstanceId, latest);
    }
    facts.latestByRef = latest;
  }
  return facts;
}

/** The run's summary: one entry per open task, and one when the run is paused. */
export function runWaiting(
  run: RunRecord,
  tasks: readonly TaskRecord[],
  why: ReadonlyMap<string, WaitingFor>,
): RunWaitingFor[] {
  const out: RunWaitingFor[] = [];
  if (run.status === 'PAUSED') {
    out.push({ reason: 'paused', message: 'waiting: the run is paused; resume it to continue' });
  }
  for (const task of tasks) {
    const w = why.get(task.taskId);
    if (w)
      out.push(
        copyWith(w, {
          taskId: task.taskId,
          referenceTaskName: task.referenceTaskName,
          taskType: task.taskType,
        }),
      );
  }
  return out;
}

/**
 * A worker attempt whose lock lapsed while it is IN_PROGRESS is never handed out again: the lapse
 * is its response timeout, which the timer loop's sweep acts on (TIMED_OUT, and the next
 * attempt). Undefined when its lock holds.
 */
export function explainLapsedLock(
  task: TaskRecord,
  lockedUntil: number | null,
  now: number,
): WaitingFor | undefined {
  if (task.status !== 'IN_PROGRESS' || (lockedUntil !== null && lockedUntil > now)) return undefined;
  const worker = task.workerId ?? 'unknown';
  const next =
    lockedUntil === null
      ? 'the next hand-out of its type locks it until its response window ends, then times it out'
      : `its response timeout has been due since ${at(lockedUntil)}: the next attempt is made now`;
  return {
    reason: 'lock-lapsed',
    message: `waiting: the lock of worker ${worker} on ${task.taskType} lapsed; ${next}`,
    ...(lockedUntil !== null && { until: lockedUntil }),
    ...(task.queueName !== undefined && { queueName: task.queueName }),
    ...(task.workerId !== undefined && { workerId: task.workerId }),
  };
}
