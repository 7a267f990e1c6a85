import {
  TASK_STATUSES,
  type SearchResult,
  type TaskRecord,
  type TaskStatus,
  type TaskSummary,
} from '@baton/protocol';

import { fail } from '../errors.js';
import {
  type SearchFilter,
  type Store,
  TASK_SORT_FIELDS,
  type TaskQuery,
  type TaskSearchField,
} from '../store/store.js';
import { filterFromQuery, timeValue } from './query-filter.js';
import { TASK_FIELDS } from './search-fields.js';
import { parseSortParam } from './sort-param.js';

/** `GET /api/tasks/search` parameters: Conductor's (start, size, sort, freeText, query) and plain filters. */
export interface TaskSearchParams {
  taskType?: string;
  status?: string;
  workflowId?: string;
  workflowType?: string;
  workflowName?: string;
  /** The worker that holds or last held the task (its `workerId`). */
  workerId?: string;
  /** On the task's startTime: epoch ms or an ISO-8601 date, inclusive. */
  from?: string;
  to?: string;
  freeText?: string;
  query?: string;
  start?: number;
  size?: number;
  sort?: string | string[];
}

export const MAX_TASK_SEARCH_SIZE = 1000;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Conductor's `TaskSummary` of a task record (times as ISO strings, input/output as JSON text). */
export function toTaskSummary(task: TaskRecord): TaskSummary {
  const summary: TaskSummary = {
    workflowId: task.workflowInstanceId,
    workflowType: task.workflowType,
    scheduledTime: iso(task.scheduledTime),
    startTime: iso(task.startTime),
    updateTime: iso(task.updateTime),
    status: task.status,
    executionTime: task.endTime > 0 && task.startTime > 0 ? task.endTime - task.startTime : 0,
    queueWaitTime: task.startTime > 0 ? task.startTime - task.scheduledTime : 0,
    taskDefName: task.taskDefName,
    taskType: task.taskType,
    input: JSON.stringify(task.inputData),
    output: JSON.stringify(task.outputData),
    taskId: task.taskId,
    referenceTaskName: task.referenceTaskName,
    retryCount: task.retryCount,
    workflowPriority: task.workflowPriority,
  };
  if (task.correlationId !== undefined) summary.correlationId = task.correlationId;
  if (task.endTime > 0) summary.endTime = iso(task.endTime);
  if (task.reasonForIncompletion !== undefined) summary.reasonForIncompletion = task.reasonForIncompletion;
  if (task.workerId !== undefined) summary.workerId = task.workerId;
  if (task.domain !== undefined) summary.domain = task.domain;
  if (task.externalOutputPayloadStoragePath !== undefined)
    summary.externalOutputPayloadStoragePath = task.externalOutputPayloadStoragePath;
  return summary;
}

function list(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function time(text: string | undefined, field: string): number | undefined {
  if (text === undefined || text === '') return undefined;
  const ms = timeValue(text);
  if (ms === undefined) {
    throw fail('TIME_INVALID', { field }, [
      { path: `querystring.${field}`, message: 'not a time', invalidValue: text },
    ]);
  }
  return ms;
}

/** Search parameters as a store query: plain filters and the query expression, and-ed. */
export function toTaskQuery(params: TaskSearchParams): TaskQuery {
  const items: Array<SearchFilter<TaskSearchField>> = [];
  const types = list(params.taskType);
  if (types.length > 0) items.push({ kind: 'in', field: 'taskType', values: types, negate: false });
  const statuses: TaskStatus[] = list(params.status).map((raw) => {
    const status = TASK_STATUSES.find((s) => s === raw.toUpperCase());
    if (!status) {
      throw fail('STATUS_UNKNOWN', { statuses: TASK_STATUSES.join(', ') }, [
        { path: 'querystring.status', message: 'unknown status', invalidValue: raw },
      ]);
    }
    return status;
  });
  if (statuses.length > 0) items.push({ kind: 'in', field: 'status', values: statuses, negate: false });
  if (params.workflowId)
    items.push({ kind: 'compare', field: 'workflowId', op: '=', value: params.workflowId });
  const runName = params.workflowType ?? params.workflowName;
  if (runName) items.push({ kind: 'compare', field: 'workflowType', op: '=', value: runName });
  if (params.workerId) items.push({ kind: 'compare', field: 'workerId', op: '=', value: params.workerId });
  const from = time(params.from, 'from');
  const to = time(params.to, 'to');
  if (from !== undefined) items.push({ kind: 'compare', field: 'startTime', op: '>=', value: from });
  if (to !== undefined) {
    // A task that has not started has startTime 0: it did not start before `to`.
    items.push({ kind: 'compare', field: 'startTime', op: '<=', value: to });
    if (from === undefined) items.push({ kind: 'compare', field: 'startTime', op: '>', value: 0 });
  }
  if (params.query !== undefined && params.query.trim() !== '' && params.query.trim() !== '*')
    items.push(filterFromQuery(params.query, TASK_FIELDS));
  const query: TaskQuery = {
    start: params.start ?? 0,
    size: params.size ?? 100,
    sort: parseSortParam(params.sort, TASK_SORT_FIELDS),
  };
  if (items.length === 1 && items[0]) query.filter = items[0];
  else if (items.length > 1) query.filter = { kind: 'and', items };
  if (params.freeText !== undefined) query.freeText = params.freeText;
  return query;
}

/** Task search (`GET /api/tasks/search` and `/search-v2`). */
export class TaskSearch {
  constructor(private readonly store: Store) {}

  async summaries(params: TaskSearchParams): Promise<SearchResult<TaskSummary>> {
    const { totalHits, results } = await this.tasks(params);
    return { totalHits, results: results.map(toTaskSummary) };
  }

  async tasks(params: TaskSearchParams): Promise<SearchResult<TaskRecord>> {
    const query = toTaskQuery(params);
    return this.store.read((tx) => tx.searchTasks(query));
  }
}
