import type { TaskRecord } from '@baton/protocol';

import type { Command } from './types.js';
import { copyWith } from '../copy-with.js';

/**
 * Loop scopes. A task made inside DO_WHILE iteration N gets `__N` after its definition ref
 * (Conductor's `ref__N`); inside nested loops the suffixes add up (`ref__2__1`: outer
 * iteration 2, inner 1), so every iteration of every loop has its own refs and scheduling
 * stays idempotent per ref.
 */

/** The loop suffix of a task: its ref minus its definition node's ref. */
export function suffixOf(task: Pick<TaskRecord, 'referenceTaskName' | 'workflowTask'>): string {
  const base: unknown = task.workflowTask.taskReferenceName;
  if (typeof base !== 'string' || !task.referenceTaskName.startsWith(base)) return '';
  return task.referenceTaskName.slice(base.length);
}

/** The suffix of iteration `n` of a loop whose own task has suffix `suffix`. */
export function iterationSuffix(suffix: string, n: number): string {
  return `${suffix}__${n}`;
}

/** The suffix of the loop that made this suffix's iteration (`__2__1` → `__2`). */
export function enclosingSuffix(suffix: string): string {
  const at = suffix.lastIndexOf('__');
  return at < 0 ? '' : suffix.slice(0, at);
}

/** The innermost iteration of a suffix (0 for none). */
export function iterationOf(suffix: string): number {
  const match = /__(\d+)$/.exec(suffix);
  return match?.[1] === undefined ? 0 : Number(match[1]);
}

/**
 * A task a kind made for the node with ref `base`, placed in its loop scope: ref `ref` (`base`
 * plus the loop suffix) and the loop's iteration. So kinds that know nothing of loops work in one.
 */
export function placeTask(task: TaskRecord, base: string, ref: string, iteration: number): TaskRecord {
  if (task.referenceTaskName !== base || ref === base) return task;
  const placed: TaskRecord = copyWith(task, { referenceTaskName: ref });
  if (task.iteration === 0 && task.taskType !== 'DO_WHILE') placed.iteration = iteration;
  return placed;
}

/** A kind's command placed in its loop scope (a worker message names the task's full ref). */
export function placeCommand(command: Command, base: string, ref: string): Command {
  if (command.type !== 'ENQUEUE' || command.taskRef !== base || ref === base) return command;
  return copyWith(command, { taskRef: ref });
}
