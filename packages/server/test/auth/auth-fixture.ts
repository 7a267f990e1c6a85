import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';

import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';

import { type Clock, systemClock } from '../../src/clock.js';
import { compileOptions } from '../../src/config/options.js';
import { type BatonServer, createServer } from '../../src/server.js';
import { startOidcProvider, type TestClient, type TestOidcProvider } from '../helpers/oidc-provider.js';
import type { OpenedStore, StoreCase } from '../helpers/stores.js';

export const AUDIENCE = 'https://baton.test/api';
export const BOOTSTRAP = { keyId: 'bootstrap-key-1', keySecret: 'bootstrap-secret-0123456789' };

/**
 * One identity-provider client per role the tests play (the role table of
 * docs/auth.md#route-groups-and-roles).
 */
export const CLIENTS: TestClient[] = [
  { id: 'c-admin', secret: 'secret-admin', claims: { roles: ['admin'] } },
  { id: 'c-metadata', secret: 'secret-metadata', claims: { roles: ['metadata'] } },
  { id: 'c-workflow', secret: 'secret-workflow', claims: { roles: ['workflow'] } },
  { id: 'c-task', secret: 'secret-task', claims: { roles: ['task'] } },
  { id: 'c-event', secret: 'secret-event', claims: { roles: ['event'] } },
  { id: 'c-none', secret: 'secret-none', claims: { roles: [] } },
  { id: 'c-worker-a', secret: 'secret-worker-a', claims: { roles: ['worker:auth_type_a'] } },
  { id: 'c-worker-all', secret: 'secret-worker-all', claims: { roles: ['worker:*'] } },
  { id: 'c-keycloak', secret: 'secret-keycloak', claims: { realm_access: { roles: ['metadata'] } } },
  { id: 'c-short', secret: 'secret-short', claims: { roles: ['admin'] }, ttlSeconds: 1 },
  // Made to live 25 hours: over the default BATON_AUTH_MAX_TOKEN_LIFETIME_SECONDS.
  { id: 'c-long', secret: 'secret-long', claims: { roles: ['admin'] }, ttlSeconds: 90_000 },
];

export interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Record<string, unknown>;
}

/** A request through the real routes with these headers (a token or none). */
export async function send(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  options: {
    token?: string;
    header?: 'authorization' | 'x-authorization';
    body?: unknown;
    raw?: string;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) {
    if (options.header === 'x-authorization') headers['x-authorization'] = options.token;
    else headers.authorization = `Bearer ${options.token}`;
  }
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const res = await app.inject({ method, url, headers, ...(payload !== undefined && { payload }) });
  let body: unknown;
  try {
    body = res.body ? JSON.parse(res.body) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, body, text: res.body, headers: res.headers };
}

export interface AuthSuite {
  readonly app: FastifyInstance;
  readonly server: BatonServer;
  readonly store: OpenedStore['store'];
  readonly idp: TestOidcProvider;
  /** A fresh identity-provider token of a test client. */
  token(clientId: string): Promise<string>;
}

/**
 * A Baton server with authentication on (the test's OpenID provider and a bootstrap key) on a
 * fresh store, for the enclosing suite.
 */
export function authSuite(
  storeCase: StoreCase,
  env: Record<string, string> = {},
  clock: Clock = systemClock,
): AuthSuite {
  let opened: OpenedStore | undefined;
  let server: BatonServer | undefined;
  let idp: TestOidcProvider | undefined;
  let dataDir: string | undefined;
  const tokens = new Map<string, string>();
  before(async () => {
    idp = await startOidcProvider({ audience: AUDIENCE, clients: CLIENTS });
    opened = await storeCase.open();
    dataDir = mkdtempSync(path.join(tmpdir(), 'baton-auth-'));
    server = await createServer({
      options: compileOptions({
        BATON_DATA_DIR: dataDir,
        BATON_LOG_LEVEL: 'silent',
        BATON_AUTH_ISSUER: idp.issuer,
        BATON_AUTH_AUDIENCE: AUDIENCE,
        BATON_AUTH_CLOCK_SKEW_SECONDS: '0',
        BATON_AUTH_BOOTSTRAP_KEY_ID: BOOTSTRAP.keyId,
        BATON_AUTH_BOOTSTRAP_KEY_SECRET: BOOTSTRAP.keySecret,
        ...env,
      }),
      store: opened.store,
      clock,
      logger: pino({ level: 'silent' }),
      timerLoop: false,
    });
    await server.app.ready();
  });
  after(async () => {
    await server?.stop();
    await opened?.cleanup();
    await idp?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  const need = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the auth suite is read before its before() hook ran');
    return value;
  };
  return {
    get app() {
      return need(server).app;
    },
    get server() {
      return need(server);
    },
    get store() {
      return need(opened).store;
    },
    get idp() {
      return need(idp);
    },
    async token(clientId: string) {
      const cached = tokens.get(clientId);
      if (cached && clientId !== 'c-short') return cached;
      const fresh = await need(idp).token(clientId);
      tokens.set(clientId, fresh);
      return fresh;
    },
  };
}
