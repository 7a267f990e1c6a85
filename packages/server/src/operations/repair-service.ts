import {
  isTerminalWorkflowStatus,
  type RepairAnswer,
  type RequeueAnswer,
  type TaskRecord,
} from '@baton/protocol';

import type { Clock } from '../clock.js';
import { SYSTEM_QUEUE_PREFIX, systemCallKindOf, systemQueueName } from '../engine/index.js';
import { fail } from '../errors.js';
import { newId } from '../ids.js';
import type { WakeBus } from '../queue/wake-bus.js';
import type { Store, Tx } from '../store/store.js';
import { afterCommit, type AfterCommit, type DecisionApplier } from '../decisions/decision-applier.js';
import { attemptAfterCommit, type HandOffAttempts, settledWith } from '../decisions/after-commit.js';
import { copyWith } from '../copy-with.js';

/**
 * Operator actions on the task lifecycle (docs/design/task-lifecycle.md#dead-letters-and-repair):
 * requeueing dead letters, repairing a run's queue messages, and making a run's delayed messages
 * visible now. Each change to a run happens in one transaction that locks the run first.
 */
export class RepairService {
  constructor(
    private readonly store: Store,
    private readonly executor: DecisionApplier,
    private readonly wake: WakeBus,
    private readonly clock: Clock,
    /** This node's waiting polls, handed the tasks a repair queues (handout/parked-polls.ts). */
    private readonly parkedAttempt?: HandOffAttempts,
  ) {}

  /**
   * `POST /api/workflow/{id}/resetcallbacks`: the run's delayed worker messages (callbacks, retry
   * delays, start delays) become visible now. 404 unknown run, 409 ended run. Answers the task ids.
   */
  async resetCallbacks(workflowId: string): Promise<string[]> {
    const wake = new Set<string>();
    const reset = await this.store.transaction(async (tx) => {
      const run = await tx.lockRun(workflowId);
      if (!run) throw fail('RUN_NOT_FOUND', { workflowId });
      if (isTerminalWorkflowStatus(run.status))
        throw fail('RUN_ENDED', { detail: `Workflow is in terminal state. Status = ${run.status}` });
      const now = this.clock.now();
      const changed: TaskRecord[] = [];
      for (const task of await tx.getRunTasks(workflowId)) {
        if (task.status !== 'SCHEDULED' || task.queueName === undefined) continue;
        const message = await tx.getMessage(task.taskId);
        if (!message || message.deadLettered || message.visibleAt <= now) continue;
        // A message a worker holds is not delayed: it is taken.
        if (message.lockedUntil !== null && message.lockedUntil > now) continue;
        await tx.requeueMessage(task.taskId, now);
        wake.add(message.queueName);
        changed.push(copyWith(task, { callbackAfterSeconds: 0, updateTime: now }));
      }
      const written = await tx.updateOpenTasks(changed);
      if (wake.size > 0) await tx.notifyQueues([...wake]);
      return written;
    });
    this.wake.wake([...wake]);
    return reset;
  }

  /**
   * `POST /api/admin/requeue/{type}`: every dead letter of the type's queues (any domain, high
   * or not) is reopened as a new attempt in its run; a run that had failed because of it returns
   * to RUNNING. Dead letters whose run no longer waits on them are left and reported.
   */
  async requeueDeadLetters(taskType: string): Promise<RequeueAnswer> {
    const dead = await this.store.read(async (tx) => {
      const target = requeueTarget(taskType);
      const queues = (await tx.listQueues()).filter((q) => isQueueOfType(q, target.queueType));
      const messages = await tx.deadLetteredMessages(queues);
      const tasks = new Map((await tx.getTasks(messages.map((m) => m.taskId))).map((t) => [t.taskId, t]));
      // `{domain}-{type}` cannot be told from a type with a dash by its name: the task says.
      return messages.filter((m) => target.takes(tasks.get(m.taskId)?.taskType));
    });
    const answer: RequeueAnswer = { taskType, requeued: [], skipped: [] };
    for (const message of dead) {
      type Outcome = { requeued: RequeueAnswer['requeued'][number] } | { skipped: string };
      const held: Pick<AfterCommit, 'parked'> = {};
      let after = afterCommit();
      const transaction = this.store.transaction(async (tx): Promise<Outcome> => {
        // Fresh for each try: a transaction run again (deadlock) must not report twice.
        after = attemptAfterCommit(held, this.parkedAttempt);
        const run = await tx.lockRun(message.workflowId);
        if (!run) return { skipped: 'the run no longer exists' };
        const current = await tx.getMessage(message.taskId);
        if (!current?.deadLettered) return { skipped: 'no longer dead-lettered' };
        const statusBefore = run.status;
        const decision = await this.executor.handle(
          tx,
          message.workflowId,
          { type: 'REQUEUE_TASK', taskId: message.taskId },
          after,
        );
        if (!decision || decision.ignored)
          return { skipped: `the run is ${statusBefore} and no longer waits on this task` };
        const newTask = decision.newTasks.find((t) => t.retriedTaskId === message.taskId);
        return {
          requeued: {
            workflowId: message.workflowId,
            taskId: message.taskId,
            newTaskId: newTask?.taskId ?? '',
            taskRef: message.taskRef,
            runReopened: statusBefore !== decision.run.status,
          },
        };
      });
      const outcome = await settledWith(held, transaction);
      this.publish(after);
      if ('requeued' in outcome) answer.requeued.push(outcome.requeued);
      else
        answer.skipped.push({
          workflowId: message.workflowId,
          taskId: message.taskId,
          reason: outcome.skipped,
        });
    }
    return answer;
  }

