import type { RunRecord, TaskRecord, WorkflowStatus } from '@baton/protocol';

import type { PortAccess } from './access.js';

/**
 * A search condition tree over named fields (never SQL): built by `src/search` from plain
 * parameters or Conductor's query form, compiled by each store into bound SQL (`sql-filter.ts`).
 */
/**
 * A search condition tree over named fields (never SQL): built by `src/search` from plain
 * parameters or Conductor's query form, compiled by each store into bound SQL (`sql-filter.ts`).
 */
export type FilterValue = string | number;
export type FilterOp = '=' | '!=' | '>' | '>=' | '<' | '<=';
export type SearchFilter<F extends string> =
  | { kind: 'and' | 'or'; items: Array<SearchFilter<F>> }
  | { kind: 'in'; field: F; values: FilterValue[]; negate: boolean }
  | { kind: 'compare'; field: F; op: FilterOp; value: FilterValue };

export const RUN_SEARCH_FIELDS = [
  'workflowId',
  'workflowType',
  'version',
  'status',
  'correlationId',
  'parentWorkflowId',
  'startTime',
  'updateTime',
  'endTime',
] as const;
export type RunSearchField = (typeof RUN_SEARCH_FIELDS)[number];

export const TASK_SEARCH_FIELDS = [
  'taskId',
  'taskType',
  'status',
  'workflowId',
  'workflowType',
  'referenceTaskName',
  'workerId',
  'startTime',
  'scheduledTime',
  'updateTime',
  'endTime',
] as const;
export type TaskSearchField = (typeof TASK_SEARCH_FIELDS)[number];

export const TASK_SORT_FIELDS = [
  'updateTime',
  'startTime',
  'scheduledTime',
  'endTime',
  'status',
  'taskType',
  'taskId',
  'workflowId',
] as const;
export type TaskSortField = (typeof TASK_SORT_FIELDS)[number];

export interface TaskQuery {
  filter?: SearchFilter<TaskSearchField>;
  /** Matched against the task id and the text of its input and output. `*` or empty = all. */
  freeText?: string;
  start: number;
  size: number;
  sort: Array<{ field: TaskSortField; order: 'ASC' | 'DESC' }>;
}

export interface RunQuery {
  /** Conditions of Conductor's query form, and-ed with the plain ones below. */
  filter?: SearchFilter<RunSearchField>;
  name?: string;
  status?: WorkflowStatus[];
  correlationId?: string;
  /** Epoch ms, inclusive, on createTime. */
  from?: number;
  to?: number;
  /** Matched against id, correlation id, name and the run's input/output text. `*` or empty = all. */
  freeText?: string;
  start: number;
  size: number;
  sort: Array<{ field: RunSortField; order: 'ASC' | 'DESC' }>;
}
export const RUN_SORT_FIELDS = [
  'createTime',
  'updateTime',
  'endTime',
  'status',
  'workflowType',
  'workflowId',
] as const;
export type RunSortField = (typeof RUN_SORT_FIELDS)[number];

/** Search over runs and tasks: a condition tree compiled into bound SQL by each dialect. */
export interface SearchPort {
  searchRuns(query: RunQuery): Promise<{ totalHits: number; results: RunRecord[] }>;
  /** Tasks matching the query, served from indexes on type, status, run, run name and times. */
  searchTasks(query: TaskQuery): Promise<{ totalHits: number; results: TaskRecord[] }>;
}

/** Which `SearchPort` methods write (refused inside `read()`); every method is checked (tx-access.ts). */
export const SEARCH_ACCESS = {
  searchRuns: 'read',
  searchTasks: 'read',
} as const satisfies PortAccess<SearchPort>;
