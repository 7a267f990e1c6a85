import type { TaskRecord } from '@baton/protocol';

import { documentRefOf } from '../engine/index.js';

/**
 * What both stores keep so that a decision loads a bounded set of a run's tasks
 * (`Tx.getDecideTasks`, see ARCHITECTURE.md "The decide set"): for every name of the
 * expression document (a ref without loop suffixes), the task with the highest seq. The rows
 * are upserted whenever a task is written; a row only moves to a higher seq.
 */
export interface LatestByNameRow {
  workflowId: string;
  name: string;
  seq: number;
  taskId: string;
}

/**
 * The rows a batch of written tasks asks for: one per run and name, the highest seq of the
 * batch (one upsert statement must not touch a row twice).
 */
export function latestByNameRows(tasks: readonly TaskRecord[]): LatestByNameRow[] {
  const rows = new Map<string, LatestByNameRow>();
  for (const task of tasks) {
    const name = documentRefOf(task);
    const key = `${task.workflowInstanceId}\u0000${name}`;
    const current = rows.get(key);
    if (!current || current.seq <= task.seq)
      rows.set(key, { workflowId: task.workflowInstanceId, name, seq: task.seq, taskId: task.taskId });
  }
  return [...rows.values()];
}

/**
 * The condition of a task the interpreter may still act on: open, or ended and not yet acted
 * on. Both stores index exactly this condition (partial index `tasks_to_decide`), so the
 * text must stay the same in the index and in the query.
 */
export const SQLITE_TO_DECIDE = `(status IN ('SCHEDULED', 'IN_PROGRESS') OR json_extract(record, '$.executed') = 0)`;
export const PG_TO_DECIDE = `(status IN ('SCHEDULED', 'IN_PROGRESS') OR (record->>'executed') = 'false')`;
