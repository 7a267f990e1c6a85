import type { FastifyInstance } from 'fastify';

import { MAX_BULK_IDS } from '../../operations/run-control-service.js';
import type { AppDeps } from '../app-deps.js';

const archiveQuery = {
  type: 'object',
  properties: { archiveWorkflow: { type: 'boolean', default: true } },
} as const;
const idsBody = {
  type: 'array',
  items: { type: 'string', minLength: 1, maxLength: 256 },
  maxItems: MAX_BULK_IDS,
} as const;

/**
 * Conductor's remove: an ended run is moved to the archive (`archiveWorkflow=true`, the
 * default) or deleted for good; one at a time or in bulk.
 */
export function runRemovalRoutes(app: FastifyInstance, { removal }: AppDeps): void {
  app.delete<{ Params: { workflowId: string }; Querystring: { archiveWorkflow?: boolean } }>(
    '/api/workflow/:workflowId/remove',
    {
      schema: {
        tags: ['workflow'],
        summary:
          'Remove an ended run: archiveWorkflow=true (default) moves it to the archive now, false deletes it for good (409 while it runs)',
        params: {
          type: 'object',
          required: ['workflowId'],
          properties: { workflowId: { type: 'string', maxLength: 256 } },
        },
        querystring: archiveQuery,
      },
    },
    async (req, reply) => {
      await removal.remove(req.params.workflowId, req.query.archiveWorkflow ?? true);
      return reply.code(200).send();
    },
  );

  app.delete<{ Body: string[]; Querystring: { archiveWorkflow?: boolean } }>(
    '/api/workflow/bulk/remove',
    {
      schema: {
        tags: ['workflow'],
        summary: `Remove up to ${MAX_BULK_IDS} ended runs (archiveWorkflow as for one); answers {bulkSuccessfulResults, bulkErrorResults}`,
        querystring: archiveQuery,
        body: idsBody,
      },
    },
    (req) => removal.bulkRemove(req.body, req.query.archiveWorkflow ?? true),
  );

  app.post<{ Body: string[] }>(
    '/api/workflow/bulk/delete',
    {
      schema: {
        tags: ['workflow'],
        summary: `Delete up to ${MAX_BULK_IDS} ended runs for good (Orkes's bulk delete); answers {bulkSuccessfulResults, bulkErrorResults}`,
        body: idsBody,
      },
    },
    (req) => removal.bulkRemove(req.body, false),
  );
}
