import type { JsonObject } from '@baton/protocol';

import type { StoredTimer, TimerFilter } from './store.js';

/** Row shape of the `timers` table, shared by both dialects (payload parsed by the caller's driver). */
export interface TimerRow {
  id: string;
  workflow_id: string;
  task_id: string | null;
  kind: string;
  fire_at: number;
  payload: JsonObject | string;
  claimed_until: number | null;
  create_time: number;
}

export function timerFromRow(row: TimerRow): StoredTimer {
  const payload = typeof row.payload === 'string' ? (JSON.parse(row.payload) as JsonObject) : row.payload;
  const timer: StoredTimer = {
    timerId: row.id,
    workflowId: row.workflow_id,
    kind: row.kind,
    dueAt: row.fire_at,
    payload,
    claimedUntil: row.claimed_until,
    createTime: row.create_time,
  };
  if (row.task_id !== null) timer.taskId = row.task_id;
  return timer;
}

/** A filter must name a run or tasks: an empty filter would touch every timer of every run. */
export function checkTimerFilter(op: string, filter: TimerFilter): void {
  if (filter.workflowId === undefined && filter.taskIds === undefined)
    throw new Error(`store: ${op} needs a workflowId or taskIds`);
}

/** Earliest first, then by id, so claims and listings are stable. */
export function compareTimers(a: StoredTimer, b: StoredTimer): number {
  if (a.dueAt !== b.dueAt) return a.dueAt - b.dueAt;
  return a.timerId < b.timerId ? -1 : a.timerId > b.timerId ? 1 : 0;
}

/** How a dialect writes a condition and adds its parameter (`params` grows by one). */
export interface ConditionWriter {
  equals(column: string, value: string, params: unknown[]): string;
  oneOf(column: string, values: readonly string[], params: unknown[]): string;
}

/** The WHERE clause (without the keyword) of a timer filter, in the dialect `write` speaks. */
export function timerWhere(filter: TimerFilter, write: ConditionWriter): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (filter.workflowId !== undefined) parts.push(write.equals('workflow_id', filter.workflowId, params));
  if (filter.taskIds !== undefined) parts.push(write.oneOf('task_id', filter.taskIds, params));
  if (filter.kinds !== undefined) parts.push(write.oneOf('kind', filter.kinds, params));
  return { sql: parts.join(' AND '), params };
}
