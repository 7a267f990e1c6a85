import type { FastifyInstance, FastifyRequest } from 'fastify';

import type { AuthOptions } from '../config/auth-options.js';
import { fail } from '../errors.js';
import { decide } from './access.js';
import type { Authenticator } from './authenticator.js';
import { ANONYMOUS } from './identity.js';
import { groupOfRoute, type RouteGroup } from './route-groups.js';
import { TokenRejected } from './token-errors.js';
import { mayWorkOn, workerRouteOf, workerTaskAccess } from './worker-scope.js';

/** Requests whose worker role must be checked against the task they name, once the body is read. */
const workerOnly = new WeakSet<FastifyRequest>();

/** The group a request falls in: its route's group; `admin` for unlisted routes; `/metrics` per setting. */
export function groupOfRequest(req: FastifyRequest, options: AuthOptions): RouteGroup {
  const url = req.routeOptions.url;
  if (url === '/metrics' && options.metricsOpen) return 'open';
  // The web UI's catch-all serves pages, but an unknown API path under it still needs a token,
  // so nobody can probe which API paths exist without one.
  if (url === '/*' && /^\/(api|metrics)(\/|$|\?)/.test(req.url)) return 'admin';
  return url === undefined ? 'admin' : (groupOfRoute(url) ?? 'admin');
}

/**
 * Authentication in `onRequest` (before the body is read, so a caller without a token costs no
 * parsing) and the worker's task-type check in `preHandler` (after validation, before the route
 * acts, so a refused request changes nothing).
 */
export function installAuthHooks(
  app: FastifyInstance,
  options: AuthOptions,
  authenticator: Authenticator,
): void {
  app.addHook('onRequest', async (req, reply) => {
    req.identity = ANONYMOUS;
    if (options.mode === 'off') return;
    // A CORS preflight carries no credentials by design; it answers only CORS headers.
    if (req.method === 'OPTIONS') return;
    const url = req.routeOptions.url;
    // An unknown path needs a valid token too, so it cannot be used to probe the API.
    const group = url === undefined ? undefined : groupOfRequest(req, options);
    if (group === 'open') return;
    try {
      req.identity = await authenticator.identify(req.headers);
    } catch (err) {
      if (err instanceof TokenRejected) reply.header('www-authenticate', err.challenge());
      throw err;
    }
    if (group === undefined) return;
    const verdict = decide(req.identity, group, options.roles, workerRouteOf(req.method, url) !== undefined);
    if (!verdict.allowed) {
      throw fail('ROLE_REQUIRED', { method: req.method, url: url ?? '', role: verdict.missingRole });
    }
    if (verdict.workerOnly) workerOnly.add(req);
  });

  app.addHook('preHandler', (req, _reply, done) => {
    if (!workerOnly.has(req)) return done();
    const locator = workerRouteOf(req.method, req.routeOptions.url);
    const identity = req.identity ?? ANONYMOUS;
    if (locator === undefined) return done();
    // A route that names a task checks the worker's types on the record its service resolves.
    req.taskAccess = workerTaskAccess(identity, options.roles.task);
    if (locator !== 'typeParam') return done();
    const params = (req.params ?? {}) as Record<string, unknown>;
    const type = typeof params.taskType === 'string' ? params.taskType : '';
    if (!mayWorkOn(identity, type)) {
      return done(fail('WORKER_ROLE_REQUIRED', { taskType: type, taskRole: options.roles.task }));
    }
    done();
  });
}
