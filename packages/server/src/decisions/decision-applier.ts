import type {
  JsonObject,
  RunRecord,
  RunTrace,
  StoredTaskDef,
  TaskLog,
  TaskRecord,
  WorkflowDef,
  WorkflowStatus,
} from '@baton/protocol';

import type { Clock } from '../clock.js';
import {
  newRunRecord,
  runQueueSince,
  type Decision,
  type EngineEvent,
  type EngineSettings,
  type NewRunInput,
  type StartCommand,
  type TimerKind,
} from '../engine/index.js';
import { replaying, settleScripts, type AsyncScriptRunner } from '../scripting/async-scripts.js';
import { newId } from '../ids.js';
import type { Tx } from '../store/store.js';
import { writeCommands } from './command-writes.js';
import {
  childEndedEvent,
  childReopenedEvent,
  endedBy,
  reopenedBy,
  failureWorkflowInput,
  failureWorkflowName,
  type FollowUp,
  MAX_NESTING,
  MAX_RUNS_PER_STEP,
  firstDecisionOn,
  missingDefinitionReason,
  newSession,
  type Session,
  startedFromRoot,
  startsFailureWorkflow,
  tasksAfter,
} from './linked-runs.js';
import { loadMailbox, runWakeName } from './run-wake.js';
import { signalEndedCalls } from './system-call-ended.js';
import { loadDecideTasks } from './decide-tasks.js';
import { type DirectHandOff, handOffAll, type HandOffWish } from '../handout/direct-hand-off.js';
import { taskDefsForRun, withTaskDefsOf } from './run-task-defs.js';
import { loadInstructions } from '../instructions/instruction-refs.js';
import type { AfterCommit } from './after-commit.js';
import { copyWith } from '../copy-with.js';
import { decideOrFault } from './decide-or-fault.js';
import type { DecisionApplierHooks, ExecutionObserver } from './applier-hooks.js';

export { afterCommit, type AfterCommit } from './after-commit.js';
export type { DecisionApplierHooks, ExecutionObserver, TracedRun } from './applier-hooks.js';

/**
 * The impure glue around the pure interpreter: inside a caller's transaction it loads a run's
 * state, calls `decide`, and writes the run, its tasks and its queue messages together.
 */
export class DecisionApplier {
  constructor(
    private readonly clock: Clock,
    private readonly settings: EngineSettings,
    private readonly scripts: AsyncScriptRunner,
    private readonly random: () => number = Math.random,
    private readonly observer?: ExecutionObserver,
    /** Liveness snapshot for `taskToDomain` comma lists (`DecideContext.isQueuePolled`). */
    private readonly isQueuePolled?: (queueName: string, now: number) => boolean,
    private readonly hooks: DecisionApplierHooks = {},
  ) {}

  /**
   * What a committed transaction asked for, done: the queues it filled woken (`wake`, this node's
   * wake bus), its alerts and the faults of its decisions reported (each once, and only for a
   * change that committed). Every path that decides calls it after its commit.
   */
  afterCommitted(after: AfterCommit, wake: { wake(queueNames: readonly string[]): void }): void {
    wake.wake([...after.wakeQueues]);
    const alerts = after.alerts.splice(0);
    for (const alert of alerts) this.hooks.onAlert?.(alert);
    const faults = after.faults.splice(0);
    for (const { workflowId, event, error } of faults) this.hooks.onFault?.(workflowId, event, error);
  }

  /** Tells this node's timer loop that a timer due at `dueAt` is being armed (hand-out, services). */
  timerArmed(dueAt: number): void {
    this.hooks.onTimerArmed?.(dueAt);
  }

  /** The trace context of a run about to start here (tracing on), made before its transaction. */
  async runTrace(workflowName: string): Promise<RunTrace | undefined> {
    return this.hooks.tracer?.traceRun(undefined, { workflowName });
  }

  /**
   * Runs `work` as a span (an event handler's execution, a schedule's firing) when tracing is on:
   * the runs it starts are children of that span.
   */
  within<T>(name: string, attributes: Record<string, string | number>, work: () => Promise<T>): Promise<T> {
    return this.hooks.tracer ? this.hooks.tracer.within(name, attributes, work) : work();
  }

