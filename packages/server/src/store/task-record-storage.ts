import type { TaskRecord } from '@baton/protocol';

import { packRecord, unpackRecord } from './record-codec.js';
import { ByteBoundedCache, type Sized } from './byte-bounded-cache.js';

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
 *
 * On a store that packs task records (SQLite), the record is also split (`storedTaskParts`):
 * `record` keeps in clear only the fields SQL reads from it through an index (`CLEAR_FIELDS`), and
 * `packed` holds the rest, compressed (record-codec.ts). Every version is packed, the first one
 * too: a row written large and rewritten smaller leaves the difference as a hole in its page that
 * nothing fills (rows are appended in key order), so packing only the final version saved half of
 * what it could. Reading merges the two parts, so where a field was stored never shows.
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
  /** The packed rest of a final version's record; absent or null on a record kept whole. */
  packed?: Uint8Array | null;
}

/** What a read selects to rebuild a task (the columns, then the stored record and its packed rest). */
export const TASK_ROW_COLUMNS =
  'task_id, workflow_id, seq, reference_task_name, task_type, status, update_time, record, packed';

/**
 * The fields a packed task's `record` keeps in clear: those an index reads from the record's
 * JSON (SQLite's `tasks_search_workflow_type`, `tasks_search_start`, and `executed` in the
 * condition of `tasks_to_decide`, stored only while false). Every other field SQL may look at goes
 * through `taskField`, which reads both parts.
 */
export const CLEAR_FIELDS: ReadonlySet<string> = new Set(['workflowType', 'startTime', 'executed']);

/**
 * The same on PostgreSQL, which has no function to unpack a record in SQL: also every field a
 * task search filters or sorts by in SQL (store-postgres/search.ts). Only free text in inputs and
 * outputs reads packed rows, in the server.
 */
export const PG_CLEAR_FIELDS: ReadonlySet<string> = new Set([
  ...CLEAR_FIELDS,
  'workerId',
  'scheduledTime',
  'endTime',
]);

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

/** Whether a field of `task` is left out of its stored record (a column, or its usual value). */
function leftOut(task: TaskRecord, field: string, value: unknown): boolean {
  if (COLUMN_FIELD_SET.has(field)) return true;
  if (DEFAULT_VALUES.has(field) && DEFAULT_VALUES.get(field) === value) return true;
  return field === 'taskDefName' && value === task.taskType;
}

/** The JSON text a task row's `record` column holds for `task`, kept whole (never packed). */
export function storedTaskRecord(task: TaskRecord): string {
  // Copied field by field rather than spread and deleted from: a deleted property turns the object
  // into a slow dictionary, and this runs on every task write.
  const stored: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(task)) {
    if (!leftOut(task, field, value)) stored[field] = value;
  }
  return JSON.stringify(stored);
}

/**
 * What a task row's `record` and `packed` columns hold for `task`, on a store that packs: `clear`
 * names the fields kept in clear (`CLEAR_FIELDS` on SQLite, `PG_CLEAR_FIELDS` on PostgreSQL).
 */
export function storedTaskParts(
  task: TaskRecord,
  clearFields: ReadonlySet<string> = CLEAR_FIELDS,
): { record: string; packed: Buffer; clear: Readonly<Record<string, unknown>> } {
  const clear: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(task)) {
    if (leftOut(task, field, value)) continue;
    if (clearFields.has(field)) clear[field] = value;
    else rest[field] = value;
  }
  const record = JSON.stringify(clear);
  const restText = JSON.stringify(rest);
  const packed = packRecord(restText);
  // The whole record's text joined from the two (their fields are disjoint), not stringified again.
  const whole =
    record === '{}' ? restText : restText === '{}' ? record : `${record.slice(0, -1)},${restText.slice(1)}`;
  remember(task.taskId, record, clear, packed, whole);
  return { record, packed, clear };
}

/**
 * The rows this process wrote last, by task id, with their whole stored record as text. A task's
 * row is read back soon after it is written (its result, the decide set, the hand-out: about six
 * reads a step), and unpacking it, mostly the set-up of a zlib stream, then parsing two texts and
 * merging them cost three times the one parse of a record kept whole. A row whose two parts are
 * the ones remembered reads the whole text instead: equal parts hold equal fields, so a hit is
 * exact whichever store or database the row came from. Bounded by bytes (byte-bounded-cache.ts).
 */
interface Written extends Sized {
  record: string;
  /** `record` as an object: PostgreSQL's driver hands the clear part over parsed. */
  clear: Readonly<Record<string, unknown>>;
  packed: Buffer;
  whole: string;
}
/**
 * The memory the rows of 4,096 of the bench's tasks really took when the bound was a count of rows
 * (and that the earlier 8 MiB budget really took, as it counted too little a row), so RSS with
 * 100,000 open runs stays where it was (`node bench/scale.mjs --skip-history`: 229 MB
 * on PostgreSQL, 236 on SQLite). A workflow that branches keeps more runs in flight than that:
 * its branches' tasks wait in the queue behind other runs' tasks, so each decision comes back to
 * a run after hundreds of others, and every task of a run is read by each of its decisions
 * (`node bench/shapes.mjs --store postgres --runs 2000 --only shape_branching` reads about 20,000
 * distinct rows in a cycle; what is not kept is unpacked). The budget holds what it can of those.
 */
