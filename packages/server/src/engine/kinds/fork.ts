import type { TaskRecord, ValidationError, WorkflowTask } from '@baton/protocol';
import { kindNameOf, nextAfter } from '../graph.js';
import { suffixOf } from '../scope.js';
import type { Flow } from './flow.js';
import type { TaskKind } from './kind.js';
import { fieldProblem, requiredField, scheduleCompleted } from './system-task.js';

/**
 * FORK_JOIN (Conductor's `ForkJoinTaskMapper`): a `FORK` task that completes at once; when
 * acted on it schedules the first task of every branch and then the JOIN that must follow it.
 * Branch ends are the JOIN's business (it waits on its `joinOn`).
 */

export const FORK_NOT_FOLLOWED_BY_JOIN =
  'Fork task definition is not followed by a join task.  Check the blueprint';

/** The JOIN node right after a fork node in its list, if that is what follows it. */
export function joinAfter(flow: Flow, fork: TaskRecord): WorkflowTask | undefined {
  const step = nextAfter(flow.state.run.workflowDefinition, fork.workflowTask.taskReferenceName);
  return step?.type === 'task' && kindNameOf(step.task) === 'JOIN' ? step.task : undefined;
}

function branchesOf(node: WorkflowTask): WorkflowTask[][] {
  const forkTasks: unknown = node.forkTasks;
  if (!Array.isArray(forkTasks)) return [];
  return forkTasks.filter((branch): branch is WorkflowTask[] => Array.isArray(branch));
}

/** The first task of every branch, then the JOIN that must follow the fork. */
function forkBranches(flow: Flow, fork: TaskRecord): void {
  const join = joinAfter(flow, fork);
  if (!join) {
    flow.fail(FORK_NOT_FOLLOWED_BY_JOIN);
    return;
  }
  const suffix = suffixOf(fork);
  for (const branch of branchesOf(fork.workflowTask)) {
    const first = branch[0];
    if (first) flow.schedule(first, suffix);
  }
  flow.schedule(join, suffix);
}

export const forkJoinKind: TaskKind = {
  kind: 'FORK_JOIN',
  retryable: false,
  // Ends in the decision that makes it: seen open only when something outside completes it.
  waiting: 'outside',
  schedule: (sctx, node, request) => scheduleCompleted(sctx, node, request, 'FORK'),
  // Made right after the FORK, as Conductor's mapper does (so the tasks list in its scheduling
  // order, a nested fork's tasks before the outer JOIN); again when acted on, for a run
  // re-walked from copied tasks (a ref that has a task is not scheduled twice).
  onScheduled: forkBranches,
  onSuccess: forkBranches,
  check(node, path) {
    const forkTasks: unknown = node.forkTasks;
    if (!Array.isArray(forkTasks) || forkTasks.length === 0) return [requiredField(path, 'forkTasks', node)];
    const errors: ValidationError[] = [];
    forkTasks.forEach((branch: unknown, i) => {
      if (!Array.isArray(branch))
        errors.push(
          fieldProblem(path, `forkTasks[${i}]`, node, 'a fork branch must be a list of tasks', branch),
        );
    });
    return errors;
  },
};
