import type { FastifyInstance } from 'fastify';

import type { Clock } from '../clock.js';
import type { AuthOptions } from '../config/auth-options.js';
import type { Store } from '../store/store.js';
import { applicationRoutes } from './application-routes.js';
import { Applications } from './applications.js';
import { installAuthHooks } from './auth-hooks.js';
import { Authenticator } from './authenticator.js';
import { BatonTokens } from './baton-tokens.js';
import { installHttpGuards } from './http-guards.js';
import { OidcVerifier } from './oidc-verifier.js';
import { sessionRoute } from './session-route.js';
import { installOperatorActions } from './operator-actions.js';

export interface AuthRoom {
  readonly options: AuthOptions;
  readonly store: Store;
  readonly clock: Clock;
  readonly applications: Applications;
  readonly tokens: BatonTokens;
  readonly authenticator: Authenticator;
}

/** Builds the authentication parts from the settings (no I/O: keys and discovery load on first use). */
export function createAuth(
  options: AuthOptions,
  store: Store,
  clock: Clock,
  /** BATON_SECRETS_KEY: seals the token-signing key in the database. */
  secretsKey?: Buffer,
): AuthRoom {
  const applications = new Applications(store, clock);
  const tokens = new BatonTokens(store, clock, options.tokenTtlSeconds, secretsKey);
  const oidc =
    options.issuer !== undefined && options.audience !== undefined
      ? new OidcVerifier({
          issuer: options.issuer,
          audience: options.audience,
          clockSkewSeconds: options.clockSkewSeconds,
          ...(options.jwksUrl !== undefined && { jwksUrl: options.jwksUrl }),
        })
      : undefined;
  return {
    options,
    store,
    clock,
    applications,
    tokens,
    authenticator: new Authenticator(clock, options, tokens, applications, oidc),
  };
}

/**
 * The hooks auth adds to the HTTP app: security headers, CORS and rate limits (the limiter's
 * per-route hooks run after the authentication hook, so it counts per identity), the
 * authentication hook and operator-action records. Called before any route is added; the
 * application routes are a route module like the others (`authRoutes`, listed in http/route-modules.ts).
 */
export async function installAuth(app: FastifyInstance, room: AuthRoom): Promise<void> {
  // Helmet's hook first, so a refused request carries the security headers too.
  await installHttpGuards(app, room.options);
  installAuthHooks(app, room.options, room.authenticator);
  installOperatorActions(app, room.store, room.clock);
}

/** Orkes's application, access-key and token routes, and the caller's session (for the web UI). */
export function authRoutes(
  app: FastifyInstance,
  { auth, options }: { auth: AuthRoom; options: { tracing: { urlTemplate?: string | undefined } } },
): void {
  applicationRoutes(app, auth.applications, auth.tokens, auth.options);
  // What the web UI shows besides: a trace viewer's URL template, when configured.
  sessionRoute(app, auth.authenticator, auth.options, { traceUrlTemplate: options.tracing.urlTemplate });
}

/** Start-up work that must finish before the server listens: the bootstrap admin key. */
export async function prepareAuth(room: AuthRoom): Promise<void> {
  const bootstrap = room.options.bootstrap;
  if (bootstrap)
    await room.applications.bootstrap(bootstrap.keyId, bootstrap.keySecret, room.options.roles.admin);
  if (room.options.mode === 'on') await room.tokens.signingKey();
}
