import {
  isTerminalTaskStatus,
  isTerminalWorkflowStatus,
  type RunRecord,
  type SpecificErrorCode,
  type TaskRecord,
} from '@baton/protocol';
import { evaluate } from './evaluate.js';
import { findTask, isWorkerTask } from './graph.js';
import { failRun } from './run-end.js';
import type { RunState } from './run-state.js';
import { applyMailbox, applySignal } from './signals.js';
import { systemTaskRecord } from './task-record.js';
import type { Decision, RunControlEvent } from './types.js';
import { copyWith } from '../copy-with.js';

/**
 * Operators' run operations as engine events. Each is applied to a run whose row the caller
 * has locked; the caller first asks the matching `…Rejection` function, which names why the
 * run's current state does not allow the operation (answered as 404/409, changing nothing).
 * An event that does not apply to the run as it stands is ignored (changes nothing).
 */
export function decideRunControl(state: RunState, event: RunControlEvent): Decision {
  switch (event.type) {
    case 'PAUSE':
      if (state.run.status !== 'RUNNING') return state.decision(true);
      state.updateRun({ status: 'PAUSED' });
      return state.decision();
    case 'RESUME':
      if (state.run.status !== 'PAUSED') return state.decision(true);
      state.updateRun({ status: 'RUNNING' });
      evaluate(state);
      return state.decision();
    case 'TERMINATE':
      if (isTerminalWorkflowStatus(state.run.status)) return state.decision(true);
      // Every timer of the run goes with it; open tasks are canceled by the run end.
      state.command({ type: 'CANCEL_TIMERS' });
      failRun(state, 'TERMINATED', event.reason);
      return state.decision();
    case 'SKIP_TASK':
      if (skipRejection(state.run, state.tasks, event.taskRef)) return state.decision(true);
      skipTask(state, event);
      evaluate(state);
      return state.decision();
    case 'RERUN_FROM': {
      if (event.taskInput) state.rerunInput = { ref: event.taskRef, input: event.taskInput };
      evaluate(state);
      const task = state.latestByRef(event.taskRef);
      if (task && event.taskInput && !isTerminalTaskStatus(task.status))
        state.updateTask(task, { inputData: copyWith(task.inputData, event.taskInput) });
      return state.decision();
    }
    case 'SIGNAL':
      return applySignal(state, event);
    case 'MAILBOX':
      return applyMailbox(state);
  }
}

/**
 * Why an operation is refused: the registered error code (its class is 409, the run's or task's
 * state, or 404) and the engine's words, which the server sends as the message.
 */
export interface Rejection {
  readonly code: SpecificErrorCode;
  readonly message: string;
}

const rejection = (code: SpecificErrorCode, message: string): Rejection => ({ code, message });

/**
 * For a Conductor user acting on a run that was retried, restarted or rerun: Baton made a new
 * linked run for that, where Conductor would have continued this one in place.
 */
export function successorNote(run: RunRecord): string {
  const next = [
    ...(run.links.retried_by ?? []),
    ...(run.links.restarted_by ?? []),
    ...(run.links.rerun_by ?? []),
  ];
  if (next.length === 0) return '';
  return `; its retry, restart or rerun is the new linked run ${next.join(', ')} (Baton does not continue a run in place as Conductor does)`;
}

export function pauseRejection(run: RunRecord): Rejection | undefined {
  if (run.status === 'RUNNING') return undefined;
  return rejection(
    'RUN_NOT_PAUSABLE',
    `Workflow ${run.workflowId} is ${run.status}: only a RUNNING workflow can be paused${successorNote(run)}`,
  );
}

export function resumeRejection(run: RunRecord): Rejection | undefined {
  if (run.status === 'PAUSED') return undefined;
  return rejection(
    'RUN_NOT_RESUMABLE',
    `Workflow ${run.workflowId} is ${run.status}: only a PAUSED workflow can be resumed${successorNote(run)}`,
  );
}

export function terminateRejection(run: RunRecord): Rejection | undefined {
  if (!isTerminalWorkflowStatus(run.status)) return undefined;
  return rejection(
    'RUN_NOT_TERMINABLE',
    `Workflow ${run.workflowId} is ${run.status}: only a RUNNING or PAUSED workflow can be terminated${successorNote(run)}`,
  );
}

