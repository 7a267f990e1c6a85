import type { RunRecord, TaskRecord, WaitingFor } from '@baton/protocol';

import { isoOrUnknown } from '../../bounds/time.js';

/**
 * How a kind explains why an open task of it waits (the task and run views' `waitingFor`).
 * The explanation is pure: what it reads beyond the task record (timers, the child run, the
 * run's other tasks) is loaded by the caller, which asks the kind first which of those it needs.
 */

/** What an open task's explanation may read beyond its record, loaded by the caller. */
export interface WaitingFacts {
  /** The task's durable timers (WAIT, POLL_TIMEOUT, …). */
  readonly timers?: readonly { readonly kind: string; readonly dueAt: number }[];
  /** The child run of a SUB_WORKFLOW task, when it exists. */
  readonly child?: RunRecord;
  /** The latest task of each ref of the task's run (JOIN, EXCLUSIVE_JOIN). */
  readonly latestByRef?: ReadonlyMap<string, TaskRecord>;
}

/** Which facts an explanation reads; the caller loads only those. */
export interface WaitingNeeds {
  readonly timers?: boolean;
  readonly child?: boolean;
  readonly runTasks?: boolean;
}

export interface WaitingExplainer {
  /** The facts `explain` reads for this task (none when absent). */
  needs?(task: TaskRecord): WaitingNeeds;
  explain(task: TaskRecord, facts: WaitingFacts, now: number): WaitingFor;
}

/**
 * How an open task of a kind waits:
 * - `queued`: on its queue message (worker tasks, system calls), explained from the message,
 *   its lock and the poll data by the caller;
 * - `outside`: until something outside completes it (the kinds that end in the decision that
 *   makes them are only ever seen open that way, e.g. an EVENT with `asyncComplete`);
 * - an explainer: the kind says itself.
 */
export type KindWaiting = 'queued' | 'outside' | WaitingExplainer;

/** Whole seconds from now until `ms` (0 once past). */
export function secondsUntil(ms: number, now: number): number {
  return Math.max(0, Math.round((ms - now) / 1000));
}

/** A time in a message; a stored value no Date can hold reads "unknown" rather than throw. */
export function at(ms: number): string {
  return isoOrUnknown(ms);
}

/** The route that completes an open task from outside. */
export function completeFromOutside(task: TaskRecord): string {
  return `POST /api/tasks/${task.workflowInstanceId}/${task.referenceTaskName}/{status}`;
}

/** The explanation of a task that waits to be completed from outside (kinds with `outside`). */
export function outsideWaiting(task: TaskRecord): WaitingFor {
  return {
    reason: 'external',
    message: `waiting: to be completed from outside (${completeFromOutside(task)})`,
  };
}
