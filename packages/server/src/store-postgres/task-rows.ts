import type { TaskRecord } from '@baton/protocol';

import { packedFields, restoreTask, type TaskRowColumns } from '../store/task-record-storage.js';
import { copyWith } from '../copy-with.js';

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
 * The task a row holds, whole (store/task-record-storage.ts `restoreTask`). A whole or compact
 * record is filled in place (callers that keep the row pass a copy); a packed one is merged into a
 * new object.
 */
export function taskFromPgRow(row: PgTaskRow): TaskRecord {
  const fields = row.packed === null ? row.record : packedFields(row.task_id, row.record, row.packed);
  return restoreTask(fields, row);
}

/**
 * The same for a row the caller keeps (a decide set read once and restored again): a whole or
 * compact record is copied before it is filled; a packed one is merged into a new object anyway.
 */
export function taskFromKeptPgRow(row: PgTaskRow): TaskRecord {
  return taskFromPgRow(row.packed === null ? copyWith(row, { record: { ...row.record } }) : row);
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
