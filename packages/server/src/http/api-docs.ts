import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/**
 * The API's own description: the OpenAPI document at `/api/openapi.json` and its browsable view
 * at `/api/docs`. Both are hidden from the document they serve.
 */
export async function apiDocsRoutes(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
  app.get('/api/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
