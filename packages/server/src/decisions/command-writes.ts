import { type TaskDef, isTerminalTaskStatus, isTerminalWorkflowStatus } from '@baton/protocol';

import { mayHoldTaskTimers, type Command, type Decision } from '../engine/index.js';
import type { TimerRecord, Tx } from '../store/store.js';

/** The executor's writes for the task lifecycle commands (dead letters, timers), in its transaction. */

/** Moves the message to the dead-letter queue, recreating it there when it has gone missing. */
export async function deadLetterMessage(
  tx: Tx,
  workflowId: string,
  d: Extract<Command, { type: 'DEAD_LETTER' }>,
  now: number,
): Promise<void> {
  if (await tx.deadLetterMessage(d.taskId)) return;
  await tx.enqueue(
    [
      {
        taskId: d.taskId,
        queueName: d.queueName,
        workflowId,
        taskRef: d.taskRef,
        attempt: d.attempt,
        priority: d.priority,
        visibleAt: now,
        lockMs: d.lockMs,
      },
    ],
    now,
  );
  await tx.deadLetterMessage(d.taskId);
}

/**
 * Timers follow the state they guard: an ended run keeps none, an ended task keeps none (whatever
 * kind armed them), and the decision's new timers are written last. Answers the earliest due
 * time armed (for the timer loop), if any.
 */
export async function syncTimers(
  tx: Tx,
  decision: Decision,
  arm: readonly TimerRecord[],
  now: number,
  /** The task definitions of the decision: an ended task that can hold no timer is skipped. */
  taskDefs?: ReadonlyMap<string, TaskDef>,
): Promise<number | undefined> {
  const workflowId = decision.run.workflowId;
  if (isTerminalWorkflowStatus(decision.run.status)) {
    if (decision.runChanged) await tx.dropTimers({ workflowId });
    return undefined;
  }
  const ended = decision.updatedTasks
    .filter((t) => isTerminalTaskStatus(t.status) && (!taskDefs || mayHoldTaskTimers(t, taskDefs)))
    .map((t) => t.taskId);
  if (ended.length > 0) await tx.dropTimers({ workflowId, taskIds: ended });
  if (arm.length === 0) return undefined;
  await tx.armTimers(arm, now);
  return Math.min(...arm.map((t) => t.dueAt));
}
