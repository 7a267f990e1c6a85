import type { FastifyInstance } from 'fastify';

import type { AuthOptions } from '../config/auth-options.js';
import type { Authenticator } from './authenticator.js';
import { TokenRejected } from './token-errors.js';

/**
 * `GET /api/auth/session`: what a caller (the web UI) needs to sign in and to know what it may
 * do. Open, so it answers without a token whether authentication is on and how to get one; with
 * a token it checks it (401 saying why when it fails, like any route) and names its roles, so the
 * UI hides the actions they do not allow. Baton's own tokens carry no roles (they are read from
 * the key per use), hence an endpoint rather than reading the token's claims.
 */
export function sessionRoute(
  app: FastifyInstance,
  authenticator: Authenticator,
  options: AuthOptions,
  /** What the web UI shows besides: a trace viewer's URL template (`BATON_TRACE_URL_TEMPLATE`). */
  ui: { traceUrlTemplate?: string | undefined } = {},
): void {
  app.get(
    '/api/auth/session',
    {
      schema: {
        tags: ['applications'],
        summary:
          'Whether authentication is on, how to sign in, the role of each group, and (with a token) who the caller is and their roles',
        response: {
          200: {
            type: 'object',
            required: ['authEnabled', 'groupRoles'],
            properties: {
              authEnabled: { type: 'boolean' },
              issuer: { type: 'string', description: 'the identity provider, when one is configured' },
              uiClient: {
                type: 'object',
                description:
                  "the web UI's public client at the identity provider (authorization code with PKCE), when configured",
                properties: { clientId: { type: 'string' }, scope: { type: 'string' } },
              },
              traceUrlTemplate: {
                type: 'string',
                description:
                  "a trace viewer's URL with {traceId}, when configured: the UI links a run to its trace",
              },
              groupRoles: {
                type: 'object',
                description: 'the role each caller group needs (admin may do everything)',
                properties: Object.fromEntries(
                  ['metadata', 'workflow', 'task', 'event', 'admin'].map((g) => [g, { type: 'string' }]),
                ),
              },
              caller: {
                type: 'object',
                description: 'absent when auth is on and no token was sent',
                properties: {
                  subject: { type: 'string' },
                  via: { type: 'string', enum: ['oidc', 'application', 'anonymous'] },
                  roles: { type: 'array', items: { type: 'string' } },
                },
              },
            },
          },
        },
      },
    },
    async (req, reply) => {
      const base = {
        authEnabled: options.mode === 'on',
        ...(options.issuer !== undefined && { issuer: options.issuer }),
        ...(options.ui !== undefined && { uiClient: options.ui }),
        ...(ui.traceUrlTemplate !== undefined && { traceUrlTemplate: ui.traceUrlTemplate }),
        groupRoles: options.roles,
      };
      // Auth off: everyone may do everything, as the anonymous caller.
      if (options.mode === 'off')
        return { ...base, caller: { subject: 'anonymous', via: 'anonymous', roles: [] } };
      const sent = [req.headers.authorization, req.headers['x-authorization']].some(
        (h) => h !== undefined && h !== '',
      );
      if (!sent) return base;
      try {
        const identity = await authenticator.identify(req.headers);
        return {
          ...base,
          caller: { subject: identity.subject, via: identity.via, roles: [...identity.roles].sort() },
        };
      } catch (err) {
        // A 401 saying why, with the challenge, as on every other route.
        if (err instanceof TokenRejected) void reply.header('www-authenticate', err.challenge());
        throw err;
      }
    },
  );
}
