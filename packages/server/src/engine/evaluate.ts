import {
  isSuccessfulTaskStatus,
  isTerminalTaskStatus,
  type TaskRecord,
  type WorkflowStatus,
  type WorkflowTask,
} from '@baton/protocol';
import type { Flow } from './kinds/flow.js';
import type { ScheduleOutcome, ScheduleRequest, TaskKind } from './kinds/kind.js';
import { firstTask, kindNameOf, nextAfter } from './graph.js';
import { taskKindOf, unsupportedKindMessage } from './kinds/registry.js';
import { canRetry, deadLetter, retryTask } from './attempts.js';
import { retryDelayMs } from './retry.js';
import { failRun, failedTaskNames, runOutput, runStatusForFailedTask, taskFailureReason } from './run-end.js';
import type { RunState } from './run-state.js';
import { inputRefusal, runOutputRefusal } from './payload-bounds.js';
import { enclosingSuffix, iterationOf, placeCommand, placeTask, suffixOf } from './scope.js';
import { effectiveTaskDef } from './task-config.js';
import { MAX_SCRIPTS_PER_STEP, MAX_TASKS_PER_STEP } from '../bounds/ranges.js';
import { copyWith } from '../copy-with.js';

/**
 * Acts on every ended task not yet acted on, in seq order, until none is left: a success
 * schedules what follows it (or, for a container, what it holds), a failure retries, continues
 * (optional) or fails the run; tasks waiting on it (JOIN) check again. Then completes the run
 * when everything is done. Only a RUNNING run moves. Every step works from the indexes of
 * `RunState`, so its cost does not grow with the run's history.
 */
export function evaluate(state: RunState): void {
  if (state.run.status !== 'RUNNING') return;
  const flow = new Interpreter(state);
  // The first task is scheduled when its ref has no task yet: at start, and in a run made by
  // retry or rerun whose copied tasks do not include it.
  const first = firstTask(state.run.workflowDefinition);
  if (first) flow.schedule(first, '');
  flow.recheckAllWaiters();
  let acted = 0;
  while (state.run.status === 'RUNNING') {
    const pending = state.nextPending();
    if (!pending) break;
    if (++acted > MAX_TASKS_PER_STEP || state.scriptCalls >= MAX_SCRIPTS_PER_STEP) {
      // The rest is acted on in a later step (a CONTINUE timer due now), so one decision, and
      // the transaction holding the run, stays bounded even in a loop that never ends.
      state.command({
        type: 'ARM_TIMER',
        timer: { timerId: state.ctx.newId(), kind: 'CONTINUE', dueAt: state.now, payload: {} },
      });
      return;
    }
    actOnEndedTask(flow, pending);
    if (state.run.status === 'RUNNING') flow.recheckWaitersOn(pending.referenceTaskName);
  }
  if (state.run.status === 'RUNNING' && isRunComplete(state)) {
    const permissive = permissiveFailures(state);
    const first = permissive[0];
    if (first) {
      const reason = permissive.map((t) => taskFailureReason(t, runStatusForFailedTask(t))).join('. ');
      failRun(state, 'FAILED', reason, first);
      return;
    }
    const output = runOutput(state);
    const refusal = runOutputRefusal(state, output);
    if (refusal !== undefined) {
      failRun(state, 'FAILED', refusal);
      return;
    }
    state.updateRun({ status: 'COMPLETED', endTime: state.now, output, ...failedTaskNames(state) });
  }
}