const RECENT_BUDGET_BYTES = 14 * 1024 * 1024;
/** A larger row (an output of a quarter megabyte or more) would push out a great many ordinary ones. */
const RECENT_MAX_ROW_BYTES = 256 * 1024;
/**
 * What a kept row holds beyond its texts and bytes: the map's entry, its objects, the clear part,
 * the packed bytes' own buffer. Measured: 30,000 of the bench's tasks written, then the heap and
 * external memory after a full collection, divided by the rows kept.
 */
const ROW_OVERHEAD_BYTES = 480;
const recent = new ByteBoundedCache<Written>(RECENT_BUDGET_BYTES, RECENT_MAX_ROW_BYTES);

/** What the recent rows hold now, and their bounds (for tests). */
export function recentRowsHeld(): {
  rows: number;
  bytes: number;
  budgetBytes: number;
  maxRowBytes: number;
  /** The bytes of the buffers the kept rows' packed bytes live in. */
  packedBufferBytes: number;
} {
  let packedBufferBytes = 0;
  for (const row of recent.values()) packedBufferBytes += row.packed.buffer.byteLength;
  return {
    ...recent.size,
    budgetBytes: RECENT_BUDGET_BYTES,
    maxRowBytes: RECENT_MAX_ROW_BYTES,
    packedBufferBytes,
  };
}

function remember(
  taskId: string,
  record: string,
  clear: Readonly<Record<string, unknown>>,
  packed: Buffer,
  whole: string,
): void {
  // `packed` has a buffer of its own (record-codec.ts `packRecord`), so keeping it holds only its bytes.
  const bytes = whole.length + 2 * record.length + packed.length + ROW_OVERHEAD_BYTES;
  recent.set(taskId, { record, clear, packed, whole, bytes });
}

/** The record of a row, both parts merged, as parsed JSON (the columns not yet laid over it). */
function storedFields(row: {
  task_id: string;
  record: string;
  packed?: Uint8Array | null;
}): Record<string, unknown> {
  if (row.packed === undefined || row.packed === null)
    return JSON.parse(row.record) as Record<string, unknown>;
  const hit = recent.get(row.task_id);
  if (hit !== undefined && hit.record === row.record && hit.packed.equals(row.packed))
    return JSON.parse(hit.whole) as Record<string, unknown>;
  return Object.assign(
    JSON.parse(row.record) as Record<string, unknown>,
    packedRest(row.task_id, row.packed),
  );
}

/** The fields a row's `packed` column holds, unpacked and parsed (a damaged one fails by the task's id). */
export function packedRest(taskId: string, packed: Uint8Array): Record<string, unknown> {
  return JSON.parse(unpackRecord(packed, `task ${taskId}`)) as Record<string, unknown>;
}

/**
 * The same for a row whose clear part comes parsed (PostgreSQL's jsonb): a new object, so the
 * caller's row is never changed. The clear fields are all strings, numbers or booleans, so a hit
 * compares them one by one.
 */
export function packedFields(
  taskId: string,
  clear: Readonly<Record<string, unknown>>,
  packed: Uint8Array,
): Record<string, unknown> {
  const hit = recent.get(taskId);
  if (hit !== undefined && hit.packed.equals(packed) && sameClear(hit.clear, clear))
    return JSON.parse(hit.whole) as Record<string, unknown>;
  return Object.assign({}, clear, packedRest(taskId, packed));
}

function sameClear(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (a[key] !== b[key]) return false;
  return true;
}

/**
 * One top-level field of a stored task record, as SQLite's `json_extract(record, '$.field')`
 * answers it (an object or array as JSON text): the SQL function `baton_task_field(record,
 * packed, field)` that searches use for the fields a packed record does not keep in clear.
 */
export function taskField(record: unknown, packed: unknown, field: unknown): string | number | null {
  if (typeof record !== 'string' || typeof field !== 'string') return null;
  const fields =
    packed instanceof Uint8Array
      ? storedFields({ task_id: '(searched)', record, packed })
      : (JSON.parse(record) as Record<string, unknown>);
  const value = fields[field];
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return JSON.stringify(value);
}

/** The task a row holds, whole again: the stored record, its left-out defaults, then the columns. */
export function taskFromRow(row: StoredTaskRow): TaskRecord {
  return restoreTask(storedFields(row), row);
}

/**
 * A task whole again from its stored record's fields (parsed; either shape) and its row's
 * columns: the usual values the record left out, then the columns, which win over the record's
 * own fields (they are what every update writes, and a whole record holds the same values).
 * Both dialects read through it; PostgreSQL's driver hands the record over already parsed.
 */
export function restoreTask(fields: Record<string, unknown>, row: TaskRowColumns): TaskRecord {
  // Filled in on the parsed object itself, made for this read alone: spreading three objects into
  // a new one on every task read cost more than the parse.
  const task = fields;
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
