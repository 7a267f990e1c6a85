import {
  isTerminalWorkflowStatus,
  type PollData,
  type QueueCounts,
  type RunRecord,
  type StoredTaskDef,
  type TaskDef,
  type WorkflowDef,
} from '@baton/protocol';

import type {
  PollRecord,
  QueueMessage,
  RunQuery,
  RunSortField,
  StoredQueueMessage,
  StoredWorkflowDef,
  TaskQuery,
  TaskSortField,
} from './store.js';
import { boundedDelayMs, storableTime } from '../bounds/time.js';
import { copyWith } from '../copy-with.js';

/** Pieces shared by the SQLite and PostgreSQL stores: no SQL dialect lives here. */

/**
 * A forward-only schema step. `sql` may hold several statements. Steps are expand-then-contract
 * (schema-versions.ts): `compatibleFrom` is the oldest schema version (a release's latest step)
 * whose code keeps working once this step is applied; an expand-only step names the schema before
 * it, a step that removes or reshapes something names the first schema whose code no longer reads it.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  compatibleFrom: number;
  /** Set on a step that removes or reshapes what older code may read (released as store/ARCHITECTURE.md, "Schema migrations", says). */
  contract?: true;
  /**
   * Set on an expand step whose SQL the expand-only check flags but which leaves older code's reads
   * and writes working: says which statement and why (checked by the migration-rules test).
   */
  reviewedStatements?: string;
}

/** Sort fields map to columns through this table only: user text never reaches SQL. */
export const RUN_SORT_COLUMNS: Readonly<Record<RunSortField, string>> = {
  createTime: 'create_time',
  updateTime: 'update_time',
  endTime: 'end_time',
  status: 'status',
  workflowType: 'workflow_name',
  workflowId: 'workflow_id',
};

const TEXT_SORT_COLUMNS: ReadonlySet<string> = new Set(['status', 'workflow_name', 'workflow_id']);

/**
 * `ORDER BY` text for a run query (default createTime DESC; workflow_id last so paging is stable).
 * `textCollation` (PostgreSQL: `"C"`) makes text sort by bytes as SQLite does, whatever the
 * database's locale.
 */
export function runOrderBy(sort: RunQuery['sort'], textCollation?: string): string {
  const parts: string[] = [];
  const seen = new Set<string>();
  for (const s of sort) {
    const column = Object.hasOwn(RUN_SORT_COLUMNS, s.field) ? RUN_SORT_COLUMNS[s.field] : undefined;
    if (column === undefined) throw new Error(`cannot sort runs by ${String(s.field)}`);
    if (seen.has(column)) continue;
    seen.add(column);
    const collate =
      textCollation !== undefined && TEXT_SORT_COLUMNS.has(column) ? ` COLLATE ${textCollation}` : '';
    parts.push(`${column}${collate} ${s.order === 'ASC' ? 'ASC' : 'DESC'}`);
  }
  if (parts.length === 0) {
    parts.push('create_time DESC');
    seen.add('create_time');
  }
  if (!seen.has('workflow_id'))
    parts.push(textCollation !== undefined ? `workflow_id COLLATE ${textCollation} ASC` : 'workflow_id ASC');
  return parts.join(', ');
}

/**
 * `ORDER BY` text for a task query (default updateTime DESC; task_id last so paging is stable).
 * `columns` maps each sort field to the dialect's column or indexed expression (the times live in
 * the record's JSON: `json_extract` on SQLite, a cast of `->>` on PostgreSQL).
 */
export function taskOrderBy(
  sort: TaskQuery['sort'],
  columns: Readonly<Record<TaskSortField, string>>,
): string {
  const parts: string[] = [];
  const seen = new Set<string>();
  for (const s of sort) {
    const column = Object.hasOwn(columns, s.field) ? columns[s.field] : undefined;
    if (column === undefined) throw new Error(`cannot sort tasks by ${String(s.field)}`);
    if (seen.has(column)) continue;
    seen.add(column);
    parts.push(`${column} ${s.order === 'ASC' ? 'ASC' : 'DESC'}`);
  }
  if (parts.length === 0) {
    parts.push('update_time DESC');
    seen.add('update_time');
  }
  if (!seen.has('task_id')) parts.push('task_id ASC');
  return parts.join(', ');
}

