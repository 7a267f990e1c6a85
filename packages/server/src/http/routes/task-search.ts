import type { FastifyInstance } from 'fastify';

import { MAX_QUERY_LENGTH } from '../../search/query-parser.js';
import { MAX_TASK_SEARCH_SIZE, type TaskSearchParams } from '../../search/task-search.js';
import type { AppDeps } from '../app-deps.js';

const searchQuery = {
  type: 'object',
  properties: {
    taskType: { type: 'string', maxLength: 4096 },
    status: { type: 'string', maxLength: 1024 },
    workflowId: { type: 'string', maxLength: 256 },
    workflowType: { type: 'string', maxLength: 256 },
    workflowName: { type: 'string', maxLength: 256 },
    workerId: { type: 'string', maxLength: 256 },
    from: { type: 'string', maxLength: 64 },
    to: { type: 'string', maxLength: 64 },
    freeText: { type: 'string', maxLength: 1024 },
    query: { type: 'string', maxLength: MAX_QUERY_LENGTH },
    start: { type: 'integer', minimum: 0, maximum: 1_000_000 },
    size: { type: 'integer', minimum: 0, maximum: MAX_TASK_SEARCH_SIZE },
    sort: {
      anyOf: [
        { type: 'string', maxLength: 256 },
        { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 256 } },
      ],
    },
  },
} as const;

/**
 * Task search: Conductor's `/api/tasks/search` (answers `TaskSummary` rows) and `/search-v2`
 * (whole tasks), with plain filters and Conductor's `query` expression.
 */
export function taskSearchRoutes(app: FastifyInstance, { taskSearch }: AppDeps): void {
  app.get<{ Querystring: TaskSearchParams }>(
    '/api/tasks/search',
    {
      schema: {
        tags: ['tasks'],
        summary:
          'Search tasks by type, status, run, run name, start time, free text or a query expression; answers {totalHits, results: [TaskSummary]}',
        querystring: searchQuery,
      },
    },
    (req) => taskSearch.summaries(req.query),
  );
  app.get<{ Querystring: TaskSearchParams }>(
    '/api/tasks/search-v2',
    {
      schema: {
        tags: ['tasks'],
        summary: 'Search tasks as /api/tasks/search does; answers {totalHits, results: [Task]}',
        querystring: searchQuery,
      },
    },
    (req) => taskSearch.tasks(req.query),
  );
}