function actOnEndedTask(flow: Interpreter, ended: TaskRecord): void {
  const state = flow.state;
  const task = state.updateTask(ended, { executed: true });
  if (task.retried) return;
  const workflowTask = task.workflowTask;
  const kind = taskKindOf(workflowTask);
  if (isSuccessfulTaskStatus(task.status)) {
    // A skipped task did nothing: a skipped container is passed over whole.
    if (kind?.onSuccess && task.status !== 'SKIPPED') kind.onSuccess(flow, task);
    else flow.continueAfter(task);
    return;
  }
  const config = effectiveTaskDef(workflowTask, state.ctx.taskDefs);
  const delayMs = retryDelayMs(config, task.retryCount, state.ctx.random);
  if (canRetry(state, task, delayMs)) {
    retryTask(state, task, delayMs);
    return;
  }
  // No other attempt: a worker task's message goes to the dead-letter queue
  // (docs/design/task-lifecycle.md#retries).
  deadLetter(state, task);
  if (workflowTask.optional === true) {
    // An optional container that failed is passed over whole: nothing inside it runs.
    const continued = state.updateTask(task, { status: 'COMPLETED_WITH_ERRORS' });
    flow.continueAfter(continued);
    return;
  }
  if (workflowTask.permissive === true) {
    // Conductor's permissive task: its failure stays on record and what follows it runs; a
    // JOIN on it fails once all its branches have ended, else the run fails when it would
    // complete (`permissiveFailure`).
    flow.continueAfter(task);
    return;
  }
  const status = runStatusForFailedTask(task);
  failRun(state, status, taskFailureReason(task, status), task);
}

/** The interpreter's moves for one evaluation: scheduling, moving past tasks, waking waiters. */
class Interpreter implements Flow {
  /** Open waiting tasks (JOIN, EXCLUSIVE_JOIN) by the refs they wait on. */
  private readonly waiters = new Map<string, Set<string>>();

  constructor(readonly state: RunState) {
    for (const task of state.openTasks()) this.watch(task, taskKindOf(task.workflowTask));
  }

  schedule(node: WorkflowTask, suffix: string, request: ScheduleRequest = {}): readonly TaskRecord[] {
    const state = this.state;
    if (state.run.status !== 'RUNNING') return [];
    const ref = node.taskReferenceName + suffix;
    const existing = state.latestByRef(ref);
    if (existing) {
      // Skipped before the run reached it (`run-control.ts`): reaching it now moves past it.
      if (existing.status === 'SKIPPED' && existing.executed) this.continueAfter(existing);
      return [];
    }
    const kind = taskKindOf(node);
    if (!kind) {
      this.fail(unsupportedKindMessage(kindNameOf(node)));
      return [];
    }
    const iteration = iterationOf(suffix);
    const outcome = kind.schedule(
      state.scheduleContext(),
      node,
      copyWith(request, { scope: { suffix, iteration } }),
    );
    if (!outcome.ok) {
      this.fail(outcome.reason);
      return [];
    }
    for (const task of outcome.tasks) {
      const refusal = inputRefusal(state, task);
      if (refusal !== undefined) {
        this.fail(refusal);
        return [];
      }
    }
    return this.add(outcome, node, ref, iteration);
  }

  /** Adds what a kind made (placed in its loop scope), then lets each new task's kind react. */
  add(
    outcome: Extract<ScheduleOutcome, { ok: true }>,
    node: WorkflowTask,
    ref: string,
    iteration: number,
  ): TaskRecord[] {
    const base = node.taskReferenceName;
    const tasks = outcome.tasks.map((task) => placeTask(task, base, ref, iteration));
    const commands = outcome.commands.map((command) => placeCommand(command, base, ref));
    this.state.addTasks(tasks);
    this.state.command(...commands);
    for (const task of tasks) this.watch(task, taskKindOf(task.workflowTask));
    for (const task of tasks) {
      const kind = taskKindOf(task.workflowTask);
      const current = this.state.task(task.taskId);
      if (kind?.onScheduled && current && this.state.run.status === 'RUNNING')
        kind.onScheduled(this, current);
    }
    return tasks.map((task) => this.state.task(task.taskId) ?? task);
  }

