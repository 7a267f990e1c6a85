import type { TaskRecord } from '@baton/protocol';

/**
 * The compact stored form of a task record (docs/design/payloads-and-archive.md, "Bytes per
 * step"): what a task row's `record` column holds on a store that writes it. A task is written
 * at least twice, so every byte left out of its record is saved on each version of the row.
 *
 * - The fields the row keeps in its own columns are not repeated in the JSON.
 * - A required field left out while it holds its usual value (`STORED_DEFAULTS`), and
 *   `taskDefName` while it equals the task type.
 *
 * Reading restores both, so a read answers exactly what was written. A record stored whole (by an
 * older release) reads the same: its own fields win over the defaults, and the columns hold the
 * same values as its fields.
 */

/** The columns a task row has besides `record`, as SQL names them. */
export interface TaskRowColumns {
  task_id: string;
  workflow_id: string;
  seq: number;
  reference_task_name: string;
  task_type: string;
  status: string;
  update_time: number;
}

/** A task row as a read selects it: `TASK_ROW_COLUMNS`. */
export interface StoredTaskRow extends TaskRowColumns {
  record: string;
}

/** What a read selects to rebuild a task (the columns, then the stored record). */
export const TASK_ROW_COLUMNS =
  'task_id, workflow_id, seq, reference_task_name, task_type, status, update_time, record';

/** The fields a task row keeps in columns, so its stored record leaves them out. */
const COLUMN_FIELDS = [
  'taskId',
  'workflowInstanceId',
  'seq',
  'status',
  'referenceTaskName',
  'taskType',
  'updateTime',
] as const satisfies ReadonlyArray<keyof TaskRecord>;

/**
 * Required fields and the value most tasks hold: left out of the stored record while they hold
 * it. `executed` is left out when true (every ended task once acted on); false stays, because
 * the decide set's index reads it.
 */
export const STORED_DEFAULTS = {
  retryCount: 0,
  pollCount: 0,
  startDelayInSeconds: 0,
  callbackAfterSeconds: 0,
  workflowPriority: 0,
  iteration: 0,
  retried: false,
  executed: true,
} as const satisfies Partial<TaskRecord>;

type DefaultField = keyof typeof STORED_DEFAULTS;
const DEFAULT_FIELDS = Object.keys(STORED_DEFAULTS) as DefaultField[];

/** Fields never stored, or not while they hold these values, by name (for one lookup per field). */
const COLUMN_FIELD_SET: ReadonlySet<string> = new Set(COLUMN_FIELDS);
const DEFAULT_VALUES: ReadonlyMap<string, unknown> = new Map(Object.entries(STORED_DEFAULTS));

/** The JSON text a task row's `record` column holds for `task`. */
export function storedTaskRecord(task: TaskRecord): string {
  // Copied field by field rather than spread and deleted from: a deleted property turns the object
  // into a slow dictionary, and this runs on every task write.
  const stored: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(task)) {
    if (COLUMN_FIELD_SET.has(field)) continue;
    if (DEFAULT_VALUES.has(field) && DEFAULT_VALUES.get(field) === value) continue;
    if (field === 'taskDefName' && value === task.taskType) continue;
    stored[field] = value;
  }
  return JSON.stringify(stored);
}

/** The task a row holds, whole again: the stored record, its left-out defaults, then the columns. */
export function taskFromRow(row: StoredTaskRow): TaskRecord {
  // Filled in on the parsed object itself: spreading three objects into a new one on every task
  // read cost more than the parse.
  const task = JSON.parse(row.record) as Record<string, unknown>;
  for (const field of DEFAULT_FIELDS) if (task[field] === undefined) task[field] = STORED_DEFAULTS[field];
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
