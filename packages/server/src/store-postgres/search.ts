import type { TaskRecord } from '@baton/protocol';

import { ARCHIVED_COLUMNS, type ArchivedRunRow, archivedFromRow } from '../store/archive-rows.js';
import { freeTextNeedle, freeTextWords, likePrefix, runOrderBy, taskOrderBy } from '../store/sql-common.js';
import { type FilterColumn, RUN_FILTER_COLUMNS, compileFilter } from '../store/sql-filter.js';
import type { ArchivedRun, RunQuery, TaskQuery, TaskSearchField, TaskSortField } from '../store/store.js';
import type { Query } from './sql.js';
import { RUN_COLUMNS, type RunRow } from './run-rows.js';
import { packedRest } from '../store/task-record-storage.js';
import { type PgTaskRow, TASK_COLUMNS, taskFromPgRow } from './task-rows.js';

/**
 * Task search on PostgreSQL. Every field maps to a column or to the exact expression of an
 * index of migration 7 (`tasks_search_*`), so the planner can serve it from that index.
 */
export const PG_TASK_COLUMNS: Readonly<Record<TaskSearchField, FilterColumn>> = {
  taskId: { sql: 'task_id', numeric: false },
  taskType: { sql: 'task_type', numeric: false },
  status: { sql: 'status', numeric: false },
  workflowId: { sql: 'workflow_id', numeric: false },
  workflowType: { sql: "(record->>'workflowType')", numeric: false },
  referenceTaskName: { sql: 'reference_task_name', numeric: false },
  workerId: { sql: "(record->>'workerId')", numeric: false },
  startTime: { sql: "((record->>'startTime')::bigint)", numeric: true },
  scheduledTime: { sql: "((record->>'scheduledTime')::bigint)", numeric: true },
  updateTime: { sql: 'update_time', numeric: true },
  endTime: { sql: "((record->>'endTime')::bigint)", numeric: true },
};

const SORT_COLUMNS: Readonly<Record<TaskSortField, string>> = {
  updateTime: 'update_time',
  startTime: "((record->>'startTime')::bigint)",
  scheduledTime: "((record->>'scheduledTime')::bigint)",
  endTime: "((record->>'endTime')::bigint)",
  status: 'status',
  taskType: 'task_type',
  taskId: 'task_id',
  workflowId: 'workflow_id',
};

/**
 * The statements of a task search with their parameters (the query-plan test reads them). Without
 * free text: a count and a page. With it, `scan` and `page`:
 *
 * - `scan` reads the rows the filter keeps, in primary-key order after the last id read (`$after`,
 *   the last parameter), a chunk at a time, each with `hit` set where SQL could decide it (the id,
 *   or a whole record's inputs or outputs). A packed row's inputs and outputs can only be read in
 *   the server (record-shape.ts), so the scan keeps every packed row the filter keeps and
 *   `searchTasks` decides those itself. Key order, not the search's, so each chunk starts where the
 *   last ended instead of skipping past it: the whole scan reads each row once.
 * - `page` then orders the hits the search's way and takes its page (`$1` the hits' ids).
 *
 * Free text has no index either way: the filter's indexes bound what it reads.
 */
export type TaskSearchSql =
  | { kind: 'page'; count: string; page: string; filterParams: unknown[]; pageParams: unknown[] }
  | { kind: 'scan'; scan: string; params: unknown[]; page: string; needle: string };

/** How many rows a free-text scan reads per statement. */
export const TEXT_SCAN_CHUNK = 5_000;

