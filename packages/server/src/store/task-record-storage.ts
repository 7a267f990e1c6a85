import type { TaskRecord } from '@baton/protocol';

import { packRecord, unpackRecord } from './record-codec.js';
import { ByteBoundedCache, type Sized } from './byte-bounded-cache.js';
import { deepFreeze } from './deep-freeze.js';
import { copyWith } from '../copy-with.js';

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
  remember(task.taskId, packed, restText);
  return { record, packed, clear };
}

/**
 * What the rows this process wrote last unpack to, by task id: the packed bytes and the fields
 * they hold. A task's row is read back soon after it is written (its result, the decide set, the
 * hand-out), and each decision on a run reads every task the run has made so far (store
 * ARCHITECTURE.md, "The decide set"), so a row is read again at every later step of its run.
 * Unpacking a row costs more than parsing its text, and parsing it more than the rest of its
 * read. A row whose packed bytes are the ones remembered takes the remembered fields instead:
 * equal bytes unpack to equal text, so a hit is exact whichever store or database the row came
 * from, and whatever SQL did meanwhile to the clear part, which is read from the row itself.
 * Bounded by bytes (byte-bounded-cache.ts).
 */
interface Written extends Sized {
  /**
   * The packed bytes, a character a byte: a one-byte string holds them in their length and a
   * header, where a Buffer of its own costs a backing store and two objects besides.
   */
  packed: string;
  /**
   * What `packed` unpacks to: its JSON text as written, until a read first needs it; from then
   * on its fields, parsed once and frozen all the way down, which every later read shares. Each
   * read gets an object of its own at the top, so a caller may set a task's fields, but a value
   * inside one is never changed in place (frozen, it could not be). Parsed, the bench's rows take
   * less heap than their text, so the entry keeps the count it was given.
   */
  rest: string | FrozenFields;
}

/** A record's fields, frozen with every object and array they hold: safe to share between reads. */
type FrozenFields = Readonly<Record<string, unknown>>;

/**
 * The memory the kept rows really take: about 19 MB, what the rows of the 14 MiB budget before
 * really took when each row kept its clear part twice and its whole text besides (they were
 * counted at 1,705 bytes and took 2,200), so RSS with 100,000 open runs stays where it was
 * (`node bench/scale.mjs --skip-history`). A workflow that branches keeps many runs in flight: its
 * branches' tasks wait in the queue behind other runs' tasks, so each decision comes back to a run
 * after hundreds of others, and every task of a run is read by each of its decisions (`node
 * bench/shapes.mjs --store postgres --runs 2000 --only shape_branching` reads about 20,000
 * distinct rows in a cycle; what is not kept is unpacked). The budget holds what it can of those:
 * 12,500 of the bench's rows, where it held 8,600.
 */
const RECENT_BUDGET_BYTES = 18 * 1024 * 1024;
/** A larger row (an output of a quarter megabyte or more) would push out a great many ordinary ones. */
const RECENT_MAX_ROW_BYTES = 256 * 1024;
/**
 * What a kept row holds beyond its two texts: its key, the map's entry, its object, the strings'
 * headers. Measured: 30,000 of the bench's tasks written, then the heap after a full collection,
 * divided by the rows kept, less their texts (about 1,510 bytes a row, 826 of them text).
 */
const ROW_OVERHEAD_BYTES = 680;
const recent = new ByteBoundedCache<Written>(RECENT_BUDGET_BYTES, RECENT_MAX_ROW_BYTES);

/** What the recent rows hold now, and their bounds (for tests). */
export function recentRowsHeld(): {
  rows: number;
  bytes: number;
  budgetBytes: number;
  maxRowBytes: number;
} {
  return copyWith(recent.size, { budgetBytes: RECENT_BUDGET_BYTES, maxRowBytes: RECENT_MAX_ROW_BYTES });
}

function remember(taskId: string, packed: Buffer, rest: string): void {
  // latin1: one character a byte, so the text is exactly the bytes (and a string of its own,
  // holding no slab of Node's buffer pool).
  const packedText = packed.toString('latin1');
  recent.set(taskId, {
    packed: packedText,
    rest,
    bytes: packedText.length + rest.length + ROW_OVERHEAD_BYTES,
  });
}

/**
 * The fields a row's packed bytes hold, to read and never to change: shared and frozen when this
 * process wrote those bytes last, else unpacked and parsed for this read alone (a damaged one
 * fails by the task's id).
 */
export function packedRest(taskId: string, packed: Uint8Array): FrozenFields {
  const hit = recent.get(taskId);
  if (hit === undefined || !sameBytes(hit.packed, packed))
    return JSON.parse(unpackRecord(packed, `task ${taskId}`)) as Record<string, unknown>;
  if (typeof hit.rest === 'string') hit.rest = deepFreeze(JSON.parse(hit.rest) as Record<string, unknown>);
  return hit.rest;
}

function sameBytes(text: string, bytes: Uint8Array): boolean {
  if (text.length !== bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (text.charCodeAt(i) !== bytes[i]) return false;
  return true;
}

/** The record of a row, both parts merged (the columns not yet laid over it): an object of its own. */
function storedFields(row: {
  task_id: string;
  record: string;
  packed?: Uint8Array | null;
}): Record<string, unknown> {
  const clear = JSON.parse(row.record) as Record<string, unknown>;
  if (row.packed === undefined || row.packed === null) return clear;
  // The clear part is this read's own; the rest, which may be shared, is laid over it (their
  // fields are disjoint).
  return Object.assign(clear, packedRest(row.task_id, row.packed));
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
  const clear = JSON.parse(row.record) as Record<string, unknown>;
  const packed = row.packed;
  return restoreTask(
    clear,
    row,
    packed === undefined || packed === null ? undefined : packedRest(row.task_id, packed),
  );
}

/**
 * A task whole again from its stored record's fields (parsed; either shape; `rest`: the fields of
 * its packed part, when it has one) and its row's columns: the usual values the record left out,
 * then the record's fields, then the columns, which win over the record's own fields (they are
 * what every update writes, and a whole record holds the same values). Both dialects read through
 * it; PostgreSQL's driver hands the record over already parsed. A new object: `fields` and `rest`
 * are left as they are (`rest` may be shared with other reads, frozen).
 *
 * Made by one literal that begins with the columns: every task of one stored shape then shares one
 * hidden class with fast properties. Filled in field by field on the parsed record (as before), or
 * merged with `Object.assign`, a task of more than sixteen fields became a dictionary, which every
 * later read of the task paid for (docs/PERFORMANCE.md, "Fixed: copies of large records in
 * dictionary mode").
 */
export function restoreTask(
  fields: Readonly<Record<string, unknown>>,
  row: TaskRowColumns,
  rest?: Readonly<Record<string, unknown>>,
): TaskRecord {
  const task: Record<string, unknown> = {
    taskId: row.task_id,
    workflowInstanceId: row.workflow_id,
    seq: row.seq,
    status: row.status,
    referenceTaskName: row.reference_task_name,
    taskType: row.task_type,
    updateTime: row.update_time,
    taskDefName: row.task_type,
    ...STORED_DEFAULTS,
    ...fields,
    ...rest,
  };
  // A whole record holds the columns too: the row's own win (overrides: the shape stays).
  task.taskId = row.task_id;
  task.workflowInstanceId = row.workflow_id;
  task.seq = row.seq;
  task.status = row.status;
  task.referenceTaskName = row.reference_task_name;
  task.taskType = row.task_type;
  task.updateTime = row.update_time;
  return task as unknown as TaskRecord;
}
