import {
  isTerminalTaskStatus,
  isTerminalWorkflowStatus,
  type TaskStatus,
  type WorkflowStatus,
} from '@baton/protocol';
import type { RunState } from './run-state.js';
import type { EngineEvent } from './types.js';
import { copyWith } from '../copy-with.js';

/**
 * Child runs (SUB_WORKFLOW): the events that tie a parent and its child. `CHILD_ENDED` ends
 * the parent's task with the child's outcome; `PARENT_ENDED` terminates a child whose parent
 * ended first (decided as the run-control `TERMINATE`). Both arrive in the transaction that
 * ended the other run.
 */

/** Conductor's `SubWorkflow` mapping of a child's end to its task's status. */
export function taskStatusForChild(status: WorkflowStatus): TaskStatus | undefined {
  switch (status) {
    case 'COMPLETED':
      return 'COMPLETED';
    case 'FAILED':
      return 'FAILED';
    case 'TERMINATED':
      return 'CANCELED';
    case 'TIMED_OUT':
      return 'TIMED_OUT';
    case 'RUNNING':
    case 'PAUSED':
      return undefined;
  }
}

export function applyChildEnded(
  state: RunState,
  event: Extract<EngineEvent, { type: 'CHILD_ENDED' }>,
): 'ignored' | 'ended' {
  const task = state.task(event.taskId);
  if (!task || isTerminalTaskStatus(task.status) || isTerminalWorkflowStatus(state.run.status))
    return 'ignored';
  if (task.subWorkflowId !== undefined && task.subWorkflowId !== event.childWorkflowId) return 'ignored';
  const status = taskStatusForChild(event.status);
  if (status === undefined) return 'ignored';
  const now = state.now;
  const patch: Parameters<RunState['updateTask']>[1] = {
    status,
    endTime: now,
    updateTime: now,
    outputData: copyWith(structuredClone(event.output), { subWorkflowId: event.childWorkflowId }),
  };
  if (status !== 'COMPLETED') {
    patch.reasonForIncompletion = `Sub workflow ${event.child} failure reason: ${event.reason ?? 'null'}`;
  }
  state.updateTask(task, patch);
  return 'ended';
}

/** The child was never started: the task fails with the reason and keeps no child id. */
export function applyChildNotStarted(state: RunState, taskId: string, reason: string): 'ignored' | 'ended' {
  const task = state.task(taskId);
  if (!task || isTerminalTaskStatus(task.status) || isTerminalWorkflowStatus(state.run.status))
    return 'ignored';
  const now = state.now;
  state.updateTask(task, {
    status: 'FAILED',
    endTime: now,
    updateTime: now,
    outputData: {},
    subWorkflowId: undefined,
    reasonForIncompletion: reason,
  });
  return 'ended';
}