  /** The time this executor decides at (the injected clock). */
  now(): number {
    return this.clock.now();
  }

  /** Inserts a new run and decides its first step (and starts what it starts, in the same transaction). */
  async startRun(
    tx: Tx,
    input: Omit<NewRunInput, 'now' | 'workflowId'> & { workflowId?: string },
    after: AfterCommit,
  ): Promise<RunRecord> {
    const workflowId = input.workflowId ?? newId();
    const session = newSession(workflowId);
    const run = await this.startIn(
      tx,
      session,
      copyWith<typeof input, { workflowId: string }>(input, { workflowId }),
      after,
    );
    await this.drain(tx, session, after);
    return run;
  }

  /**
   * Inserts a run made by retry or rerun with the tasks it starts from (copies of the
   * original's, not yet acted on), decides its first step over them, and works off what that
   * started (children, failure workflows) in the same transaction.
   */
  async startPrepared(
    tx: Tx,
    run: RunRecord,
    tasks: readonly TaskRecord[],
    event: EngineEvent,
    after: AfterCommit,
  ): Promise<RunRecord> {
    const session = newSession(run.workflowId);
    session.runsStarted++;
    const now = this.clock.now();
    // Traced: the successor has a trace of its own; the attempts copied into it belong to it.
    run.trace ??= await this.hooks.tracer?.traceRun(tx, run);
    this.hooks.tracer?.stampTasks(run, tasks);
    const { decision: decided, taskDefs } = await this.decideFor(tx, run, tasks, event, now, after);
    const settled = await this.settleEnd(tx, session, 'RUNNING', tasks, decided);
    const { decision, handed } = handOffAll(settled, [], after.parked, taskDefs, now, newId);
    await tx.insertRun(decision.run);
    if (tasks.length > 0) await tx.insertTasks(tasks);
    await this.apply(tx, session, decision, after, false, handed);
    if (!decision.ignored) this.observer?.decided(undefined, tasks, decision, now);
    if (!decision.ignored) await this.hooks.onDecided?.(tx, undefined, [], decision, after);
    await this.drain(tx, session, after);
    return decision.run;
  }

  /**
   * Locks the run (one writer per run), decides on the event and applies the decision, then
   * works off what it caused in other runs (children, parents, failure workflows).
   * Returns undefined when the run does not exist.
   */
  async handle(
    tx: Tx,
    workflowId: string,
    event: EngineEvent,
    after: AfterCommit,
    logs: readonly TaskLog[] = [],
    /**
     * update-v2: hand the worker a task this decision queues for it (direct-hand-off.ts); with
     * TASK_RESULTS, one wish a worker, each handed its own task in order.
     */
    wish?: HandOffWish | readonly HandOffWish[],
  ): Promise<Decision | undefined> {
    const session = newSession(workflowId);
    const wishes = wish === undefined ? [] : 'queueNames' in wish ? [wish] : wish;
    const decision = await this.handleIn(tx, session, workflowId, event, after, wishes);
    if (decision && logs.length > 0) await tx.appendTaskLogs(logs);
    await this.drain(tx, session, after);
    return decision;
  }

  private async startIn(
    tx: Tx,
    session: Session,
    input: Omit<NewRunInput, 'now'>,
    after: AfterCommit,
    /** Whether the run counts against the loop guard (not when the first decision asked for it). */
    counted = true,
  ): Promise<RunRecord> {
    const now = this.clock.now();
    const run = newRunRecord(copyWith(input, { now }));
    const trace = input.trace ?? (await this.hooks.tracer?.traceRun(tx, run));
    if (trace !== undefined) run.trace = trace;
    session.started.add(run.workflowId);
    if (counted) session.runsStarted++;
    const { decision: decided, taskDefs } = await this.decideFor(tx, run, [], { type: 'START' }, now, after);
    const settled = await this.settleEnd(tx, session, 'RUNNING', [], decided);
    const { decision, handed } = handOffAll(settled, [], after.parked, taskDefs, now, newId);
    // The run row goes in once, already carrying what its first decision changed.
    await tx.insertRun(decision.run);
    await this.apply(tx, session, decision, after, false, handed);
    if (!decision.ignored) this.observer?.decided(undefined, [], decision, now);
    if (!decision.ignored) await this.hooks.onDecided?.(tx, undefined, [], decision, after);
    return decision.run;
  }

