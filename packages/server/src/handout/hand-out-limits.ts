import type { StoredTaskDef, TaskRecord } from '@baton/protocol';

import { effectiveTaskDef } from '../engine/index.js';
import type { Tx } from '../store/store.js';
import { copyWith } from '../copy-with.js';

/** How long a task over its type's concurrency or rate limit is put back for (the interface's limit). */
export const LIMIT_DEFER_MS = 60_000;

export type LimitReason = 'concurrency-limit' | 'rate-limit';

export interface LimitSplit {
  /** Tasks within their limits, in the order given. */
  allowed: TaskRecord[];
  /** Tasks over a limit: not handed out now. */
  deferred: Array<{ task: TaskRecord; reason: LimitReason }>;
}

interface Limits {
  concurrency?: number;
  rate?: { perWindow: number; windowMs: number };
}

/** A task's limits from its effective definition (inline first); 0 or unset means none (as Conductor). */
function limitsOf(task: TaskRecord, defs: ReadonlyMap<string, StoredTaskDef>): Limits {
  const config = effectiveTaskDef(task.workflowTask, defs);
  const limits: Limits = {};
  if ((config.concurrentExecLimit ?? 0) > 0) limits.concurrency = config.concurrentExecLimit;
  const perWindow = config.rateLimitPerFrequency ?? 0;
  const seconds = config.rateLimitFrequencyInSeconds ?? 0;
  if (perWindow > 0 && seconds > 0) limits.rate = { perWindow, windowMs: seconds * 1000 };
  return limits;
}

/** Whether the task's type has a concurrency or rate limit (hand-outs of it take the limit's lock). */
export function hasHandOutLimits(task: TaskRecord, defs: ReadonlyMap<string, StoredTaskDef>): boolean {
  const limits = limitsOf(task, defs);
  return limits.concurrency !== undefined || limits.rate !== undefined;
}

/**
 * Enforces `concurrentExecLimit` (tasks of a type IN_PROGRESS at once) and
 * `rateLimitPerFrequency` per `rateLimitFrequencyInSeconds` (hand-outs per window) on tasks
 * just claimed, inside the claim's transaction. For each limited type it first locks the type's
 * limit row (`Tx.lockTaskLimit`), so on PostgreSQL hand-outs of that type on every node take
 * turns between the count and the commit: two nodes can never both see "one slot left". Types
 * without limits cost one definition read and no lock.
 *
 * The rate window is fixed: it opens at the first hand-out after the previous one closed and
 * counts hand-outs until it closes, so no window ever holds more than the limit.
 */
async function splitByLimits(
  tx: Tx,
  tasks: readonly TaskRecord[],
  defs: ReadonlyMap<string, StoredTaskDef>,
  now: number,
): Promise<LimitSplit> {
  if (tasks.length === 0) return { allowed: [], deferred: [] };
  const limitsById = new Map(tasks.map((t) => [t.taskId, limitsOf(t, defs)]));
  const limitedTypes = [
    ...new Set(
      tasks
        .filter((t) => {
          const l = limitsById.get(t.taskId);
          return l?.concurrency !== undefined || l?.rate !== undefined;
        })
        .map((t) => t.taskDefName),
    ),
  ].sort(); // one lock order everywhere: no deadlock between two hand-outs of several types
  if (limitedTypes.length === 0) return { allowed: [...tasks], deferred: [] };

  const over = new Map<string, LimitReason>();
  for (const type of limitedTypes) {
    const state = await tx.lockTaskLimit(type);
    let inProgress = state.inProgress;
    let { windowStart, windowCount } = state;
    let rateUsed = false;
    for (const task of tasks) {
      if (task.taskDefName !== type) continue;
      const limits = limitsById.get(task.taskId) ?? {};
      // A task already IN_PROGRESS (its lock lapsed) is counted already: handing it out again
      // does not add to the concurrency.
      const adds = task.status !== 'IN_PROGRESS';
      if (limits.concurrency !== undefined && adds && inProgress >= limits.concurrency) {
        over.set(task.taskId, 'concurrency-limit');
        continue;
      }
      if (limits.rate !== undefined) {
        if (now >= windowStart + limits.rate.windowMs) {
          windowStart = now;
          windowCount = 0;
        }
        if (windowCount >= limits.rate.perWindow) {
          over.set(task.taskId, 'rate-limit');
          continue;
        }
        windowCount += 1;
        rateUsed = true;
      }
      if (adds) inProgress += 1;
    }
    if (rateUsed) await tx.setTaskRateWindow(type, windowStart, windowCount);
  }
  const split: LimitSplit = { allowed: [], deferred: [] };
  for (const task of tasks) {
    const reason = over.get(task.taskId);
    if (reason === undefined) split.allowed.push(task);
    else split.deferred.push({ task, reason });
  }
  return split;
}

/**
 * Applies the limits to tasks just claimed (their records as stored) and puts those over a limit
 * back: each record notes `limitDeferral` (compare-and-set, as the hand-out writes) and its
 * message is visible again at now + 60 s; a task that ended meanwhile loses its message.
 * Answers the tasks held back, with the limit that held each.
 */
export async function holdBackOverLimit(
  tx: Tx,
  tasks: readonly TaskRecord[],
  /** The definitions of the tasks' types (read once by the hand-out). */
  defs: ReadonlyMap<string, StoredTaskDef>,
  now: number,
): Promise<Map<string, LimitReason>> {
  const { deferred } = await splitByLimits(tx, tasks, defs, now);
  const heldBack = new Map(deferred.map(({ task, reason }) => [task.taskId, reason]));
  if (deferred.length === 0) return heldBack;
  const until = now + LIMIT_DEFER_MS;
  const records = deferred.map(({ task, reason }) =>
    copyWith(task, { limitDeferral: { reason, until }, updateTime: now }),
  );
  const written = new Set(await tx.updateOpenTasks(records));
  const back = records.filter((t) => written.has(t.taskId)).map((t) => t.taskId);
  const ended = records.filter((t) => !written.has(t.taskId)).map((t) => t.taskId);
  if (back.length > 0) await tx.deferMessages(back, until);
  if (ended.length > 0) await tx.removeMessages(ended);
  return heldBack;
}
