import type { RunRecord, TaskLog, TaskRecord } from '@baton/protocol';

import type { Clock } from '../clock.js';
import { decide } from '../engine/decide.js';
import { newRunRecord } from '../engine/new-run.js';
import type { ScriptRunner } from '../engine/scripts.js';
import type {
  Command,
  Decision,
  EngineAlert,
  EngineEvent,
  EngineSettings,
  NewRunInput,
} from '../engine/types.js';
import { workerTaskNames } from '../engine/graph.js';
import { newId } from '../ids.js';
import type { QueueMessage, TimerRecord, Tx } from '../store/store.js';
import { deadLetterMessage, syncTimers } from './lifecycle-commands.js';

/** What a transaction wants done once it has committed (wake-ups are never sent for rolled-back work). */
export interface AfterCommit {
  wakeQueues: Set<string>;
  /** ALERT commands (timeouts under ALERT_ONLY), for the executor's `onAlert` hook: `Executor.afterCommitted`. */
  alerts: EngineAlert[];
}

export function afterCommit(): AfterCommit {
  return { wakeQueues: new Set(), alerts: [] };
}

/** Outside effects of the executor, set by the composition root. */
export interface ExecutorHooks {
  /** A timeout under ALERT_ONLY was recorded (called after commit): a metric and a warning. */
  onAlert?: (alert: EngineAlert) => void;
  /**
   * A timer due at `dueAt` was armed in the current transaction: a hint for this node's timer
   * loop to wake in time (sent before commit, so the loop re-checks rather than trusts it).
   */
  onTimerArmed?: (dueAt: number) => void;
}

/**
 * The impure glue around the pure interpreter: inside a caller's transaction it loads a run's
 * state, calls `decide`, and writes the run, its tasks and its queue messages together.
 */
export class Executor {
  constructor(
    private readonly clock: Clock,
    private readonly settings: EngineSettings,
    private readonly scripts: ScriptRunner,
    private readonly random: () => number = Math.random,
    private readonly hooks: ExecutorHooks = {},
  ) {}

  /** Runs the after-commit hooks of a committed transaction (alerts). */
  afterCommitted(after: AfterCommit): void {
    const alerts = after.alerts.splice(0);
    for (const alert of alerts) this.hooks.onAlert?.(alert);
  }

  /** Tells this node's timer loop that a timer due at `dueAt` is being armed (hand-out, services). */
  timerArmed(dueAt: number): void {
    this.hooks.onTimerArmed?.(dueAt);
  }

  /** Inserts a new run and decides its first step. */
  async startRun(
    tx: Tx,
    input: Omit<NewRunInput, 'now' | 'workflowId'>,
    after: AfterCommit,
  ): Promise<RunRecord> {
    const now = this.clock.now();
    const run = newRunRecord({ ...input, workflowId: newId(), now });
    const decision = await this.decideFor(tx, run, [], { type: 'START' }, now);
    // The run row goes in once, already carrying what its first decision changed.
    await tx.insertRun(decision.run);
    await this.apply(tx, decision, after, false);
    return decision.run;
  }

  /**
   * Locks the run (one writer per run), decides on the event and applies the decision.
   * Returns undefined when the run does not exist.
   */
  async handle(
    tx: Tx,
    workflowId: string,
    event: EngineEvent,
    after: AfterCommit,
    logs: readonly TaskLog[] = [],
  ): Promise<Decision | undefined> {
    const run = await tx.lockRun(workflowId);
    if (!run) return undefined;
    const tasks = await tx.getRunTasks(workflowId);
    const decision = await this.decideFor(tx, run, tasks, event, this.clock.now());
    await this.apply(tx, decision, after, true);
    if (logs.length > 0) await tx.appendTaskLogs(logs);
    return decision;
  }

  private async decideFor(
    tx: Tx,
    run: RunRecord,
    tasks: readonly TaskRecord[],
    event: EngineEvent,
    now: number,
  ): Promise<Decision> {
    const taskDefs = await tx.getTaskDefs(workerTaskNames(run.workflowDefinition));
    return decide(
      {
        run,
        tasks,
        taskDefs,
        now,
        newId,
        random: this.random,
        settings: this.settings,
        scripts: this.scripts,
      },
      event,
    );
  }

  private async apply(tx: Tx, decision: Decision, after: AfterCommit, writeRun: boolean): Promise<void> {
    if (decision.ignored) return;
    if (decision.runChanged && writeRun) await tx.updateRun(decision.run);
    if (decision.newTasks.length > 0) await tx.insertTasks(decision.newTasks);
    if (decision.updatedTasks.length > 0) await tx.updateTasks(decision.updatedTasks);
    await this.applyCommands(tx, decision, after);
  }

  private async applyCommands(tx: Tx, decision: Decision, after: AfterCommit): Promise<void> {
    const workflowId = decision.run.workflowId;
    const now = this.clock.now();
    const enqueue: QueueMessage[] = [];
    const dequeue: string[] = [];
    const deadLetters: Array<Extract<Command, { type: 'DEAD_LETTER' }>> = [];
    const arm: TimerRecord[] = [];
    const wake = new Set<string>();
    for (const command of decision.commands) {
      switch (command.type) {
        case 'ENQUEUE':
          enqueue.push({
            taskId: command.taskId,
            queueName: command.queueName,
            workflowId,
            taskRef: command.taskRef,
            attempt: command.attempt,
            priority: command.priority,
            visibleAt: command.visibleAt,
            lockMs: command.lockMs,
          });
          if (command.visibleAt <= now) wake.add(command.queueName);
          break;
        case 'DEQUEUE':
          dequeue.push(command.taskId);
          break;
        case 'REQUEUE': {
          const message = await tx.getMessage(command.taskId);
          if (message) {
            await tx.requeueMessage(command.taskId, command.visibleAt);
            if (command.visibleAt <= now) wake.add(message.queueName);
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
          await tx.cancelTimers({
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
      }
    }
    // A dead letter keeps the message (dead-lettered) that a DEQUEUE of the same task would remove.
    const dead = new Set(deadLetters.map((d) => d.taskId));
    const remove = dequeue.filter((taskId) => !dead.has(taskId));
    if (remove.length > 0) await tx.removeMessages(remove);
    if (enqueue.length > 0) await tx.enqueue(enqueue, now);
    for (const d of deadLetters) await deadLetterMessage(tx, workflowId, d, now);
    const armedAt = await syncTimers(tx, decision, arm, now);
    if (armedAt !== undefined) this.timerArmed(armedAt);
    if (wake.size > 0) {
      await tx.notifyQueues([...wake]);
      for (const name of wake) after.wakeQueues.add(name);
    }
  }
}