  private async handleIn(
    tx: Tx,
    session: Session,
    workflowId: string,
    event: EngineEvent,
    after: AfterCommit,
    wishes: readonly HandOffWish[] = [],
  ): Promise<Decision | undefined> {
    const run = await tx.lockRun(workflowId);
    if (!run) return undefined;
    const tasks = await loadDecideTasks(tx, workflowId, event);
    const now = this.clock.now();
    const { decision: decided, taskDefs } = await this.decideFor(tx, run, tasks, event, now, after);
    const settled = await this.settleEnd(tx, session, run.status, tasks, decided, () =>
      tx.getRunTasks(workflowId),
    );
    // A run that ended and runs again tells its parent, which resumes in its own decision (and
    // tells its own parent in turn): the chain of ancestors follows, one run locked at a time.
    const reopened = reopenedBy(run.status, settled) ? childReopenedEvent(settled.run) : undefined;
    if (reopened && settled.run.parentWorkflowId !== undefined) {
      session.followUps.push({ kind: 'event', workflowId: settled.run.parentWorkflowId, event: reopened });
    }
    const { decision, handed } = handOffAll(settled, wishes, after.parked, taskDefs, now, newId);
    await this.apply(tx, session, decision, after, true, handed, taskDefs);
    if (!decision.ignored) this.observer?.decided(run, tasks, decision, now);
    if (!decision.ignored && event.type === 'SIGNAL')
      this.hooks.tracer?.signalled(decision.run, event.status, now);
    if (!decision.ignored) await this.hooks.onDecided?.(tx, run, tasks, decision, after);
    return decision;
  }

  /**
   * A run this decision ends: its parent is woken (CHILD_ENDED), and a failed, timed-out or
   * terminated run starts its definition's failure workflow, whose id (or why it could not
   * start) goes on the run's output as `conductor.failure_workflow`. Every way a run ends
   * passes here, so a new way (operator terminate, TERMINATE task) gets both without more code.
   */
  private async settleEnd(
    tx: Tx,
    session: Session,
    before: WorkflowStatus,
    tasks: readonly TaskRecord[],
    decision: Decision,
    /** Every task of the run, when `tasks` is only the decide set (a failure workflow's input shows them all). */
    allTasks?: () => Promise<readonly TaskRecord[]>,
  ): Promise<Decision> {
    if (!endedBy(before, decision)) return decision;
    let run = decision.run;
    const after = tasksAfter(tasks, decision);
    const name = startsFailureWorkflow(run.status) ? failureWorkflowName(run, after) : undefined;
    if (name !== undefined) {
      const version = run.workflowDefinition.failureWorkflowVersion;
      const definition =
        session.runsStarted < MAX_RUNS_PER_STEP ? await tx.getWorkflowDef(name, version) : undefined;
      let note: string;
      if (definition) {
        note = newId();
        session.followUps.push({
          kind: 'failure-workflow',
          workflowId: note,
          definition,
          input: failureWorkflowInput(run, allTasks ? tasksAfter(await allTasks(), decision) : after),
          ...(run.correlationId !== undefined && { correlationId: run.correlationId }),
          taskToDomain: run.taskToDomain,
          priority: run.priority,
        });
        session.runsStarted++;
      } else {
        note =
          session.runsStarted < MAX_RUNS_PER_STEP
            ? `Error starting failure workflow ${name}: ${missingDefinitionReason(name, version)}`
            : `Error starting failure workflow ${name}: more than ${MAX_RUNS_PER_STEP} runs started in one step`;
      }
      run = copyWith(run, { output: copyWith(run.output, { 'conductor.failure_workflow': note }) });
    }
    const wake = childEndedEvent(run);
    if (wake && run.parentWorkflowId !== undefined) {
      session.followUps.push({ kind: 'event', workflowId: run.parentWorkflowId, event: wake });
    }
    return run === decision.run ? decision : copyWith(decision, { run, runChanged: true });
  }

  /** Works off the follow-ups in order; each may add more (a child that ends at once wakes its parent). */
  private async drain(tx: Tx, session: Session, after: AfterCommit): Promise<void> {
    for (let next = session.followUps.shift(); next; next = session.followUps.shift()) {
      await this.followUp(tx, session, next, after);
    }
  }