/** The free-text needle of a run query (trimmed); undefined when it matches everything. */
export function freeTextNeedle(freeText: string | undefined): string | undefined {
  const text = freeText?.trim() ?? '';
  return text === '' || text === '*' ? undefined : text;
}

/** Most characters of a run's searchable text: a large input is searched by its beginning. */
const SEARCH_TEXT_MAX = 16_384;

/**
 * The text free-text search finds a run by, as words (each store keeps a word index of it):
 * its correlation id, name, reason and the JSON of its input and output. Written when the run
 * is made and when it ends (`searchTextOnUpdate`), never on a step in between, so a step pays
 * no index write. The id is matched by prefix on its own index.
 */
export function runSearchText(run: RunRecord): string {
  const parts = [
    run.correlationId ?? '',
    run.workflowName,
    run.reasonForIncompletion ?? '',
    JSON.stringify(run.input),
    JSON.stringify(run.output),
  ];
  return parts.join(' ').slice(0, SEARCH_TEXT_MAX);
}

/** The searchable text to write with an update: only when the run has ended (else kept as it is). */
export function searchTextOnUpdate(run: RunRecord): string | undefined {
  return isTerminalWorkflowStatus(run.status) ? runSearchText(run) : undefined;
}

/**
 * The words of a free-text needle (letters and digits, lower case, at most 16), each matched as
 * a word prefix; none when the needle has no word (then only the id prefix and correlation id
 * can match).
 */
export function freeTextWords(needle: string): string[] {
  const words = needle.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)].slice(0, 16);
}

/** A LIKE pattern matching values that start with `prefix` (`\` escapes the wildcards). */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A run is stored as its record without the definition snapshot (a column of its own). */
export function runRecordColumn(run: RunRecord): Omit<RunRecord, 'workflowDefinition'> {
  const { workflowDefinition: _definition, ...record } = run;
  return record;
}

export function runFromColumns(
  record: Omit<RunRecord, 'workflowDefinition'>,
  definition: WorkflowDef,
): RunRecord {
  return copyWith(record, { workflowDefinition: definition });
}

/** A definition's JSON without the server-kept times (they live in columns). */
export function definitionColumn<T extends { createTime?: number; updateTime?: number }>(
  def: T,
): Omit<T, 'createTime' | 'updateTime'> {
  const { createTime: _c, updateTime: _u, ...rest } = def;
  return rest;
}

export function workflowDefFromColumns(
  definition: WorkflowDef,
  version: number,
  createTime: number,
  updateTime: number,
): StoredWorkflowDef {
  // The stamps are set here, so the copy is a stored definition (the type cannot see it through
  // the definition's open fields).
  return copyWith(definition, { version, createTime, updateTime }) as StoredWorkflowDef;
}

export function taskDefFromColumns(
  definition: TaskDef,
  createTime: number,
  updateTime: number,
): StoredTaskDef {
  return copyWith(definition, { createTime, updateTime }) as StoredTaskDef;
}

/** Statuses `runsByCorrelationId(…, includeClosed = false)` keeps. */
export const OPEN_RUN_STATUSES = ['RUNNING', 'PAUSED'] as const;

/** Row shape of `queue_messages` as both drivers return it (booleans differ, hence the union). */
export interface QueueMessageRow {
  task_id: string;
  queue_name: string;
  workflow_id: string;
  task_ref: string;
  attempt: number;
  priority: number;
  visible_at: number;
  lock_ms: number;
  locked_until: number | null;
  lock_token: string | null;
  worker_id: string | null;
  delivery_count: number;
  dead_lettered: boolean | number;
  created_at: number;
}