export function taskSearchSql(query: TaskQuery): TaskSearchSql {
  const params: unknown[] = [];
  const p = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const where: string[] = [];
  if (query.filter !== undefined) {
    where.push(
      compileFilter(query.filter, PG_TASK_COLUMNS, (value, numeric) =>
        numeric ? `${p(Number(value))}::bigint` : `${p(String(value))}::text`,
      ),
    );
  }
  const text = freeTextNeedle(query.freeText);
  const order = taskOrderBy(query.sort, SORT_COLUMNS);
  if (text !== undefined) {
    const exact = p(text);
    const needle = p(text.toLowerCase());
    const wholeHit = `(packed IS NULL AND (strpos(lower((record->'inputData')::text), ${needle}) > 0
        OR strpos(lower((record->'outputData')::text), ${needle}) > 0))`;
    where.push(`(task_id = ${exact} OR packed IS NOT NULL OR ${wholeHit})`);
    const limit = p(TEXT_SCAN_CHUNK);
    const after = p('');
    return {
      kind: 'scan',
      scan: `SELECT task_id, packed, (task_id = ${exact} OR ${wholeHit}) AS hit FROM tasks
        WHERE ${where.join(' AND ')} AND task_id > ${after} ORDER BY task_id LIMIT ${limit}`,
      params,
      page: `SELECT ${TASK_COLUMNS} FROM tasks WHERE task_id = ANY($1::text[]) ORDER BY ${order} LIMIT $2 OFFSET $3`,
      needle: text.toLowerCase(),
    };
  }
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const filterParams = [...params];
  const limit = p(Math.max(0, query.size));
  const offset = p(Math.max(0, query.start));
  return {
    kind: 'page',
    count: `SELECT count(*)::int AS n FROM tasks ${whereSql}`,
    page: `SELECT ${TASK_COLUMNS} FROM tasks ${whereSql} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`,
    filterParams,
    pageParams: params,
  };
}

export async function searchTasks(
  q: Query,
  query: TaskQuery,
): Promise<{ totalHits: number; results: TaskRecord[] }> {
  const sql = taskSearchSql(query);
  if (sql.kind === 'scan') return searchTasksByText(q, query, sql);
  const count = await q<{ n: number }>(sql.count, sql.filterParams);
  const page = await q<PgTaskRow>(sql.page, sql.pageParams);
  return { totalHits: count.rows[0]?.n ?? 0, results: page.rows.map(taskFromPgRow) };
}

/**
 * Free text: the scan's rows a chunk at a time; a packed row is a hit when its inputs' or
 * outputs' JSON holds the needle, as SQL reads a whole one. Then the hits, ordered the search's
 * way, give the page and their number the total.
 */
async function searchTasksByText(
  q: Query,
  query: TaskQuery,
  sql: Extract<TaskSearchSql, { kind: 'scan' }>,
): Promise<{ totalHits: number; results: TaskRecord[] }> {
  const params = [...sql.params];
  const hits: string[] = [];
  for (;;) {
    const { rows } = await q<{ task_id: string; packed: Buffer | null; hit: boolean }>(sql.scan, params);
    for (const row of rows) {
      if (row.hit || (row.packed !== null && packedTextHit(row.task_id, row.packed, sql.needle)))
        hits.push(row.task_id);
    }
    const last = rows.at(-1);
    if (last === undefined || rows.length < TEXT_SCAN_CHUNK) break;
    params[params.length - 1] = last.task_id;
  }
  if (hits.length === 0 || query.size <= 0) return { totalHits: hits.length, results: [] };
  const { rows } = await q<PgTaskRow>(sql.page, [hits, Math.max(0, query.size), Math.max(0, query.start)]);
  return { totalHits: hits.length, results: rows.map(taskFromPgRow) };
}

function packedTextHit(taskId: string, packed: Buffer, needle: string): boolean {
  const fields = packedRest(taskId, packed);
  for (const field of ['inputData', 'outputData'] as const) {
    const value = fields[field];
    if (value !== undefined && JSON.stringify(value).toLowerCase().includes(needle)) return true;
  }
  return false;
}

/** Run search on PostgreSQL: hot runs and the archive's index answer the same conditions. */

type Placeholder = (value: unknown) => string;

function placeholders(): { params: unknown[]; p: Placeholder } {
  const params: unknown[] = [];
  return {
    params,
    p: (value) => {
      params.push(value);
      return `$${params.length}`;
    },
  };
}

