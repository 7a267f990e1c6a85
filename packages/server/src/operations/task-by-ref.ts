import { isTerminalTaskStatus, type TaskRecord } from '@baton/protocol';

import { documentRefOf, taskKindOf } from '../engine/index.js';

/**
 * The open task a completion by name means: the latest open one with exactly this ref, else
 * (a task inside a loop named without its `__N`) the latest open one of that plain ref. Tasks
 * only the interpreter ends (JOIN, DO_WHILE, …) are never meant.
 */
export function openTaskByRef(tasks: readonly TaskRecord[], ref: string): TaskRecord | undefined {
  return latestTaskByRef(
    tasks.filter((t) => !isTerminalTaskStatus(t.status)),
    ref,
  );
}

/** The latest task with this ref (or plain ref of a loop), of those an outside result may mean. */
export function latestTaskByRef(tasks: readonly TaskRecord[], ref: string): TaskRecord | undefined {
  const candidates = tasks.filter((t) => taskKindOf(t.workflowTask)?.engineOnly !== true);
  const exact = candidates.filter((t) => t.referenceTaskName === ref);
  const pool = exact.length > 0 ? exact : candidates.filter((t) => documentRefOf(t) === ref);
  return pool.reduce<TaskRecord | undefined>(
    (latest, t) => (!latest || t.seq > latest.seq ? t : latest),
    undefined,
  );
}