export function messageFromRow(row: QueueMessageRow): StoredQueueMessage {
  return {
    taskId: row.task_id,
    queueName: row.queue_name,
    workflowId: row.workflow_id,
    taskRef: row.task_ref,
    attempt: row.attempt,
    priority: row.priority,
    visibleAt: row.visible_at,
    lockMs: row.lock_ms,
    lockedUntil: row.locked_until,
    lockToken: row.lock_token,
    workerId: row.worker_id,
    deliveryCount: row.delivery_count,
    deadLettered: row.dead_lettered === true || row.dead_lettered === 1,
    createdAt: row.created_at,
  };
}

/** Claim order within a queue: higher priority, then earlier visible, then older id. */
export function compareClaimOrder(
  a: { priority: number; visibleAt: number; taskId: string },
  b: { priority: number; visibleAt: number; taskId: string },
): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.visibleAt !== b.visibleAt) return a.visibleAt - b.visibleAt;
  return a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0;
}

/** Last message per taskId wins (an upsert batch must not name a row twice). */
/**
 * A message whose times fit the columns whatever computed them: a lock over the longest delay
 * or a time past year 9999 (derived from a value an older version stored) is clamped, never
 * written as a REAL or an out-of-range BIGINT.
 */
function storableMessage(m: QueueMessage): QueueMessage {
  return copyWith(m, {
    visibleAt: storableTime(m.visibleAt),
    lockMs: boundedDelayMs(m.lockMs),
    ...(m.lock && { lock: copyWith(m.lock, { lockedUntil: storableTime(m.lock.lockedUntil) }) }),
  });
}

/** Messages by task id (the last one wins), sorted by it, with storable times. */
export function dedupeMessages(messages: readonly QueueMessage[]): QueueMessage[] {
  const byId = new Map<string, QueueMessage>();
  for (const m of messages) byId.set(m.taskId, storableMessage(m));
  return [...byId.values()].sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
}

export function uniqueSorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

/** Guard shared by both Tx implementations: no use after the transaction ended, no writes in `read`. */
export class TxState {
  closed = false;
  constructor(readonly writable: boolean) {}

  check(op: string, write: boolean): void {
    if (this.closed) throw new Error(`store: ${op} called after its transaction ended`);
    if (write && !this.writable) throw new Error(`store: ${op} is a write and cannot run inside read()`);
  }
}

/** A row of the per-queue counts query (both dialects name the columns alike). */
export interface QueueCountsRow {
  queue_name: string;
  waiting: number;
  scheduled: number;
  in_flight: number;
  dead: number;
}

export function queueCountsFromRow(r: QueueCountsRow): QueueCounts {
  return {
    queueName: r.queue_name,
    waiting: r.waiting,
    scheduled: r.scheduled,
    inFlight: r.in_flight,
    deadLettered: r.dead,
  };
}

export interface PollRow {
  queue_name: string;
  worker_id: string;
  domain: string | null;
  last_poll_time: number;
}

export function pollFromRow(row: PollRow): PollData {
  const out: PollData = {
    queueName: row.queue_name,
    workerId: row.worker_id,
    lastPollTime: row.last_poll_time,
  };
  if (row.domain !== null) out.domain = row.domain;
  return out;
}

/**
 * The polls to write: the latest of each queue and worker (one statement may not upsert a row
 * twice), in key order, so that nodes writing at once lock the rows in the same order.
 */
export function latestPolls(polls: readonly PollRecord[]): PollRecord[] {
  const byKey = new Map<string, PollRecord>();
  for (const poll of polls) {
    const key = `${poll.queueName}\u0000${poll.workerId}`;
    const known = byKey.get(key);
    if (known === undefined || poll.now >= known.now) byKey.set(key, poll);
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, poll]) => poll);
}

/** Rows in the order their ids were asked for (missing ids skipped, each id once). */
export function inRequestedOrder<R extends { task_id: string }, T>(
  ids: readonly string[],
  rows: readonly R[],
  map: (row: R) => T,
): T[] {
  const byId = new Map(rows.map((r) => [r.task_id, r]));
  const out: T[] = [];
  for (const id of new Set(ids)) {
    const row = byId.get(id);
    if (row !== undefined) out.push(map(row));
  }
  return out;
}