  continueAfter(task: TaskRecord): void {
    const state = this.state;
    if (state.run.status !== 'RUNNING') return;
    this.recheckWaitersOn(task.referenceTaskName);
    const step = nextAfter(state.run.workflowDefinition, task.workflowTask.taskReferenceName);
    // undefined: a task made at run time (a dynamically forked one), whose JOIN was woken above.
    if (!step || step.type === 'end') return;
    const suffix = suffixOf(task);
    if (step.type === 'task') {
      this.schedule(step.task, suffix);
      return;
    }
    const container = step.container;
    const containerSuffix = kindNameOf(container) === 'DO_WHILE' ? enclosingSuffix(suffix) : suffix;
    const containerTask = state.latestByRef(container.taskReferenceName + containerSuffix);
    if (!containerTask) return;
    taskKindOf(container)?.onBranchEnd?.(this, containerTask, task);
  }

  fail(reason: string): void {
    if (this.state.run.status === 'RUNNING') failRun(this.state, 'FAILED', reason);
  }

  endRun(status: WorkflowStatus, reason: string): void {
    failRun(this.state, status, reason);
  }

  recheckWaitersOn(ref: string): void {
    const ids = this.waiters.get(ref);
    if (!ids) return;
    for (const id of [...ids]) {
      const waiter = this.state.task(id);
      if (!waiter || isTerminalTaskStatus(waiter.status)) {
        ids.delete(id);
        continue;
      }
      if (this.state.run.status !== 'RUNNING') return;
      taskKindOf(waiter.workflowTask)?.recheck?.(this, waiter);
    }
  }

  /** Checks every open waiting task once (a DECIDE after a repair, a re-walked run). */
  recheckAllWaiters(): void {
    const seen = new Set<string>();
    for (const ids of [...this.waiters.values()]) {
      for (const id of ids) {
        if (seen.has(id)) continue;
        seen.add(id);
        const waiter = this.state.task(id);
        if (!waiter || isTerminalTaskStatus(waiter.status) || this.state.run.status !== 'RUNNING') continue;
        taskKindOf(waiter.workflowTask)?.recheck?.(this, waiter);
      }
    }
  }

  private watch(task: TaskRecord, kind: TaskKind | undefined): void {
    if (!kind?.watches || isTerminalTaskStatus(task.status)) return;
    for (const ref of kind.watches(task)) {
      let ids = this.waiters.get(ref);
      if (!ids) this.waiters.set(ref, (ids = new Set()));
      ids.add(task.taskId);
    }
  }
}

/** Schedules one definition node at top level (or with a loop suffix). */
export function scheduleNode(state: RunState, workflowTask: WorkflowTask, suffix = ''): void {
  new Interpreter(state).schedule(workflowTask, suffix);
}

/**
 * Complete when nothing is open or waiting to be acted on and every top-level task of the
 * definition has ended successfully (Conductor's `checkForWorkflowCompletion`).
 */
function isRunComplete(state: RunState): boolean {
  if (state.hasOpenTasks() || state.nextPending()) return false;
  return state.run.workflowDefinition.tasks.every((workflowTask) => {
    const latest = state.latestByRef(workflowTask.taskReferenceName);
    return latest !== undefined && (isSuccessfulTaskStatus(latest.status) || isPermissiveFailure(latest));
  });
}

/** A permissive (not optional) task that ended unsuccessfully with no attempt left. */
function isPermissiveFailure(task: TaskRecord): boolean {
  return (
    task.workflowTask.permissive === true &&
    task.workflowTask.optional !== true &&
    isTerminalTaskStatus(task.status) &&
    !isSuccessfulTaskStatus(task.status) &&
    !task.retried
  );
}

/**
 * The permissive tasks whose last attempt failed (Conductor's check when a run would complete:
 * such a run fails instead, naming each of them).
 */
function permissiveFailures(state: RunState): TaskRecord[] {
  const seen = new Set<string>();
  const failures: TaskRecord[] = [];
  for (const task of state.tasks) {
    if (task.workflowTask.permissive !== true || seen.has(task.referenceTaskName)) continue;
    seen.add(task.referenceTaskName);
    const latest = state.latestByRef(task.referenceTaskName);
    if (latest && isPermissiveFailure(latest)) failures.push(latest);
  }
  return failures;
}
