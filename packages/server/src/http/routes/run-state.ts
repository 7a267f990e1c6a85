import type { JsonObject } from '@baton/protocol';
import type { FastifyInstance } from 'fastify';

import { RETURN_STRATEGIES, type ReturnStrategy } from '../../operations/signal-response.js';
import type { AppDeps } from '../app-deps.js';
import { fail } from '../../errors.js';
import { correlatedQuery } from '../schemas.js';

const SIGNAL_STATUSES = ['COMPLETED', 'FAILED', 'FAILED_WITH_TERMINAL_ERROR'] as const;
const MAX_CORRELATION_ITEMS = 100;

/**
 * The rest of the run API Conductor's SDK calls: runs of several names and correlation ids at
 * once, a running run's variables, and the synchronous signal with Orkes's `returnStrategy`.
 */
export function runStateRoutes(app: FastifyInstance, { workflows, runControl, signals }: AppDeps): void {
  app.post<{
    Body: { workflowNames: string[]; correlationIds: string[] };
    Querystring: { includeClosed?: boolean; includeTasks?: boolean };
  }>(
    '/api/workflow/correlated/batch',
    {
      schema: {
        tags: ['workflow'],
        summary:
          'Runs of each named definition with each correlation id; answers {correlationId: [Workflow]}',
        body: {
          type: 'object',
          required: ['workflowNames', 'correlationIds'],
          properties: {
            workflowNames: {
              type: 'array',
              maxItems: MAX_CORRELATION_ITEMS,
              items: { type: 'string', minLength: 1, maxLength: 256 },
            },
            correlationIds: {
              type: 'array',
              maxItems: MAX_CORRELATION_ITEMS,
              items: { type: 'string', minLength: 1, maxLength: 256 },
            },
          },
        },
        querystring: correlatedQuery,
      },
    },
    (req) =>
      workflows.correlatedBatch(
        req.body.workflowNames,
        req.body.correlationIds,
        req.query.includeClosed ?? false,
        req.query.includeTasks ?? false,
      ),
  );

  app.post<{ Params: { workflowId: string }; Body: JsonObject }>(
    '/api/workflow/:workflowId/variables',
    {
      schema: {
        tags: ['workflow'],
        summary:
          "Merge into a running or paused run's variables (under its lock) and re-evaluate it; answers the run (409 once ended)",
        params: {
          type: 'object',
          required: ['workflowId'],
          properties: { workflowId: { type: 'string', maxLength: 256 } },
        },
        body: { type: 'object', additionalProperties: true },
      },
    },
    async (req) => {
      await runControl.updateVariables(req.params.workflowId, req.body);
      return workflows.get(req.params.workflowId, true);
    },
  );

  app.post<{
    Params: { workflowId: string; status: (typeof SIGNAL_STATUSES)[number] };
    Querystring: { returnStrategy?: ReturnStrategy };
    Body: JsonObject | undefined;
  }>(
    '/api/tasks/:workflowId/:status/signal/sync',
    {
      schema: {
        tags: ['tasks'],
        summary:
          "Signal the run's first blocked task (as /signal) and answer the run or the task it now waits on (Orkes's returnStrategy); 404 when no task is blocked",
        params: {
          type: 'object',
          required: ['workflowId', 'status'],
          properties: {
            workflowId: { type: 'string', maxLength: 256 },
            status: { type: 'string', enum: SIGNAL_STATUSES },
          },
        },
        querystring: {
          type: 'object',
          properties: {
            returnStrategy: { type: 'string', enum: RETURN_STRATEGIES, default: 'TARGET_WORKFLOW' },
          },
        },
        body: { type: 'object', additionalProperties: true },
      },
    },
    async (req) => {
      const { workflowId } = req.params;
      const reached = await runControl.signal(workflowId, req.body ?? {}, req.params.status, false);
      // Conductor's TaskResource: nothing blocked (or the run has ended) is a 404, not the run.
      if (reached.taskId === undefined) throw fail('SIGNAL_TARGET_NOT_FOUND', { workflowId });
      return signals.respond(req.params.workflowId, req.query.returnStrategy ?? 'TARGET_WORKFLOW');
    },
  );
}
