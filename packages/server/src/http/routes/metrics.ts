import type { FastifyInstance } from 'fastify';

import type { AppDeps } from '../app-deps.js';

/** `GET /metrics`: Prometheus text exposition (runs, tasks, queues, liveness warnings). */
export function metricsRoutes(app: FastifyInstance, { metrics }: AppDeps): void {
  if (!metrics) return;
  app.get(
    '/metrics',
    { schema: { tags: ['admin'], summary: 'Prometheus metrics (text exposition format)' } },
    async (_req, reply) =>
      reply
        .code(200)
        .type(metrics.contentType)
        .send(await metrics.text()),
  );
}
