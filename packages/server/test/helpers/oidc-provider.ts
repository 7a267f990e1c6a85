import type { Server } from 'node:http';
import { createServer } from 'node:net';

import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

/**
 * A real OpenID provider (the `oidc-provider` package) on 127.0.0.1 for the auth tests. Clients
 * get tokens with the client credentials grant; tokens are JWTs signed with the provider's keys
 * and carry the claims given per client. `rotateKeys()` restarts it on the same address with a
 * new signing key (new kid), as a provider rotating its keys would look to Baton.
 */
export interface TestClient {
  id: string;
  secret: string;
  /** Extra claims on this client's access tokens (roles, realm_access…). */
  claims: Record<string, unknown>;
  /** Access token lifetime (default 300 s). */
  ttlSeconds?: number;
  /**
   * Makes this a public client of the authorization code flow with PKCE (a browser app such as
   * the web UI) sending people back here; the provider's own development sign-in and consent
   * pages then take any login.
   */
  redirectUri?: string;
}

export interface TestOidcProvider {
  readonly issuer: string;
  readonly audience: string;
  /** The private key now signing tokens (a test re-signs with another key to forge). */
  signingKid(): string;
  /** A client credentials token; `resource` picks the audience (default the provider's). */
  token(clientId: string, resource?: string): Promise<string>;
  rotateKeys(): Promise<void>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

async function newKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: `k-${Math.random().toString(36).slice(2, 10)}`, alg: 'RS256', use: 'sig' };
}

export async function startOidcProvider(options: {
  audience: string;
  clients: TestClient[];
}): Promise<TestOidcProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  let key = await newKey();
  let server: Server | undefined;

  const start = async (): Promise<void> => {
    const byId = new Map(options.clients.map((c) => [c.id, c]));
    const provider = new Provider(issuer, {
      clients: options.clients.map((c) =>
        c.redirectUri === undefined
          ? {
              client_id: c.id,
              client_secret: c.secret,
              grant_types: ['client_credentials'],
              redirect_uris: [],
              response_types: [],
            }
          : {
              client_id: c.id,
              token_endpoint_auth_method: 'none',
              grant_types: ['authorization_code'],
              redirect_uris: [c.redirectUri],
              response_types: ['code'],
            },
      ),
      jwks: { keys: [key] },
      ttl: { ClientCredentials: (_ctx, _token, client) => byId.get(client.clientId)?.ttlSeconds ?? 300 },
      features: {
        devInteractions: { enabled: options.clients.some((c) => c.redirectUri !== undefined) },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => options.audience,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resource, client) => ({
            scope: 'api',
            audience: resource,
            accessTokenFormat: 'jwt',
            accessTokenTTL: byId.get(client.clientId)?.ttlSeconds ?? 300,
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
      extraTokenClaims: (_ctx, token) => {
        const clientId = (token as { clientId?: string }).clientId;
        return (clientId && byId.get(clientId)?.claims) || {};
      },
    });
    await new Promise<void>((resolve, reject) => {
      const s = provider.listen(port, '127.0.0.1');
      s.once('listening', () => resolve());
      s.once('error', reject);
      server = s;
    });
  };

  const stopServer = async (): Promise<void> => {
    const s = server;
    server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await start();
  return {
    issuer,
    audience: options.audience,
    signingKid: () => String(key.kid),
    async token(clientId, resource) {
      const client = options.clients.find((c) => c.id === clientId);
      if (!client) throw new Error(`no client ${clientId}`);
      const body = new URLSearchParams({ grant_type: 'client_credentials', scope: 'api' });
      body.set('resource', resource ?? options.audience);
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
        },
        body,
      });
      const json = (await res.json()) as {
        access_token?: string;
        error?: string;
        error_description?: string;
      };
      if (!res.ok || !json.access_token) {
        throw new Error(
          `token request failed: ${res.status} ${json.error ?? ''} ${json.error_description ?? ''}`,
        );
      }
      return json.access_token;
    },
    async rotateKeys() {
      await stopServer();
      key = await newKey();
      await start();
    },
    stop: stopServer,
  };
}
