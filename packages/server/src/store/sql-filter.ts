import type { FilterValue, SearchFilter } from './store.js';

/** How a search field reads in SQL: a column or expression, and whether it compares as a number. */
export interface FilterColumn {
  sql: string;
  numeric: boolean;
}

/** Binds a value and answers its placeholder (`$3::bigint` on PostgreSQL, `?` on SQLite). */
export type Bind = (value: FilterValue, numeric: boolean) => string;

/**
 * Compiles a search condition tree into a SQL condition. Field names map to SQL through the
 * store's own column table only, and every value is a bound parameter: user text never becomes
 * SQL. An unknown field is a programming error (the search module checked the names).
 */
export function compileFilter<F extends string>(
  filter: SearchFilter<F>,
  columns: Readonly<Record<F, FilterColumn>>,
  bind: Bind,
): string {
  switch (filter.kind) {
    case 'and':
    case 'or': {
      if (filter.items.length === 0) return filter.kind === 'and' ? 'TRUE' : 'FALSE';
      const joiner = filter.kind === 'and' ? ' AND ' : ' OR ';
      return `(${filter.items.map((item) => compileFilter(item, columns, bind)).join(joiner)})`;
    }
    case 'in': {
      const column = columnOf(columns, filter.field);
      const values = filter.values.map((v) => bind(v, column.numeric)).join(', ');
      return `${column.sql} ${filter.negate ? 'NOT IN' : 'IN'} (${values})`;
    }
    case 'compare': {
      const column = columnOf(columns, filter.field);
      const op = filter.op === '!=' ? '<>' : filter.op;
      return `${column.sql} ${op} ${bind(filter.value, column.numeric)}`;
    }
  }
}

function columnOf<F extends string>(columns: Readonly<Record<F, FilterColumn>>, field: F): FilterColumn {
  const column = Object.hasOwn(columns, field) ? columns[field] : undefined;
  if (column === undefined) throw new Error(`no column for search field ${field}`);
  return column;
}

/** Run search fields: the same columns in `runs` and `archived_runs`. */
export const RUN_FILTER_COLUMNS = {
  workflowId: { sql: 'workflow_id', numeric: false },
  workflowType: { sql: 'workflow_name', numeric: false },
  version: { sql: 'workflow_version', numeric: true },
  status: { sql: 'status', numeric: false },
  correlationId: { sql: 'correlation_id', numeric: false },
  parentWorkflowId: { sql: 'parent_workflow_id', numeric: false },
  startTime: { sql: 'create_time', numeric: true },
  updateTime: { sql: 'update_time', numeric: true },
  endTime: { sql: 'end_time', numeric: true },
} as const satisfies Record<string, FilterColumn>;