  /**
   * `POST /api/admin/repair/{id}`: re-queues the run's open worker tasks whose message is missing
   * or dead-lettered; a message that is fine is never touched or duplicated. Then re-evaluates
   * the run, so a step left pending moves on. 404 unknown run.
   */
  async repair(workflowId: string): Promise<RepairAnswer> {
    const held: Pick<AfterCommit, 'parked'> = {};
    let after = afterCommit();
    const transaction = this.store.transaction(async (tx) => {
      after = attemptAfterCommit(held, this.parkedAttempt);
      const run = await tx.lockRun(workflowId);
      if (!run) throw fail('RUN_NOT_FOUND', { workflowId });
      const result: RepairAnswer = { workflowId, status: run.status, requeued: [], unchanged: [] };
      if (isTerminalWorkflowStatus(run.status)) return result;
      for (const task of await tx.getRunTasks(workflowId)) {
        if (task.queueName === undefined) continue;
        if (task.status !== 'SCHEDULED' && task.status !== 'IN_PROGRESS') continue;
        const message = await tx.getMessage(task.taskId);
        if (message && !message.deadLettered) {
          result.unchanged.push(task.taskId);
          continue;
        }
        const visibleAt = await this.restoreMessage(tx, task, message !== undefined);
        if (visibleAt <= this.clock.now()) after.wakeQueues.add(task.queueName);
        result.requeued.push({
          taskId: task.taskId,
          taskRef: task.referenceTaskName,
          queueName: task.queueName,
          reason: message ? 'dead-lettered' : 'missing',
        });
      }
      if (after.wakeQueues.size > 0) await tx.notifyQueues([...after.wakeQueues]);
      const decision = await this.executor.handle(tx, workflowId, { type: 'DECIDE' }, after);
      if (decision) result.status = decision.run.status;
      return result;
    });
    const answer = await settledWith(held, transaction);
    this.publish(after);
    return answer;
  }

  /**
   * Puts an open task's message back on its queue. A SCHEDULED task's is visible now. An
   * IN_PROGRESS task may still be worked on: its message comes back locked until its response
   * window ends, so the lock's lapse (the response timeout) makes the next attempt.
   */
  private async restoreMessage(tx: Tx, task: TaskRecord, exists: boolean): Promise<number> {
    const now = this.clock.now();
    const lockMs = task.responseTimeoutSeconds * 1000;
    if (task.status !== 'IN_PROGRESS' && exists) {
      await tx.requeueMessage(task.taskId, now);
      return now;
    }
    const lockedUntil = Math.max(now, task.updateTime + lockMs);
    const held = task.status === 'IN_PROGRESS';
    await tx.enqueue(
      [
        {
          taskId: task.taskId,
          queueName: task.queueName ?? task.taskType,
          workflowId: task.workflowInstanceId,
          taskRef: task.referenceTaskName,
          attempt: task.retryCount + 1,
          priority: task.workflowPriority,
          visibleAt: held ? lockedUntil : now,
          lockMs,
          ...(held && {
            lock: { lockedUntil, lockToken: newId(), workerId: task.workerId ?? 'unknown' },
          }),
        },
      ],
      now,
    );
    if (held) this.executor.timerArmed(lockedUntil);
    return held ? lockedUntil : now;
  }

  private publish(after: AfterCommit): void {
    this.executor.afterCommitted(after, this.wake);
  }
}

/**
 * Which dead letters a requeue by `name` means. A worker task type: its queues, tasks of that
 * type. A system call's type (a Conductor alias such as CALL_MCP_TOOL included, as its tasks
 * and their `waitingFor` show it): its kind's internal queue, tasks of that type. The internal
 * queue's own name (`_system-CALL_TOOL`, as the queue sizes show it): every type on it.
 */
function requeueTarget(name: string): {
  queueType: string;
  takes: (taskType: string | undefined) => boolean;
} {
  const queueKind = name.startsWith(SYSTEM_QUEUE_PREFIX)
    ? systemCallKindOf(name.slice(SYSTEM_QUEUE_PREFIX.length))
    : undefined;
  if (queueKind !== undefined && systemQueueName(queueKind) === name) {
    return { queueType: name, takes: (type) => systemCallKindOf(type) === queueKind };
  }
  const kind = systemCallKindOf(name);
  return { queueType: kind ? systemQueueName(kind) : name, takes: (type) => type === name };
}

/** The queues of a task type: `{type}`, `{domain}-{type}`, each also with `-high`. */
export function isQueueOfType(queueName: string, taskType: string): boolean {
  return (
    queueName === taskType ||
    queueName === `${taskType}-high` ||
    queueName.endsWith(`-${taskType}`) ||
    queueName.endsWith(`-${taskType}-high`)
  );
}
