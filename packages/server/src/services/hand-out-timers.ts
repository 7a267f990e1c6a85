import type { TaskRecord } from '@baton/protocol';

import { responseTimer } from '../engine/lifecycle-timers.js';
import { newId } from '../ids.js';
import type { StoredQueueMessage, TimerRecord, Tx } from '../store/store.js';

/**
 * Timers of the hand-out, written in the hand-out's own transaction (DESIGN §6): a task handed
 * to a worker no longer waits for a poll (POLL_TIMEOUT cancelled) and gets a RESPONSE_TIMEOUT
 * due when its lock lapses. Answers the earliest due time armed, for the timer loop.
 */
export async function armResponseTimers(
  tx: Tx,
  taken: readonly TaskRecord[],
  messages: ReadonlyMap<string, StoredQueueMessage>,
  now: number,
): Promise<number | undefined> {
  if (taken.length === 0) return undefined;
  await tx.dropTimers({
    taskIds: taken.map((t) => t.taskId),
    kinds: ['POLL_TIMEOUT', 'RESPONSE_TIMEOUT'],
  });
  const timers: TimerRecord[] = taken.map((task) => {
    const lockedUntil = messages.get(task.taskId)?.lockedUntil ?? now + task.responseTimeoutSeconds * 1000;
    return { ...responseTimer(newId(), task, lockedUntil), workflowId: task.workflowInstanceId };
  });
  await tx.armTimers(timers, now);
  return Math.min(...timers.map((t) => t.dueAt));
}

/**
 * Messages whose lock lapsed while their task is still IN_PROGRESS (the worker died or is
 * late). Such an attempt is never handed out again: its RESPONSE_TIMEOUT (due when the lock
 * lapsed) records it TIMED_OUT and queues the next attempt, so one attempt never runs on two
 * workers at once. The message is hidden again for a lock period, and a RESPONSE_TIMEOUT due now
 * is armed for a task that has none (e.g. handed out before timers existed).
 */
export async function holdLapsedAttempts(
  tx: Tx,
  lapsed: readonly TaskRecord[],
  messages: ReadonlyMap<string, StoredQueueMessage>,
  now: number,
): Promise<number | undefined> {
  if (lapsed.length === 0) return undefined;
  for (const task of lapsed) {
    const lockMs = messages.get(task.taskId)?.lockMs ?? task.responseTimeoutSeconds * 1000;
    await tx.requeueMessage(task.taskId, now + lockMs);
  }
  const armed = new Set(
    (await tx.listTimers({ taskIds: lapsed.map((t) => t.taskId), kinds: ['RESPONSE_TIMEOUT'] })).map(
      (t) => t.taskId,
    ),
  );
  const missing: TimerRecord[] = lapsed
    .filter((t) => !armed.has(t.taskId))
    .map((task) => ({ ...responseTimer(newId(), task, now), workflowId: task.workflowInstanceId }));
  if (missing.length === 0) return undefined;
  await tx.armTimers(missing, now);
  return now;
}
