import type { RunRecord, TaskRecord } from '@baton/protocol';

import { ARCHIVED_COLUMNS, type ArchivedRunRow, archivedFromRow } from '../store/archive-rows.js';
import { freeTextNeedle, freeTextWords, runOrderBy, taskOrderBy } from '../store/sql-common.js';
import { type Bind, type FilterColumn, RUN_FILTER_COLUMNS, compileFilter } from '../store/sql-filter.js';
import type { ArchivedRun, RunQuery, TaskQuery, TaskSearchField, TaskSortField } from '../store/store.js';
import { type StoredTaskRow, TASK_ROW_COLUMNS, taskFromRow } from '../store/task-record-storage.js';
import type { SqliteConnection } from './connection.js';
import { RUN_COLUMNS, type RunRow, run } from './sql.js';
import { copyWith } from '../copy-with.js';

/**
 * Search on SQLite: task search and the condition part of run searches. Fields map to columns,
 * to the exact expressions of migration 7's indexes (on fields a packed task record keeps in
 * clear), or to `baton_task_field`, which reads a record packed or not; values are named parameters.
 */
const TASK_COLUMNS: Readonly<Record<TaskSearchField, FilterColumn>> = {
  taskId: { sql: 'task_id', numeric: false },
  taskType: { sql: 'task_type', numeric: false },
  status: { sql: 'status', numeric: false },
  workflowId: { sql: 'workflow_id', numeric: false },
  workflowType: { sql: "json_extract(record, '$.workflowType')", numeric: false },
  referenceTaskName: { sql: 'reference_task_name', numeric: false },
  workerId: { sql: "baton_task_field(record, packed, 'workerId')", numeric: false },
  startTime: { sql: "json_extract(record, '$.startTime')", numeric: true },
  scheduledTime: { sql: "baton_task_field(record, packed, 'scheduledTime')", numeric: true },
  updateTime: { sql: 'update_time', numeric: true },
  endTime: { sql: "baton_task_field(record, packed, 'endTime')", numeric: true },
};

const SORT_COLUMNS: Readonly<Record<TaskSortField, string>> = {
  updateTime: 'update_time',
  startTime: "json_extract(record, '$.startTime')",
  scheduledTime: "baton_task_field(record, packed, 'scheduledTime')",
  endTime: "baton_task_field(record, packed, 'endTime')",
  status: 'status',
  taskType: 'task_type',
  taskId: 'task_id',
  workflowId: 'workflow_id',
};

/** Named parameters for compiled filters (`@f0`, `@f1`, …). */
export function filterBinder(params: Record<string, string | number>): Bind {
  let n = 0;
  return (value, numeric) => {
    const key = `f${n}`;
    n += 1;
    params[key] = numeric ? Number(value) : String(value);
    return `@${key}`;
  };
}

/** The conditions of a run query that `runs` and `archived_runs` share (not free text). */
export function runConditions(query: RunQuery, params: Record<string, string | number>): string[] {
  const where: string[] = [];
  if (query.filter !== undefined)
    where.push(compileFilter(query.filter, RUN_FILTER_COLUMNS, filterBinder(params)));
  if (query.name !== undefined) {
    where.push('workflow_name = @name');
    params.name = query.name;
  }
  if (query.status !== undefined && query.status.length > 0) {
    where.push('status IN (SELECT value FROM json_each(@status))');
    params.status = JSON.stringify(query.status);
  }
  if (query.correlationId !== undefined) {
    where.push('correlation_id = @correlationId');
    params.correlationId = query.correlationId;
  }
  if (query.from !== undefined) {
    where.push('create_time >= @from');
    params.from = query.from;
  }
  if (query.to !== undefined) {
    where.push('create_time <= @to');
    params.to = query.to;
  }
  return where;
}

export function searchTasks(
  c: SqliteConnection,
  query: TaskQuery,
): { totalHits: number; results: TaskRecord[] } {
  const params: Record<string, string | number> = {};
  const where: string[] = [];
  if (query.filter !== undefined) where.push(compileFilter(query.filter, TASK_COLUMNS, filterBinder(params)));
  const text = freeTextNeedle(query.freeText);
  if (text !== undefined) {
    where.push(
      `(task_id = @text OR instr(baton_lower(baton_task_field(record, packed, 'inputData')), @needle) > 0
        OR instr(baton_lower(baton_task_field(record, packed, 'outputData')), @needle) > 0)`,
    );
    params.text = text;
    params.needle = text.toLowerCase();
  }
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const total = c.get<{ n: number }>(`SELECT count(*) AS n FROM tasks ${whereSql}`, params)?.n ?? 0;
  const rows = c.all<StoredTaskRow>(
    `SELECT ${TASK_ROW_COLUMNS} FROM tasks ${whereSql} ORDER BY ${taskOrderBy(query.sort, SORT_COLUMNS)} LIMIT @size OFFSET @start`,
    copyWith(params, { size: Math.max(0, query.size), start: Math.max(0, query.start) }),
  );
  return { totalHits: total, results: rows.map(taskFromRow) };
}

export function searchRuns(
  c: SqliteConnection,
  query: RunQuery,
): { totalHits: number; results: RunRecord[] } {
  const params: Record<string, string | number> = {};
  const where = runConditions(query, params);
  const text = freeTextNeedle(query.freeText);
  if (text !== undefined) {
    // Every arm from an index: the id by prefix (a range of the primary key), the correlation id
    // whole, and every word of the needle as a word prefix in the FTS5 index of the run's search
    // text (correlation id, name, reason, input and output).
    const arms = ['(workflow_id >= @text AND workflow_id < @textEnd)', 'correlation_id = @text'];
    params.text = text;
    params.textEnd = `${text}\u{10FFFF}`;
    const words = freeTextWords(text);
    if (words.length > 0) {
      arms.push(
        'workflow_id IN (SELECT run_search.workflow_id FROM run_search WHERE run_search MATCH @words)',
      );
      params.words = words.map((w) => `"${w}"*`).join(' ');
    }
    where.push(`(${arms.join(' OR ')})`);
  }
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const total = c.get<{ n: number }>(`SELECT count(*) AS n FROM runs ${whereSql}`, params)?.n ?? 0;
  const rows = c.all<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM runs ${whereSql} ORDER BY ${runOrderBy(query.sort)} LIMIT @size OFFSET @start`,
    copyWith(params, { size: Math.max(0, query.size), start: Math.max(0, query.start) }),
  );
  return { totalHits: total, results: rows.map(run) };
}

export function searchArchivedRuns(
  c: SqliteConnection,
  query: RunQuery,
): { totalHits: number; results: ArchivedRun[] } {
  const params: Record<string, string | number> = {};
  const where = runConditions(query, params);
  const text = freeTextNeedle(query.freeText);
  if (text !== undefined) {
    where.push(
      `(workflow_id = @text OR correlation_id = @text OR instr(baton_lower(workflow_name), @needle) > 0)`,
    );
    params.text = text;
    params.needle = text.toLowerCase();
  }
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const total = c.get<{ n: number }>(`SELECT count(*) AS n FROM archived_runs ${whereSql}`, params)?.n ?? 0;
  const rows = c.all<ArchivedRunRow>(
    `SELECT ${ARCHIVED_COLUMNS} FROM archived_runs ${whereSql} ORDER BY ${runOrderBy(query.sort)} LIMIT @size OFFSET @start`,
    copyWith(params, { size: Math.max(0, query.size), start: Math.max(0, query.start) }),
  );
  return { totalHits: total, results: rows.map(archivedFromRow) };
}
