import type { TaskRecord } from '@baton/protocol';

/**
 * Who may act on a task, asked about the very record a service resolved, inside the
 * transaction that acts on it. A route that names a task (by id, or by run and reference name)
 * passes the caller's access along instead of looking the task up itself beforehand, so the
 * task checked and the task changed are always one and the same.
 */
export interface TaskAccess {
  /** Throws (403) when the caller may not act on this task. */
  check(task: TaskRecord): void;
}

/** The engine's own callers, and callers whose role covers every task. */
export const ANY_TASK: TaskAccess = { check: () => {} };
