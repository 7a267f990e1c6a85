import { isTerminalTaskStatus, type RunRecord, type TaskRecord, type WaitingFor } from '@baton/protocol';

import { kindNameOf } from '../engine/graph.js';
import { taskKindOf } from '../engine/kinds/registry.js';
import type { StoredTimer } from '../store/store.js';
import { isoOrUnknown } from '../bounds/time.js';

/**
 * Explainable waiting for the engine-run kinds (no queue message): why an open WAIT, HUMAN,
 * SUB_WORKFLOW, JOIN, EXCLUSIVE_JOIN, DO_WHILE or PULL_WORKFLOW_MESSAGES task waits, from its
 * record, its timers, its child run and the tasks it waits on. Nothing here is stored.
 */

/** What the explanation of an open task may need beyond its record (read by `explainTasks`). */
export interface TaskFacts {
  /** The task's durable timers (WAIT, POLL_TIMEOUT, …). */
  timers?: readonly StoredTimer[];
  /** The child run of a SUB_WORKFLOW task, when it exists. */
  child?: RunRecord;
  /** The latest task of each ref of the task's run (JOIN, EXCLUSIVE_JOIN). */
  latestByRef?: ReadonlyMap<string, TaskRecord>;
}

function seconds(ms: number): number {
  return Math.max(0, Math.round(ms / 1000));
}

/** A time in a message; a stored value no Date can hold reads "unknown" rather than throw. */
function at(ms: number): string {
  return isoOrUnknown(ms);
}

/** The kinds `explainSystemTask` reads more than the record for (the caller loads those facts). */
export function factsNeeded(task: TaskRecord): { timers: boolean; child: boolean; runTasks: boolean } {
  const kind = kindNameOf(task.workflowTask);
  return {
    // Only a WAIT's timer says what it waits for (a worker's response deadline is its lock).
    timers: kind === 'WAIT',
    child: kind === 'SUB_WORKFLOW' && task.subWorkflowId !== undefined,
    runTasks: kind === 'JOIN' || kind === 'EXCLUSIVE_JOIN',
  };
}

function completeFromOutside(task: TaskRecord): string {
  return `POST /api/tasks/${task.workflowInstanceId}/${task.referenceTaskName}/{status}`;
}

/** Why an open task without a queue waits, by its kind; undefined for a kind not explained here. */
export function explainSystemTask(task: TaskRecord, facts: TaskFacts, now: number): WaitingFor | undefined {
  const id = task.workflowInstanceId;
  switch (kindNameOf(task.workflowTask)) {
    case 'WAIT': {
      if (task.callbackAfterSeconds > 0) {
        const timer = facts.timers?.find((t) => t.kind === 'WAIT');
        const until = timer?.dueAt ?? task.startTime + task.callbackAfterSeconds * 1000;
        return {
          reason: 'timer',
          message: `waiting: until ${at(until)} (in ${seconds(until - now)} s), then it completes by itself`,
          until,
        };
      }
      return {
        reason: 'external',
        message: `waiting: to be completed from outside (${completeFromOutside(task)}) or by a signal (POST /api/workflow/${id}/signal)`,
      };
    }
    case 'HUMAN': {
      const assignee = task.inputData.assignee;
      const out: WaitingFor = {
        reason: 'external',
        message: `waiting: for ${typeof assignee === 'string' ? assignee : 'a person'} to complete it (${completeFromOutside(task)}, or a signal)`,
      };
      if (typeof assignee === 'string') out.assignee = assignee;
      return out;
    }
    case 'SUB_WORKFLOW': {
      const childId = task.subWorkflowId;
      if (childId === undefined)
        return { reason: 'child-run', message: 'waiting: its child run is being started' };
      const status = facts.child?.status;
      const name = facts.child ? ` (${facts.child.workflowName})` : '';
      // A child retried on its own: the task follows the new run (its parent resumed with it).
      const retryOf = facts.child?.links.retry_of;
      const retried = retryOf !== undefined ? `, the retry of child run ${retryOf}` : '';
      return {
        reason: 'child-run',
        message: `waiting: for child run ${childId}${name}${retried} to end; it is ${status ?? 'not found'}`,
        childWorkflowId: childId,
        ...(status !== undefined && { childStatus: status }),
      };
    }
    case 'JOIN':
    case 'EXCLUSIVE_JOIN': {
      const watched = taskKindOf(task.workflowTask)?.watches?.(task) ?? [];
      const open = watched.filter((ref) => {
        const latest = facts.latestByRef?.get(ref);
        return !latest || !isTerminalTaskStatus(latest.status);
      });
      return {
        reason: 'join',
        message:
          open.length > 0
            ? `waiting: for ${open.join(', ')} to end`
            : 'waiting: for the branches it joins to end',
        waitingOn: open,
      };
    }
    case 'DO_WHILE':
      return {
        reason: 'loop',
        message: `waiting: for iteration ${task.iteration} of the loop to end`,
        iteration: task.iteration,
      };
    case 'PULL_WORKFLOW_MESSAGES':
      return {
        reason: 'messages',
        message: `waiting: for messages (POST /api/workflow/${id}/messages) or a signal (POST /api/workflow/${id}/signal)`,
      };
    default:
      return undefined;
  }
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
