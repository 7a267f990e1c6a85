import type { RunRecord, TaskLog, TaskRecord } from '@baton/protocol';

import type { Clock } from '../clock.js';
import { decide } from '../engine/decide.js';
import { newRunRecord } from '../engine/new-run.js';
import type { ScriptRunner } from '../engine/scripts.js';
import type { Command, Decision, EngineEvent, EngineSettings, NewRunInput } from '../engine/types.js';
import { workerTaskNames } from '../engine/graph.js';
import { newId } from '../ids.js';
import type { QueueMessage, Tx } from '../store/store.js';
import { loadMailbox, runWakeName } from './run-wake.js';

/** What a transaction wants done once it has committed (wake-ups are never sent for rolled-back work). */
export interface AfterCommit {
  wakeQueues: Set<string>;
}

export function afterCommit(): AfterCommit {
  return { wakeQueues: new Set() };
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
  ) {}

  /** The time this executor decides at (the injected clock). */
  now(): number {
    return this.clock.now();
  }

  /** Inserts a new run and decides its first step. */
  async startRun(
    tx: Tx,
    input: Omit<NewRunInput, 'now' | 'workflowId'> & { workflowId?: string },
    after: AfterCommit,
  ): Promise<RunRecord> {
    const now = this.clock.now();
    const run = newRunRecord({ ...input, workflowId: input.workflowId ?? newId(), now });
    const decision = await this.decideFor(tx, run, [], { type: 'START' }, now);
    // The run row goes in once, already carrying what its first decision changed.
    await tx.insertRun(decision.run);
    await this.apply(tx, decision, after, false);
    return decision.run;
  }

  /**
   * Inserts a run made by retry or rerun with the tasks it starts from (copies of the
   * original's, not yet acted on) and decides its first step over them.
   */
  async startPrepared(
    tx: Tx,
    run: RunRecord,
    tasks: readonly TaskRecord[],
    event: EngineEvent,
    after: AfterCommit,
  ): Promise<RunRecord> {
    const decision = await this.decideFor(tx, run, tasks, event, this.clock.now());
    await tx.insertRun(decision.run);
    if (tasks.length > 0) await tx.insertTasks(tasks);
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
    const mailbox = await loadMailbox(tx, run);
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
        ...(mailbox !== undefined && { mailbox }),
      },
      event,
    );
  }

  private async apply(tx: Tx, decision: Decision, after: AfterCommit, writeRun: boolean): Promise<void> {
    if (decision.ignored) return;
    if (decision.runChanged && writeRun) await tx.updateRun(decision.run);
    if (decision.newTasks.length > 0) await tx.insertTasks(decision.newTasks);
    if (decision.updatedTasks.length > 0) await tx.updateTasks(decision.updatedTasks);
    await this.applyCommands(tx, decision.run.workflowId, decision.commands, after);
    // Waiters on this run (sync execute) are woken after commit, on every node.
    const runWake = runWakeName(decision.run.workflowId);
    after.wakeQueues.add(runWake);
    await tx.notifyQueues([runWake]);
  }

  private async applyCommands(
    tx: Tx,
    workflowId: string,
    commands: readonly Command[],
    after: AfterCommit,
  ): Promise<void> {
    const now = this.clock.now();
    const enqueue: QueueMessage[] = [];
    const dequeue: string[] = [];
    const wake = new Set<string>();
    for (const command of commands) {
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
        case 'ARM_TIMER':
          // No kind arms timers yet; the timer store and loop come with the task lifecycle.
          throw new Error(`${command.type}: durable timers are not stored by this build yet`);
        case 'CANCEL_TIMERS':
          // Nothing arms timers in this build, so there is none to cancel.
          break;
        case 'TAKE_MESSAGES':
          await tx.deleteRunMessages(workflowId, command.messageIds);
          break;
      }
    }
    if (dequeue.length > 0) await tx.removeMessages(dequeue);
    if (enqueue.length > 0) await tx.enqueue(enqueue, now);
    if (wake.size > 0) {
      await tx.notifyQueues([...wake]);
      for (const name of wake) after.wakeQueues.add(name);
    }
  }
}
