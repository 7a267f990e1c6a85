import type { TaskRecord } from '@baton/protocol';

import { STORED_DEFAULTS, type TaskRowColumns } from '../store/task-record-storage.js';

/**
 * Task rows as PostgreSQL reads them: the row's columns and its `record`, restored to the whole
 * task. A record may be stored whole (every release before compact records) or compact
 * (docs/design/payloads-and-archive.md, "Bytes per step": the columns and the usual values left
 * out); both read the same, so a database may hold both shapes while its nodes are upgraded.
 *
 * Not `taskFromRow` of store/task-record-storage.ts: that parses the record's text, and the
 * driver hands PostgreSQL's jsonb over already parsed, so re-serialising it to reuse the parse
 * would cost more than the few lines repeated here.
 */

/** A task row as `TASK_COLUMNS` selects it. */
export interface PgTaskRow extends TaskRowColumns {
  record: Record<string, unknown>;
}

/** What a read of task rows selects, to rebuild a task whichever shape its record has. */
export const TASK_COLUMNS =
  'task_id, workflow_id, seq, reference_task_name, task_type, status, update_time, record';

const DEFAULT_ENTRIES = Object.entries(STORED_DEFAULTS);

/**
 * The task a row holds, whole: the stored record, the usual values it left out, then the columns.
 * The columns win over the record's own fields: they are what every update writes, and a whole
 * record holds the same values.
 */
export function taskFromPgRow(row: PgTaskRow): TaskRecord {
  // Filled in on the parsed object itself, which the driver made for this read alone.
  const task = row.record;
  for (const [field, value] of DEFAULT_ENTRIES) if (task[field] === undefined) task[field] = value;
  if (task.taskDefName === undefined) task.taskDefName = row.task_type;
  task.taskId = row.task_id;
  task.workflowInstanceId = row.workflow_id;
  task.seq = row.seq;
  task.status = row.status;
  task.referenceTaskName = row.reference_task_name;
  task.taskType = row.task_type;
  task.updateTime = row.update_time;
  return task as unknown as TaskRecord;
}

/** The same, for a row whose task may be missing (a left join): every column null then. */
export function taskFromPgColumns(row: {
  [K in keyof PgTaskRow]: PgTaskRow[K] | null;
}): TaskRecord | undefined {
  const { task_id, workflow_id, seq, reference_task_name, task_type, status, update_time, record } = row;
  if (
    task_id === null ||
    workflow_id === null ||
    seq === null ||
    reference_task_name === null ||
    task_type === null ||
    status === null ||
    update_time === null ||
    record === null
  )
    return undefined;
  return taskFromPgRow({
    task_id,
    workflow_id,
    seq,
    reference_task_name,
    task_type,
    status,
    update_time,
    record,
  });
}
