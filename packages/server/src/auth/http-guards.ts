import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import helmet from 'helmet';

import type { AuthOptions } from '../config/auth-options.js';
import { fail } from '../errors.js';

/**
 * Security headers on every answer, CORS only for configured origins, and per-identity rate
 * limits. Registered before the routes (the rate limiter hooks each route as it is added) and
 * after the authentication hook, so a limit is counted per identity, not per address.
 */
export async function installHttpGuards(app: FastifyInstance, options: AuthOptions): Promise<void> {
  // Built once: the fastify plugin rebuilt helmet (and re-parsed the policy) on every request.
  const securityHeaders = helmet({
    // The API answers JSON; the docs page (swagger-ui) needs its own scripts and styles only.
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        // The web UI signing in at the identity provider reads its discovery document and
        // trades the code at its token endpoint from the browser.
        connectSrc: ["'self'", ...(options.ui && options.issuer ? [new URL(options.issuer).origin] : [])],
        // Baton is often served over plain HTTP inside a network; upgrading would break the docs page.
        upgradeInsecureRequests: null,
      },
    },
  });
  app.addHook('onRequest', (request, reply, done) => {
    securityHeaders(request.raw, reply.raw, (err?: unknown) => done(err instanceof Error ? err : undefined));
  });
  if (options.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: options.corsOrigins.includes('*') ? true : [...options.corsOrigins],
      methods: ['GET', 'POST', 'PUT', 'DELETE'],
      allowedHeaders: ['authorization', 'x-authorization', 'content-type'],
      maxAge: 600,
    });
  }
  // Always registered: the token exchange has a limit of its own (each attempt costs a slow
  // hash), and every other route is limited only when BATON_RATE_LIMIT_MAX is set.
  await app.register(rateLimit, {
    global: options.rateLimitMax > 0,
    max: options.rateLimitMax > 0 ? options.rateLimitMax : 1_000_000,
    timeWindow: options.rateLimitWindowMs,
    keyGenerator: (req: FastifyRequest) =>
      req.identity && req.identity.via !== 'anonymous' ? `id:${req.identity.subject}` : `ip:${req.ip}`,
    // Health probes are not callers.
    allowList: (req: FastifyRequest) => HEALTH_PROBES.has(req.routeOptions.url ?? ''),
    errorResponseBuilder: (_req, context) =>
      fail('RATE_LIMIT_EXCEEDED', { max: context.max, after: context.after }),
  });
}

const HEALTH_PROBES = new Set(['/health', '/health/live', '/health/ready']);

/** Token exchanges per caller address per minute (route config of `POST /api/token`). */
export const TOKEN_EXCHANGE_LIMIT = { max: 120, timeWindow: 60_000 };
