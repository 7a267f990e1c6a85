import type { TaskRecord, WaitingFor } from '@baton/protocol';

import type { StoredQueueMessage } from '../store/store.js';
import { describeCall } from './call-description.js';

/**
 * Why an open system call (a task on a `_system-*` queue) waits, in the executor's terms:
 * "queued for the executor", "calling POST https://… (attempt 2 since …)", "document analysis
 * running, next check at T". Undefined where the worker explanations fit as they are (a
 * lapsed lease, a limit deferral).
 */
export function explainSystemCall(
  task: TaskRecord,
  message: StoredQueueMessage,
  now: number,
): WaitingFor | undefined {
  const queueName = message.queueName;
  const what = describeCall(task);
  const attempt = task.retryCount + 1;
  if (message.lockedUntil !== null && message.lockedUntil > now) {
    const since = task.startTime > 0 ? ` since ${at(task.startTime)}` : '';
    const out: WaitingFor = {
      reason: 'lock',
      message: `waiting: calling ${what} (attempt ${attempt}${since}); ${message.workerId ?? 'a node'} holds it until ${at(message.lockedUntil)}`,
      until: message.lockedUntil,
      queueName,
    };
    if (message.workerId !== null) out.workerId = message.workerId;
    return out;
  }
  if (task.status === 'IN_PROGRESS') return undefined; // lease lapsed: the worker explanation says what follows
  if (message.visibleAt > now) {
    const until = message.visibleAt;
    const due = `${at(until)} (in ${Math.max(0, Math.round((until - now) / 1000))} s)`;
    if (task.limitDeferral !== undefined && task.limitDeferral.until === until) return undefined;
    if (task.pollCount > 0)
      return {
        reason: 'callback',
        message: `waiting: ${what} running, next check at ${due}`,
        until,
        queueName,
      };
    if (task.retryCount > 0)
      return {
        reason: 'retry-delay',
        message: `waiting: attempt ${attempt} of ${what} is due at ${due}`,
        until,
        queueName,
      };
    return {
      reason: 'start-delay',
      message: `waiting: ${what} starts after its startDelay, at ${due}`,
      until,
      queueName,
    };
  }
  return {
    reason: 'worker',
    message: `waiting: queued for the executor: ${what} (attempt ${attempt})`,
    queueName,
  };
}

function at(ms: number): string {
  return new Date(ms).toISOString();
}