  private async followUp(tx: Tx, session: Session, item: FollowUp, after: AfterCommit): Promise<void> {
    switch (item.kind) {
      case 'event':
        await this.handleIn(tx, session, item.workflowId, item.event, after);
        return;
      case 'failure-workflow':
        await this.startIn(
          tx,
          session,
          {
            workflowId: item.workflowId,
            definition: item.definition,
            input: item.input,
            priority: item.priority,
            taskToDomain: item.taskToDomain,
            ...(item.correlationId !== undefined && { correlationId: item.correlationId }),
          },
          after,
        );
        return;
      case 'start':
        await this.startLinked(tx, session, item, after);
        return;
    }
  }

  /**
   * A run start put off to a later transaction: a `START_RUN` timer on the run that asked, due
   * now, holding the command; when it fires, the run's task asks for the start again
   * (engine/timer-events.ts), in a transaction of its own.
   */
  private async putOff(tx: Tx, workflowId: string, command: StartCommand): Promise<void> {
    const now = this.clock.now();
    await tx.armTimers(
      [
        {
          timerId: newId(),
          workflowId,
          taskId: command.taskId,
          kind: 'START_RUN' satisfies TimerKind,
          dueAt: now,
          payload: { command: command as unknown as JsonObject },
        },
      ],
      now,
    );
    this.timerArmed(now);
  }

  /** Starts a SUB_WORKFLOW child or a START_WORKFLOW run; a failure fails the task that asked. */
  private async startLinked(
    tx: Tx,
    session: Session,
    { parent, command, first }: Extract<FollowUp, { kind: 'start' }>,
    after: AfterCommit,
  ): Promise<void> {
    const fail = (reason: string): Promise<unknown> =>
      this.handleIn(
        tx,
        session,
        parent.workflowId,
        command.type === 'START_CHILD'
          ? { type: 'CHILD_NOT_STARTED', taskId: command.taskId, reason }
          : {
              type: 'TASK_RESULT',
              result: {
                taskId: command.taskId,
                workflowInstanceId: parent.workflowId,
                status: 'FAILED',
                reasonForIncompletion: reason,
              },
            },
        after,
      );
    if (!first && session.runsStarted >= MAX_RUNS_PER_STEP) {
      // A run this transaction started that starts more: a workflow that starts itself. Any
      // other (the run the transaction is for, or one that was there before it, decided again):
      // a loop over children that end at once, which goes on in a later transaction.
      if (startedFromRoot(session, parent.workflowId)) {
        await fail(`more than ${MAX_RUNS_PER_STEP} runs started in one step: does a workflow start itself?`);
        return;
      }
      await this.putOff(tx, parent.workflowId, command);
      return;
    }
    const isChild = command.type === 'START_CHILD';
    if (isChild && (await this.nestingDepth(tx, parent)) >= MAX_NESTING) {
      await fail(`sub-workflows nest deeper than ${MAX_NESTING} levels`);
      return;
    }
    const definition: WorkflowDef | undefined =
      command.definition ?? (await tx.getWorkflowDef(command.name, command.version));
    if (!definition) {
      await fail(missingDefinitionReason(command.name, command.version));
      return;
    }
    const correlationId = isChild ? parent.correlationId : command.correlationId;
    // Traced: a run a task starts (SUB_WORKFLOW, START_WORKFLOW) is a child of that task's span.
    const trace = await this.hooks.tracer?.traceRun(tx, {
      workflowName: definition.name,
      parentWorkflowId: parent.workflowId,
      parentWorkflowTaskId: command.taskId,
      parentTrace: parent.trace,
    });
    await this.startIn(
      tx,
      session,
      {
        workflowId: isChild ? command.childWorkflowId : command.workflowId,
        definition,
        input: command.input,
        priority: command.priority,
        taskToDomain: command.taskToDomain,
        ...(correlationId !== undefined && { correlationId }),
        ...(isChild && {
          parentWorkflowId: parent.workflowId,
          parentWorkflowTaskId: command.taskId,
          // A child is work of the run under way that started it: its tasks stand in their
          // queues with that run's (engine/queue-order.ts).
          queueSince: runQueueSince(parent),
        }),
        ...(command.definition !== undefined &&
          command.definitionFromData === true && { definitionFromData: true }),
        ...(trace !== undefined && { trace }),
      },
      after,
      !first,
    );
    if (!isChild) {
      await this.handleIn(
        tx,
        session,
        parent.workflowId,
        {
          type: 'TASK_RESULT',
          result: {
            taskId: command.taskId,
            workflowInstanceId: parent.workflowId,
            status: 'COMPLETED',
            outputData: { workflowId: command.workflowId },
          },
        },
        after,
      );
    }
  }