/** Retry continues a run that did not finish: FAILED, TIMED_OUT or TERMINATED. */
export function retryRejection(run: RunRecord): Rejection | undefined {
  if (run.status === 'FAILED' || run.status === 'TIMED_OUT' || run.status === 'TERMINATED') {
    const by = run.links.retried_by ?? [];
    if (by.length === 0) return undefined;
    return rejection(
      'RUN_ALREADY_RETRIED',
      `Workflow ${run.workflowId} has already been retried by ${by.join(', ')}: Baton retries into a new linked run (retry_of) where Conductor continues the run in place, so follow that run`,
    );
  }
  return rejection(
    'RUN_NOT_RETRYABLE',
    `Workflow ${run.workflowId} is ${run.status}: only a FAILED, TIMED_OUT or TERMINATED workflow can be retried`,
  );
}

/** Restart and rerun start over from an ended run whose definition allows it. */
export function restartRejection(run: RunRecord, operation: 'restarted' | 'rerun'): Rejection | undefined {
  if (!isTerminalWorkflowStatus(run.status)) {
    return rejection(
      'RUN_NOT_ENDED',
      `Workflow ${run.workflowId} is ${run.status}: only an ended workflow (COMPLETED, FAILED, TIMED_OUT or TERMINATED) can be ${operation}`,
    );
  }
  if (run.workflowDefinition.restartable === false) {
    return rejection(
      'RUN_NOT_RESTARTABLE',
      `Workflow ${run.workflowId} (${run.status}) cannot be ${operation}: its definition ${run.workflowName} is not restartable`,
    );
  }
  return undefined;
}

/**
 * Skip applies to a RUNNING run and a task that is waiting: scheduled and not taken by a
 * worker, blocked on outside input (a system task in progress), or not reached yet.
 */
export function skipRejection(
  run: RunRecord,
  tasks: readonly TaskRecord[],
  ref: string,
): Rejection | undefined {
  if (run.status !== 'RUNNING') {
    return rejection(
      'RUN_NOT_RUNNING',
      `Workflow ${run.workflowId} is ${run.status}: tasks can be skipped only in a RUNNING workflow`,
    );
  }
  const workflowTask = findTask(run.workflowDefinition, ref);
  if (!workflowTask) {
    return {
      code: 'SKIP_TASK_NOT_IN_DEFINITION',
      message: `Workflow ${run.workflowId} has no task ${ref} in its definition`,
    };
  }
  const latest = [...tasks].reverse().find((task) => task.referenceTaskName === ref);
  if (!latest || latest.status === 'SCHEDULED') return undefined;
  if (latest.status === 'IN_PROGRESS' && !isWorkerTask(latest.workflowTask)) return undefined;
  const why = latest.status === 'IN_PROGRESS' ? ' (taken by a worker)' : '';
  return rejection(
    'SKIP_TASK_NOT_WAITING',
    `Task ${ref} of workflow ${run.workflowId} is ${latest.status}${why}: only a waiting task can be skipped`,
  );
}

function skipTask(state: RunState, event: Extract<RunControlEvent, { type: 'SKIP_TASK' }>): void {
  const now = state.now;
  const existing = state.latestByRef(event.taskRef);
  if (existing) {
    state.updateTask(existing, {
      status: 'SKIPPED',
      outputData: structuredClone(event.taskOutput ?? {}),
      ...(event.taskInput !== undefined && { inputData: structuredClone(event.taskInput) }),
      endTime: now,
      updateTime: now,
    });
    state.command(
      { type: 'DEQUEUE', taskId: existing.taskId },
      { type: 'CANCEL_TIMERS', taskId: existing.taskId },
    );
    return;
  }
  // Not reached yet: recorded now as already acted on, so nothing moves until the run reaches
  // it; reaching it then moves straight past it (`scheduleNode`).
  const workflowTask = findTask(state.run.workflowDefinition, event.taskRef);
  if (!workflowTask) return;
  state.addTasks([
    systemTaskRecord(state.run, workflowTask, {
      taskId: state.ctx.newId(),
      seq: state.nextSeq(),
      now,
      status: 'SKIPPED',
      inputData: structuredClone(event.taskInput ?? {}),
      outputData: structuredClone(event.taskOutput ?? {}),
      executed: true,
    }),
  ]);
}
