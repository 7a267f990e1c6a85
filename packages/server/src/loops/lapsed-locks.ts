import { isTerminalTaskStatus } from '@baton/protocol';

import type { FiredTimer } from '../engine/index.js';
import type { StoredQueueMessage, Tx } from '../store/store.js';
import type { AfterCommit, DecisionApplier } from '../decisions/decision-applier.js';

/**
 * A lock that lapsed is the task's response timeout (docs/design/task-lifecycle.md#lock-expiry):
 * the worker that took it sent no result in time. The timer loop sweeps such locks
 * (`Tx.claimLapsedLocks`, leased to it with its token) and acts on each here, in a transaction
 * holding the run's lock:
 *  - the task still IN_PROGRESS under the sweeper's lease: the run gets the RESPONSE_TIMEOUT
 *    timer event (the attempt is recorded TIMED_OUT and retried by the engine's rules);
 *  - a worker extended the lock meanwhile (its token is no longer the sweeper's): left alone;
 *  - the task ended or is gone (a stale message): the message is removed;
 *  - the task waits for a poll again: the message is made visible now, unlocked.
 * Answers whether the run's timer event was applied.
 */
export async function actOnLapsedLock(
  tx: Tx,
  executor: DecisionApplier,
  lapsed: StoredQueueMessage,
  lease: { lockToken: string },
  now: number,
  after: AfterCommit,
): Promise<boolean> {
  const run = await tx.lockRun(lapsed.workflowId);
  const message = await tx.getMessage(lapsed.taskId);
  // A worker's extension (or any new hand-out, requeue or removal) since the sweep replaced the token.
  if (!message || message.lockToken !== lease.lockToken) return false;
  const task = await tx.getTask(lapsed.taskId);
  if (!run || !task || isTerminalTaskStatus(task.status)) {
    await tx.removeMessages([lapsed.taskId]);
    return false;
  }
  if (task.status === 'SCHEDULED') {
    await tx.requeueMessage(lapsed.taskId, now);
    await tx.notifyQueues([message.queueName]);
    after.wakeQueues.add(message.queueName);
    return false;
  }
  const timer: FiredTimer = {
    timerId: `lock:${lapsed.taskId}`,
    workflowId: lapsed.workflowId,
    kind: 'RESPONSE_TIMEOUT',
    dueAt: lapsed.lockedUntil ?? now,
    taskId: lapsed.taskId,
    payload: { ...(lapsed.workerId !== null && { workerId: lapsed.workerId }) },
  };
  await executor.handle(tx, lapsed.workflowId, { type: 'TIMER', timer }, after);
  // The engine had nothing to time out (e.g. the task no longer waits on its queue): the
  // message must not come back to the sweep every lease.
  const left = await tx.getMessage(lapsed.taskId);
  if (left && left.lockToken === lease.lockToken) await tx.removeMessages([lapsed.taskId]);
  return true;
}
