import {
  type StoredTaskDef,
  type TaskDef,
  isTerminalTaskStatus,
  isTerminalWorkflowStatus,
} from '@baton/protocol';

import { mayHoldTaskTimers, type Command, type Decision } from '../engine/index.js';
import type { QueueMessage, TimerRecord, Tx } from '../store/store.js';
import type { DirectHandOff } from '../handout/direct-hand-off.js';
import { OUTBOX_WAKE } from '../store/ports/events.js';
import type { AfterCommit } from './after-commit.js';
import type { FollowUp } from './linked-runs.js';

/** The executor's writes for a decision's commands (queue, timers, dead letters, outbox), in its transaction. */

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

/** Where a decision's commands go besides the store: what the caller works off and does after commit. */
export interface CommandContext {
  /** Runs to start or wake once this decision is written (linked-runs.ts). */
  followUps: FollowUp[];
  /** Whether the runs this decision starts are outside the loop guard (linked-runs.ts `firstDecisionOn`). */
  firstDecision: boolean;
  after: AfterCommit;
  now: number;
  /** update-v2's direct hand-offs: the tasks queued already locked for their workers. */
  handed?: readonly DirectHandOff[] | undefined;
  taskDefs?: ReadonlyMap<string, StoredTaskDef> | undefined;
}

/**
 * Writes a decision's commands in its transaction: queue messages, timers, dead letters, outbox
 * rows, mailbox takes; queues the runs it starts or ends as follow-ups, and the queues to wake
 * after commit. Answers when the earliest timer it armed is due, for this node's timer loop.
 */
export async function writeCommands(
  tx: Tx,
  decision: Decision,
  { followUps, firstDecision, after, now, handed, taskDefs }: CommandContext,
): Promise<number | undefined> {
  const run = decision.run;
  const workflowId = run.workflowId;
  const enqueue: QueueMessage[] = [];
  const dequeue: string[] = [];
  const deadLetters: Array<Extract<Command, { type: 'DEAD_LETTER' }>> = [];
  const arm: TimerRecord[] = [];
  const wake = new Set<string>();
  for (const command of decision.commands) {
    switch (command.type) {
      case 'ENQUEUE': {
        const lock = handed?.find((h) => h.task.taskId === command.taskId)?.lock;
        enqueue.push({
          taskId: command.taskId,
          queueName: command.queueName,
          workflowId,
          taskRef: command.taskRef,
          attempt: command.attempt,
          priority: command.priority,
          visibleAt: command.visibleAt,
          lockMs: command.lockMs,
          ...(lock && { lock }),
        });
        // A message queued already handed out wakes nobody. A delayed one (a retry's delay)
        // wakes the polls waiting on its queue too: each re-reads the queue's next due time
        // and sleeps until then, instead of until its own timeout (task-service.ts poll).
        if (!lock) wake.add(command.queueName);
        break;
      }
      case 'DEQUEUE':
        dequeue.push(command.taskId);
        break;
      case 'REQUEUE': {
        const message = await tx.getMessage(command.taskId);
        if (message) {
          await tx.requeueMessage(command.taskId, command.visibleAt);
          // Due now or later (callbackAfterSeconds): either way waiting polls must know.
          wake.add(message.queueName);
        }
        break;
      }
      case 'EXTEND_LOCK':
        await tx.extendLock(command.taskId, command.lockedUntil);
        break;
      case 'ARM_TIMER': {
        const t = command.timer;
        arm.push({
          timerId: t.timerId,
          workflowId,
          kind: t.kind,
          dueAt: t.dueAt,
          payload: t.payload ?? {},
          ...(t.taskId !== undefined && { taskId: t.taskId }),
        });
        break;
      }
      case 'CANCEL_TIMERS':
        // At once, in order: a timer armed later in the same decision is kept.
        await tx.dropTimers({
          workflowId,
          ...(command.taskId !== undefined && { taskIds: [command.taskId] }),
          ...(command.kinds !== undefined && { kinds: command.kinds }),
        });
        break;
      case 'DEAD_LETTER':
        deadLetters.push(command);
        break;
      case 'ALERT':
        after.alerts.push(command.alert);
        break;
      case 'START_CHILD':
      case 'START_WORKFLOW':
        // Started once this decision is fully written (see linked-runs.ts).
        followUps.push({ kind: 'start', parent: run, command, first: firstDecision });
        break;
      case 'TERMINATE_CHILD':
        followUps.push({
          kind: 'event',
          workflowId: command.childWorkflowId,
          event: { type: 'PARENT_ENDED', reason: command.reason },
        });
        break;
      case 'TAKE_MESSAGES':
        await tx.deleteRunMessages(run.workflowId, command.messageIds);
        break;
      case 'PUBLISH_EVENT':
        // The outbox row commits with the task that produced it; the relay sends it after commit.
        await tx.events.appendOutbox([
          { sink: command.sink, messageId: command.messageId, payload: command.payload, createdAt: now },
        ]);
        wake.add(OUTBOX_WAKE);
        break;
    }
  }
  // A dead letter keeps the message (dead-lettered) that a DEQUEUE of the same task would remove.
  const dead = new Set(deadLetters.map((d) => d.taskId));
  const remove = dequeue.filter((taskId) => !dead.has(taskId));
  if (remove.length > 0) await tx.removeMessages(remove);
  if (enqueue.length > 0) await tx.enqueue(enqueue, now);
  for (const d of deadLetters) await deadLetterMessage(tx, workflowId, d, now);
  const armedAt = await syncTimers(tx, decision, arm, now, taskDefs);
  if (wake.size > 0) {
    await tx.notifyQueues([...wake]);
    for (const name of wake) after.wakeQueues.add(name);
  }
  return armedAt;
}
