import type { FastifyInstance } from 'fastify';

import { ENV_KEYS } from '../../config/env.js';
import { publicSettings } from '../../config/options.js';
import { coerceError } from '../../errors.js';
import type { AppDeps } from '../app-deps.js';
import { copyWith } from '../../copy-with.js';

/** Health and operator views. Only non-secret settings are ever shown. */
export function adminRoutes(app: FastifyInstance, deps: AppDeps): void {
  const health = async (): Promise<{ status: number; body: Record<string, unknown> }> => {
    const checks: Record<string, () => Promise<void | Record<string, unknown>>> = {
      database: () => deps.store.ping(),
      ...deps.healthChecks,
    };
    const components: Record<string, { status: 'UP' | 'DOWN'; error?: string }> = {};
    for (const [name, check] of Object.entries(checks)) {
      try {
        const details = (await check()) ?? {};
        components[name] = copyWith<Record<string, unknown>, { status: 'UP' }>(details, { status: 'UP' });
      } catch (raw) {
        components[name] = { status: 'DOWN', error: coerceError(raw).message };
      }
    }
    const up = Object.values(components).every((c) => c.status === 'UP');
    return { status: up ? 200 : 503, body: { status: up ? 'UP' : 'DOWN', components } };
  };
  for (const path of ['/health', '/api/health']) {
    app.get(
      path,
      { schema: { tags: ['admin'], summary: 'Health of the database and engine loops' } },
      async (_req, reply) => {
        const { status, body } = await health();
        return reply.code(status).send(body);
      },
    );
  }
  // Liveness: the process answers. A database outage is no reason to restart it (it reconnects
  // by itself), so this stays 200 while readiness says 503; a wedged process does not answer.
  app.get(
    '/health/live',
    { schema: { tags: ['admin'], summary: 'Liveness: 200 while the process serves requests' } },
    async (_req, reply) => reply.code(200).send({ status: 'UP' }),
  );
  // Readiness: whether to send traffic here: 503 while the database (or another required part) is down.
  app.get(
    '/health/ready',
    {
      schema: {
        tags: ['admin'],
        summary: 'Readiness: 200 when the database and every required part answer, else 503',
      },
    },
    async (_req, reply) => {
      const { status, body } = await health();
      return reply.code(status).send(body);
    },
  );

  app.get('/api/admin/config', { schema: { tags: ['admin'], summary: 'Non-secret settings' } }, () =>
    publicSettings(deps.options, deps.rawEnv),
  );

  app.get('/api/admin/env', { schema: { tags: ['admin'], summary: 'Configuration keys Baton reads' } }, () =>
    ENV_KEYS.map((k) => ({
      name: k.name,
      description: k.description,
      default: 'default' in k ? k.default : null,
      secret: 'secret' in k ? k.secret : false,
      set: deps.rawEnv[k.name] !== undefined,
    })),
  );

  app.get('/api/admin/queues', { schema: { tags: ['admin'], summary: 'Counts per worker queue' } }, () =>
    deps.tasks.queueCounts(),
  );
}
