import type { FastifyInstance } from 'fastify';

import type { AppDeps } from '../app-deps.js';
import { nameParams } from '../bounds.js';

const workflowIdParam = nameParams('workflowId');

/** Repairs of queued work: delayed callbacks made visible, dead letters requeued, runs repaired. */
export function repairRoutes(app: FastifyInstance, { repair }: AppDeps): void {
  app.post<{ Params: { workflowId: string } }>(
    '/api/workflow/:workflowId/resetcallbacks',
    {
      schema: {
        tags: ['workflow'],
        summary:
          "Make the run's delayed worker messages (callbacks, retry and start delays) visible now; 204 (Conductor's answer)",
        params: workflowIdParam,
      },
    },
    async (req, reply) => {
      await repair.resetCallbacks(req.params.workflowId);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { taskType: string } }>(
    '/api/admin/requeue/:taskType',
    {
      schema: {
        tags: ['admin'],
        summary:
          'Reopen every dead-lettered task of this type as a new attempt; a run it failed returns to RUNNING. Answers {taskType, requeued, skipped}',
        params: nameParams('taskType'),
      },
    },
    (req) => repair.requeueDeadLetters(req.params.taskType),
  );

  app.post<{ Params: { workflowId: string } }>(
    '/api/admin/repair/:workflowId',
    {
      schema: {
        tags: ['admin'],
        summary:
          "Re-queue the run's open worker tasks whose message is missing or dead-lettered. Answers {workflowId, status, requeued, unchanged}",
        params: workflowIdParam,
      },
    },
    (req) => repair.repair(req.params.workflowId),
  );
}
