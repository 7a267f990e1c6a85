import type { StoredTaskDef, TaskRecord } from '@baton/protocol';

import { effectiveTaskDef } from '../engine/index.js';

import type { StoredQueueMessage, Tx } from '../store/store.js';

/**
 * The timers side of a hand-out, in its own transaction (docs/design/task-lifecycle.md#hand-out): a
 * task handed to a worker no longer waits for a poll (its POLL_TIMEOUT, if it has one, is
 * cancelled). Its response deadline is its message's lock, which the timer loop sweeps when it
 * lapses (lapsed-locks.ts), so nothing is armed per hand-out.
 * Answers the earliest lock end, for the timer loop's wake-up.
 */
export async function dropPollTimers(
  tx: Tx,
  taken: readonly TaskRecord[],
  messages: ReadonlyMap<string, StoredQueueMessage>,
  defs: ReadonlyMap<string, StoredTaskDef>,
  now: number,
): Promise<number | undefined> {
  if (taken.length === 0) return undefined;
  // Only a definition with a poll timeout armed one (engine/attempt-timers.ts); a timer armed under
  // settings changed since fires later and is ignored (the task was polled).
  const polled = taken.filter((t) => (effectiveTaskDef(t.workflowTask, defs).pollTimeoutSeconds ?? 0) > 0);
  if (polled.length > 0)
    await tx.dropTimers({ taskIds: polled.map((t) => t.taskId), kinds: ['POLL_TIMEOUT'] });
  return Math.min(
    ...taken.map((t) => messages.get(t.taskId)?.lockedUntil ?? now + t.responseTimeoutSeconds * 1000),
  );
}

/**
 * Claimed messages whose task is already IN_PROGRESS: an attempt a worker may still hold, put
 * back on its queue unlocked (by a release before locks were the response deadline). It is never
 * handed out again: the claim's lock is moved to the end of its response window, when the sweep
 * times it out and the engine makes the next attempt, so one attempt never runs on two workers.
 * Answers the earliest of those lock ends.
 */
export async function lockLapsingAttempts(
  tx: Tx,
  lapsed: readonly TaskRecord[],
  now: number,
): Promise<number | undefined> {
  if (lapsed.length === 0) return undefined;
  let earliest = Infinity;
  for (const task of lapsed) {
    const until = Math.max(now, task.updateTime + task.responseTimeoutSeconds * 1000);
    await tx.extendLock(task.taskId, until);
    earliest = Math.min(earliest, until);
  }
  return earliest;
}
