import { isSuccessfulTaskStatus, isTerminalTaskStatus, type TaskRecord } from '@baton/protocol';
import { kindNameOf } from '../graph.js';
import type { RunState } from '../run-state.js';
import { suffixOf } from '../scope.js';
import { selectedBranch } from './switch.js';

/**
 * Whether a task a JOIN waits on is done with everything it stands for: ended and acted on,
 * and for a SWITCH/DECISION, its chosen branch done too (a switch completes at once, but a
 * join on it must wait for the branch it started; Conductor's joins on a switch did not).
 */
export function isSettled(state: RunState, task: TaskRecord): boolean {
  if (!isTerminalTaskStatus(task.status) || !task.executed) return false;
  if (!isSuccessfulTaskStatus(task.status)) return true;
  const kind = kindNameOf(task.workflowTask);
  if (kind !== 'SWITCH' && kind !== 'DECISION') return true;
  if (task.status !== 'COMPLETED') return true;
  const branch = selectedBranch(task);
  const last = branch[branch.length - 1];
  if (!last) return true;
  const lastTask = state.latestByRef(last.taskReferenceName + suffixOf(task));
  return lastTask !== undefined && isSettled(state, lastTask);
}
