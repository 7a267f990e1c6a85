import type { TaskRecord } from '@baton/protocol';

import { packedRest, restoreTask, type TaskRowColumns } from '../store/task-record-storage.js';

/**
 * Task rows as PostgreSQL reads them: the row's columns and its `record`, restored to the whole
 * task. A record may be stored whole (every release before compact records) or compact
 * (docs/design/payloads-and-archive.md, "Bytes per step": the columns and the usual values left
 * out); both read the same, so a database may hold both shapes while its nodes are upgraded.
 *
 * The driver hands PostgreSQL's jsonb over already parsed, so rows go to `restoreTask` directly
 * rather than through `taskFromRow`, which parses a record's text.
 */

/** A task row as `TASK_COLUMNS` selects it. */
export interface PgTaskRow extends TaskRowColumns {
  record: Record<string, unknown>;
  /** The packed rest of a packed record (record-shape.ts); null on a record kept whole. */
  packed: Buffer | null;
}

/** What a read of task rows selects, to rebuild a task whichever shape its record has. */
export const TASK_COLUMNS =
  'task_id, workflow_id, seq, reference_task_name, task_type, status, update_time, record, packed';

/**
 * The task a row holds, whole (store/task-record-storage.ts `restoreTask`): a new object, the
 * row left as it is, so a row the caller keeps (a decide set read once) can be restored again.
 */
export function taskFromPgRow(row: PgTaskRow): TaskRecord {
  return restoreTask(row.record, row, row.packed === null ? undefined : packedRest(row.task_id, row.packed));
}

/** The same, for a row whose task may be missing (a left join): every column null then. */
export function taskFromPgColumns(row: {
  [K in keyof PgTaskRow]: PgTaskRow[K] | null;
}): TaskRecord | undefined {
  const { task_id, workflow_id, seq, reference_task_name, task_type, status, update_time, record, packed } =
    row;
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
    packed,
  });
}