/** The conditions of a run query both `runs` and `archived_runs` answer (same column names). */
export function runConditions(query: RunQuery, p: Placeholder): string[] {
  const where: string[] = [];
  if (query.filter !== undefined) {
    where.push(
      compileFilter(query.filter, RUN_FILTER_COLUMNS, (value, numeric) =>
        numeric ? `${p(Number(value))}::bigint` : `${p(String(value))}::text`,
      ),
    );
  }
  if (query.name !== undefined) where.push(`workflow_name = ${p(query.name)}`);
  if (query.status !== undefined && query.status.length > 0)
    where.push(`status = ANY(${p(query.status)}::text[])`);
  if (query.correlationId !== undefined) where.push(`correlation_id = ${p(query.correlationId)}`);
  if (query.from !== undefined) where.push(`create_time >= ${p(query.from)}::bigint`);
  if (query.to !== undefined) where.push(`create_time <= ${p(query.to)}::bigint`);
  return where;
}

/**
 * Free text on hot runs, every arm from an index: the id by prefix (runs_id_prefix), the
 * correlation id whole (runs_correlation), and every word of the needle as a word prefix of the
 * run's search text (runs_search_words: correlation id, name, reason, input and output).
 */
function freeTextCondition(text: string, p: Placeholder): string {
  const arms = [`workflow_id COLLATE "C" LIKE ${p(likePrefix(text))}`, `correlation_id = ${p(text)}`];
  const words = freeTextWords(text);
  if (words.length > 0) {
    const tsquery = words.map((w) => `'${w}':*`).join(' & ');
    arms.push(
      `(search_text IS NOT NULL AND to_tsvector('simple', search_text) @@ to_tsquery('simple', ${p(tsquery)}))`,
    );
  }
  return `(${arms.join(' OR ')})`;
}

export async function searchRuns(q: Query, query: RunQuery): Promise<{ totalHits: number; rows: RunRow[] }> {
  const { params, p } = placeholders();
  const where = runConditions(query, p);
  const text = freeTextNeedle(query.freeText);
  if (text !== undefined) where.push(freeTextCondition(text, p));
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const filterParams = [...params];
  const limit = p(Math.max(0, query.size));
  const offset = p(Math.max(0, query.start));
  const [count, page] = await Promise.all([
    q<{ n: number }>(`SELECT count(*) AS n FROM runs ${whereSql}`, filterParams),
    q<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM runs ${whereSql} ORDER BY ${runOrderBy(query.sort, '"C"')} LIMIT ${limit} OFFSET ${offset}`,
      params,
    ),
  ]);
  return { totalHits: Number(count.rows[0]?.n ?? 0), rows: page.rows };
}

export async function searchArchivedRuns(
  q: Query,
  query: RunQuery,
): Promise<{ totalHits: number; results: ArchivedRun[] }> {
  const { params, p } = placeholders();
  const where = runConditions(query, p);
  const text = freeTextNeedle(query.freeText);
  if (text !== undefined) {
    const t = p(text);
    const needle = p(text.toLowerCase());
    where.push(
      `(workflow_id = ${t} OR correlation_id = ${t} OR strpos(lower(workflow_name), ${needle}) > 0)`,
    );
  }
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const filterParams = [...params];
  const limit = p(Math.max(0, query.size));
  const offset = p(Math.max(0, query.start));
  const count = await q<{ n: number }>(
    `SELECT count(*)::int AS n FROM archived_runs ${whereSql}`,
    filterParams,
  );
  const page = await q<ArchivedRunRow>(
    `SELECT ${ARCHIVED_COLUMNS} FROM archived_runs ${whereSql} ORDER BY ${runOrderBy(query.sort, '"C"')} LIMIT ${limit} OFFSET ${offset}`,
    params,
  );
  return { totalHits: count.rows[0]?.n ?? 0, results: page.rows.map(archivedFromRow) };
}
