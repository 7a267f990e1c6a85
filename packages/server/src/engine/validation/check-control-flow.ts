import type { ValidationError, WorkflowTask } from '@baton/protocol';
import { childTaskLists, kindNameOf, walkTasks } from '../graph.js';
import { isRecord, problem } from './common.js';

/**
 * Registration checks that look at a task's neighbours, not only at the task: a FORK_JOIN or
 * FORK_JOIN_DYNAMIC must be followed by a JOIN in the same list (Conductor fails such a run
 * when it reaches the fork); a JOIN after a FORK_JOIN may wait only on tasks of that fork's
 * branches; the refs a JOIN or EXCLUSIVE_JOIN names must exist.
 */
export function checkControlFlow(tasks: readonly unknown[], refs: ReadonlySet<string>): ValidationError[] {
  const errors: ValidationError[] = [];
  checkList(tasks, 'tasks', refs, errors);
  walkTasks(tasks, (task, path) => {
    if (!isRecord(task)) return;
    for (const child of childTaskLists(task as WorkflowTask))
      checkList(child.tasks, `${path}.${child.key}`, refs, errors);
  });
  return errors;
}

function checkList(
  list: readonly unknown[],
  listPath: string,
  refs: ReadonlySet<string>,
  errors: ValidationError[],
): void {
  list.forEach((item, index) => {
    if (!isRecord(item)) return;
    const task = item as WorkflowTask;
    const path = `${listPath}[${index}]`;
    const kind = kindNameOf(task);
    if (kind === 'FORK_JOIN' || kind === 'FORK_JOIN_DYNAMIC') {
      const next = list[index + 1];
      if (!isRecord(next) || kindNameOf(next) !== 'JOIN') {
        errors.push(
          problem(
            path,
            `${kind} task ${task.taskReferenceName} must be followed by a JOIN task in the same list (taskName: ${task.name})`,
          ),
        );
      } else if (kind === 'FORK_JOIN') {
        checkJoinOnBranches(task, next as WorkflowTask, `${listPath}[${index + 1}]`, errors);
      }
    }
    if (kind === 'JOIN' || kind === 'EXCLUSIVE_JOIN') {
      for (const field of ['joinOn', 'defaultExclusiveJoinTask'] as const) {
        const names: unknown = task[field];
        if (!Array.isArray(names)) continue;
        names.forEach((ref: unknown, i) => {
          if (typeof ref === 'string' && !refs.has(ref))
            errors.push(
              problem(
                `${path}.${field}[${i}]`,
                `${field} of ${kind} ${task.taskReferenceName} names no task '${ref}' in this workflow`,
                ref,
              ),
            );
        });
      }
    }
  });
}

/** A JOIN right after a FORK_JOIN waits on tasks of that fork's branches. */
function checkJoinOnBranches(
  fork: WorkflowTask,
  join: WorkflowTask,
  joinPath: string,
  errors: ValidationError[],
): void {
  const inBranches = new Set<string>();
  const branches: unknown = fork.forkTasks;
  if (!Array.isArray(branches)) return;
  walkTasks(branches.flat() as unknown[], (task) => {
    if (isRecord(task) && typeof task.taskReferenceName === 'string') inBranches.add(task.taskReferenceName);
  });
  const joinOn: unknown = join.joinOn;
  if (!Array.isArray(joinOn)) return;
  joinOn.forEach((ref: unknown, i) => {
    if (typeof ref === 'string' && !inBranches.has(ref))
      errors.push(
        problem(
          `${joinPath}.joinOn[${i}]`,
          `joinOn of JOIN ${join.taskReferenceName} names '${ref}', which is no task of the branches of fork ${fork.taskReferenceName}`,
          ref,
        ),
      );
  });
}
