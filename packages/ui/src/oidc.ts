import { ApiError, adoptToken } from './api/client';

/**
 * Signing in at the identity provider: OAuth 2 authorization code with PKCE (S256), as a public
 * client (no secret in the browser). The verifier and state wait in sessionStorage for the
 * provider's redirect back to `/auth/callback`; the access token then goes where an
 * application key's token goes. Needs a secure context (HTTPS, or 127.0.0.1/localhost) for
 * WebCrypto's SHA-256.
 */

export const CALLBACK_PATH = '/auth/callback';
const PENDING_KEY = 'baton.oidc';

interface Pending {
  verifier: string;
  state: string;
  tokenEndpoint: string;
  clientId: string;
  returnTo: string;
}

interface Discovery {
  authorization_endpoint?: unknown;
  token_endpoint?: unknown;
}

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomText(size: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(size)));
}

const redirectUri = (): string => `${window.location.origin}${CALLBACK_PATH}`;

/** Leaves for the provider's sign-in page; comes back to the current page once signed in. */
export async function startOidcSignIn(
  issuer: string,
  client: { clientId: string; scope: string },
): Promise<void> {
  if (!window.isSecureContext || crypto.subtle === undefined) {
    throw new Error('signing in at the identity provider needs HTTPS (or 127.0.0.1): use an application key');
  }
  const res = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
  if (!res.ok) throw new Error(`the identity provider's discovery document answered HTTP ${res.status}`);
  const discovery = (await res.json()) as Discovery;
  if (typeof discovery.authorization_endpoint !== 'string' || typeof discovery.token_endpoint !== 'string') {
    throw new Error("the identity provider's discovery document names no authorization or token endpoint");
  }
  const verifier = randomText(32);
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  const pending: Pending = {
    verifier,
    state: randomText(16),
    tokenEndpoint: discovery.token_endpoint,
    clientId: client.clientId,
    returnTo:
      window.location.pathname === CALLBACK_PATH ? '/' : window.location.pathname + window.location.search,
  };
  window.sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(discovery.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri(),
    scope: client.scope,
    state: pending.state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  window.location.assign(url.toString());
}

/** Trades the code the provider sent back for a token; answers where to go next. */
export async function finishOidcSignIn(search: URLSearchParams): Promise<string> {
  const raw = window.sessionStorage.getItem(PENDING_KEY);
  window.sessionStorage.removeItem(PENDING_KEY);
  const error = search.get('error');
  if (error !== null)
    throw new Error(`the identity provider refused: ${search.get('error_description') ?? error}`);
  if (raw === null) throw new Error('no sign-in was started in this tab: start again');
  const pending = JSON.parse(raw) as Pending;
  const code = search.get('code');
  // A state that is not ours is a forged or replayed answer.
  if (code === null || search.get('state') !== pending.state) {
    throw new Error('the identity provider answered a different sign-in: start again');
  }
  const res = await fetch(pending.tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri(),
      client_id: pending.clientId,
      code_verifier: pending.verifier,
    }),
  });
  const body = (await res.json().catch(() => ({}))) as {
    access_token?: unknown;
    error?: unknown;
    error_description?: unknown;
  };
  if (!res.ok || typeof body.access_token !== 'string') {
    const why = [body.error, body.error_description].filter((v) => typeof v === 'string').join(': ');
    throw new ApiError(res.status, `the identity provider gave no token${why ? ` (${why})` : ''}`);
  }
  adoptToken(body.access_token);
  return pending.returnTo;
}