  /** How many runs are above this one (0 for a top-level run). */
  private async nestingDepth(tx: Tx, run: RunRecord): Promise<number> {
    let depth = 0;
    let parentId = run.parentWorkflowId;
    while (parentId !== undefined && depth < MAX_NESTING) {
      depth++;
      parentId = (await tx.getRun(parentId))?.parentWorkflowId;
    }
    return depth;
  }

  private async decideFor(
    tx: Tx,
    run: RunRecord,
    tasks: readonly TaskRecord[],
    event: EngineEvent,
    now: number,
    after: AfterCommit,
  ): Promise<{ decision: Decision; taskDefs: ReadonlyMap<string, StoredTaskDef> }> {
    const loaded = await taskDefsForRun(tx, run.workflowDefinition, tasks);
    const mailbox = await loadMailbox(tx, run);
    const instructions = await loadInstructions(tx, run.workflowDefinition);
    let used: ReadonlyMap<string, StoredTaskDef> = loaded.defs;
    const decision = await withTaskDefsOf(tx, loaded, (taskDefs) => {
      used = taskDefs;
      // Scripts run on script threads while decide stays pure and synchronous: decide runs again
      // once each script it asked for has answered, with the same ids and random numbers.
      const ids = replaying(newId);
      const random = replaying(this.random);
      return settleScripts(this.scripts, (scripts) => {
        ids.rewind();
        random.rewind();
        return decideOrFault(
          {
            run,
            tasks,
            taskDefs,
            now,
            newId: ids.next,
            random: random.next,
            settings: this.settings,
            scripts,
            ...(this.isQueuePolled && {
              isQueuePolled: (queueName: string) => this.isQueuePolled?.(queueName, now) === true,
            }),
            ...(mailbox !== undefined && { mailbox }),
            ...(instructions !== undefined && { instructions }),
          },
          event,
          (workflowId, type, error) => after.faults.push({ workflowId, event: type, error }),
        );
      });
    });
    this.hooks.tracer?.stampTasks(decision.run, decision.newTasks);
    return { decision, taskDefs: used };
  }

  private async apply(
    tx: Tx,
    session: Session,
    decision: Decision,
    after: AfterCommit,
    writeRun: boolean,
    handed: readonly DirectHandOff[] = [],
    taskDefs?: ReadonlyMap<string, StoredTaskDef>,
  ): Promise<void> {
    const firstDecision = firstDecisionOn(session, decision.run.workflowId);
    if (decision.ignored) return;
    if (decision.runChanged && writeRun) await tx.updateRun(decision.run);
    if (decision.newTasks.length > 0) await tx.insertTasks(decision.newTasks);
    if (decision.updatedTasks.length > 0) await tx.updateTasks(decision.updatedTasks);
    const armedAt = await writeCommands(tx, decision, {
      followUps: session.followUps,
      firstDecision,
      after,
      now: this.clock.now(),
      handed,
      taskDefs,
    });
    if (armedAt !== undefined) this.timerArmed(armedAt);
    await signalEndedCalls(tx, decision, after);
    // Waiters on this run (sync execute) are woken after commit: on this node always (nothing
    // leaves the process), on every node only while a synchronous execute may wait for it. For
    // most runs nobody waits, and a notification costs a statement, about 0.1 ms of PostgreSQL
    // CPU (its sender and every listening session) and a wake-up of every node: at light load,
    // one per step.
    const runWake = runWakeName(decision.run.workflowId);
    after.wakeQueues.add(runWake);
    if ((decision.run.syncWaitUntil ?? 0) >= this.clock.now()) await tx.notifyQueues([runWake]);
  }
}
