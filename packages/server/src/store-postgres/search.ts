import type { TaskRecord } from '@baton/protocol';

import { freeTextNeedle, taskOrderBy } from '../store/sql-common.js';
import { type FilterColumn, compileFilter } from '../store/sql-filter.js';
import type { TaskQuery, TaskSearchField, TaskSortField } from '../store/store.js';
import type { Query } from './sql.js';

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

/** The two statements of a task search with their parameters (the query-plan test reads them). */
export function taskSearchSql(query: TaskQuery): {
  count: string;
  page: string;
  filterParams: unknown[];
  pageParams: unknown[];
} {
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
  if (text !== undefined) {
    const exact = p(text);
    const needle = p(text.toLowerCase());
    where.push(
      `(task_id = ${exact} OR strpos(lower((record->'inputData')::text), ${needle}) > 0
        OR strpos(lower((record->'outputData')::text), ${needle}) > 0)`,
    );
  }
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const filterParams = [...params];
  const limit = p(Math.max(0, query.size));
  const offset = p(Math.max(0, query.start));
  return {
    count: `SELECT count(*)::int AS n FROM tasks ${whereSql}`,
    page: `SELECT record FROM tasks ${whereSql} ORDER BY ${taskOrderBy(query.sort, SORT_COLUMNS)} LIMIT ${limit} OFFSET ${offset}`,
    filterParams,
    pageParams: params,
  };
}

export async function searchTasks(
  q: Query,
  query: TaskQuery,
): Promise<{ totalHits: number; results: TaskRecord[] }> {
  const sql = taskSearchSql(query);
  const count = await q<{ n: number }>(sql.count, sql.filterParams);
  const page = await q<{ record: TaskRecord }>(sql.page, sql.pageParams);
  return { totalHits: count.rows[0]?.n ?? 0, results: page.rows.map((r) => r.record) };
}
