import type { TaskRecord } from '@baton/protocol';

import { isSystemQueue, SYSTEM_CALL_ENDED_WAKE, type Decision } from '../engine/index.js';
import type { Tx } from '../store/store.js';
import type { AfterCommit } from './after-commit.js';

/** Statuses only someone other than the executor making a call gives its task. */
const ENDED_ELSEWHERE: ReadonlySet<string> = new Set(['CANCELED', 'TIMED_OUT', 'SKIPPED']);

function endsCallInFlight(task: TaskRecord): boolean {
  return isSystemQueue(task.queueName) && ENDED_ELSEWHERE.has(task.status);
}

/**
 * A system call ended by someone other than the executor making it (terminate, a parent's
 * end, a timeout, skip): every node is told, in-process and through the store's notifications
 * once this transaction commits, so the node holding the call looks at once and aborts it.
 */
export async function signalEndedCalls(tx: Tx, decision: Decision, after: AfterCommit): Promise<void> {
  if (!decision.updatedTasks.some(endsCallInFlight)) return;
  after.wakeQueues.add(SYSTEM_CALL_ENDED_WAKE);
  await tx.notifyQueues([SYSTEM_CALL_ENDED_WAKE]);
}
