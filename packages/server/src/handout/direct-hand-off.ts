import type { StoredTaskDef, TaskRecord } from '@baton/protocol';

import { copyWith } from '../copy-with.js';
import type { Command, Decision } from '../engine/index.js';
import { hasHandOutLimits } from './hand-out-limits.js';
import type { HandOffAttempt } from './parked-polls.js';

/**
 * update-v2's worker, asking for its next task while its result is applied: the queues it
 * polls and its id. When the decision queues a task there, the executor fills in `handed`.
 */
export interface HandOffWish {
  readonly queueNames: readonly string[];
  readonly workerId: string;
  handed?: DirectHandOff;
}

export interface DirectHandOff {
  /** The task, IN_PROGRESS for the worker. */
  readonly task: TaskRecord;
  readonly lock: { lockedUntil: number; lockToken: string; workerId: string };
}

/** A queued task as its hand-out to `workerId` at `now` leaves it (a claim's or a direct one). */
export function handedOut(task: TaskRecord, workerId: string, now: number): TaskRecord {
  return copyWith(task, {
    status: 'IN_PROGRESS',
    pollCount: task.pollCount + 1,
    workerId,
    startTime: task.startTime > 0 ? task.startTime : now,
    updateTime: now,
    callbackAfterSeconds: 0,
  });
}

/**
 * Direct hand-off: the first task this decision queues on one of the worker's queues, visible
 * now and of a type without hand-out limits, is written already handed out to that worker (its
 * message locked until its response deadline, its POLL_TIMEOUT never armed), exactly as a poll
 * right after the commit would have left it, without the claim's statements. The worker that
 * finished a run's step takes that run's next step first; work already queued is taken by the
 * next polls. Types with limits keep to the claim, which takes the limit's lock.
 */
export function handOffDirectly(
  decision: Decision,
  wish: HandOffWish,
  taskDefs: ReadonlyMap<string, StoredTaskDef>,
  now: number,
  newId: () => string,
): { decision: Decision; handed?: DirectHandOff } {
  if (decision.ignored || wish.handed !== undefined) return { decision };
  for (const command of decision.commands) {
    if (command.type !== 'ENQUEUE' || command.visibleAt > now) continue;
    if (!wish.queueNames.includes(command.queueName)) continue;
    const task = decision.newTasks.find((t) => t.taskId === command.taskId);
    if (!task || task.status !== 'SCHEDULED' || hasHandOutLimits(task, taskDefs)) continue;
    const handedTask = handedOut(task, wish.workerId, now);
    const lockedUntil = now + command.lockMs;
    const commands: Command[] = decision.commands.filter(
      (c) => !(c.type === 'ARM_TIMER' && c.timer.kind === 'POLL_TIMEOUT' && c.timer.taskId === task.taskId),
    );
    return {
      decision: copyWith(decision, {
        newTasks: decision.newTasks.map((t) => (t.taskId === task.taskId ? handedTask : t)),
        commands,
      }),
      handed: {
        task: handedTask,
        lock: { lockedUntil, lockToken: newId(), workerId: wish.workerId },
      },
    };
  }
  return { decision };
}

/**
 * Hand-off to waiting polls (parked-polls.ts): each task this decision queues, visible now, of a
 * type without hand-out limits and not handed to update-v2's worker already, goes to the poll that
 * has waited longest on its queue with room for it, written as that poll's claim would have left
 * it (IN_PROGRESS for its worker, the message locked until the response deadline, no POLL_TIMEOUT
 * armed). The poll answers it once `attempt`'s transaction has committed.
 */
export function handOffToParked(
  decision: Decision,
  attempt: HandOffAttempt,
  taskDefs: ReadonlyMap<string, StoredTaskDef>,
  now: number,
  newId: () => string,
): { decision: Decision; handed: DirectHandOff[] } {
  // Under load no poll waits: then a decision has nothing to look up.
  if (decision.ignored || !attempt.waiting) return { decision, handed: [] };
  const handed: DirectHandOff[] = [];
  const byId = new Map<string, TaskRecord>();
  for (const command of decision.commands) {
    if (command.type !== 'ENQUEUE' || command.visibleAt > now) continue;
    const task = decision.newTasks.find((t) => t.taskId === command.taskId);
    if (!task || task.status !== 'SCHEDULED' || hasHandOutLimits(task, taskDefs)) continue;
    const poll = attempt.offer(command.queueName);
    if (!poll) continue;
    const handedTask = handedOut(task, poll.workerId, now);
    attempt.handTo(poll, handedTask);
    byId.set(task.taskId, handedTask);
    handed.push({
      task: handedTask,
      lock: { lockedUntil: now + command.lockMs, lockToken: newId(), workerId: poll.workerId },
    });
  }
  if (handed.length === 0) return { decision, handed };
  const commands: Command[] = decision.commands.filter(
    (c) =>
      !(
        c.type === 'ARM_TIMER' &&
        c.timer.kind === 'POLL_TIMEOUT' &&
        c.timer.taskId !== undefined &&
        byId.has(c.timer.taskId)
      ),
  );
  return {
    decision: copyWith(decision, {
      newTasks: decision.newTasks.map((t) => byId.get(t.taskId) ?? t),
      commands,
    }),
    handed,
  };
}

/**
 * Every hand-off of a decision: update-v2's workers first (`wishes`, each its own task, in order),
 * then the node's waiting polls, when its caller settles them (`parked`).
 */
export function handOffAll(
  decision: Decision,
  wishes: readonly HandOffWish[],
  parked: HandOffAttempt | undefined,
  taskDefs: ReadonlyMap<string, StoredTaskDef>,
  now: number,
  newId: () => string,
): { decision: Decision; handed: DirectHandOff[] } {
  const handed: DirectHandOff[] = [];
  for (const wish of wishes) {
    const direct = handOffDirectly(decision, wish, taskDefs, now, newId);
    decision = direct.decision;
    if (direct.handed) handed.push((wish.handed = direct.handed));
  }
  if (!parked) return { decision, handed };
  const toParked = handOffToParked(decision, parked, taskDefs, now, newId);
  return { decision: toParked.decision, handed: [...handed, ...toParked.handed] };
}
