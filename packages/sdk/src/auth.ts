import { BatonApiError } from './errors.js';

/**
 * Credentials for a Baton server with authentication on: a bearer token as given, or an
 * application key exchanged at `POST /api/token {keyId, keySecret}` for a short-lived token
 * (Orkes's shape, so the same keys serve Conductor's SDK and this one). The exchanged token is
 * kept until shortly before it expires (its JWT `exp`, else `tokenTtlMs`) or until the server
 * answers 401, then exchanged again.
 */
export type Credentials =
  | { token: string }
  | {
      keyId: string;
      keySecret: string;
      /** Used when the token carries no `exp`; default 30 min. */ tokenTtlMs?: number;
      /**
       * Ask for tokens that live this long (Baton's `expiration`, 1 to 86400; the server's
       * BATON_AUTH_TOKEN_TTL_SECONDS caps it); default: the server's lifetime.
       */
      expirationSeconds?: number;
    };

/**
 * Refresh this long before the token's own expiry, so a request never carries a dying token:
 * a minute, or a fifth of a shorter token's life (else a short-lived token would be exchanged
 * again for every request).
 */
const EXPIRY_MARGIN_MS = 60_000;
const EXPIRY_MARGIN_SHARE = 0.2;
const DEFAULT_TTL_MS = 30 * 60_000;

export interface TokenSource {
  /** The Authorization header value, or undefined when no credentials are set. */
  header(): Promise<string | undefined>;
  /** Forget a token the server refused; answers whether a fresh one can be had. */
  invalidate(): boolean;
}

export function tokenSource(
  baseUrl: string,
  credentials: Credentials | undefined,
  fetchImpl: typeof fetch,
  now: () => number = Date.now,
): TokenSource {
  if (!credentials) return { header: () => Promise.resolve(undefined), invalidate: () => false };
  if ('token' in credentials) {
    const header = `Bearer ${credentials.token}`;
    return { header: () => Promise.resolve(header), invalidate: () => false };
  }
  let cached: { token: string; refreshAt: number } | undefined;
  let inFlight: Promise<string> | undefined;
  const exchange = async (): Promise<string> => {
    const url = `${baseUrl}/api/token`;
    const res = await fetchImpl(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        keyId: credentials.keyId,
        keySecret: credentials.keySecret,
        ...(credentials.expirationSeconds !== undefined && { expiration: credentials.expirationSeconds }),
      }),
    });
    const text = await res.text();
    if (!res.ok) {
      // Never echo the secret; the server's message says what was wrong.
      const refused = BatonApiError.from('POST', url, res.status, parseBody(text));
      throw new BatonApiError(
        refused.status,
        `application key ${credentials.keyId} refused: ${refused.message}`,
        refused.body,
        'POST',
        url,
      );
    }
    const token = parseToken(text);
    if (!token) throw new Error(`POST ${url} answered without a token`);
    const issuedAt = now();
    const expiresAt = jwtExpiry(token) ?? issuedAt + (credentials.tokenTtlMs ?? DEFAULT_TTL_MS);
    const margin = Math.min(EXPIRY_MARGIN_MS, Math.max(0, expiresAt - issuedAt) * EXPIRY_MARGIN_SHARE);
    cached = { token, refreshAt: expiresAt - margin };
    return token;
  };
  return {
    header: async () => {
      if (cached && cached.refreshAt > now()) return `Bearer ${cached.token}`;
      // Concurrent requests share one exchange.
      inFlight ??= exchange().finally(() => {
        inFlight = undefined;
      });
      return `Bearer ${await inFlight}`;
    },
    invalidate: () => {
      cached = undefined;
      return true;
    },
  };
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** `{token}` (Orkes) or a bare token in the body. */
function parseToken(text: string): string | undefined {
  try {
    const body: unknown = JSON.parse(text);
    if (
      typeof body === 'object' &&
      body !== null &&
      typeof (body as { token?: unknown }).token === 'string'
    ) {
      return (body as { token: string }).token;
    }
    return typeof body === 'string' ? body : undefined;
  } catch {
    return text.trim() || undefined;
  }
}

/** The `exp` claim of a JWT in epoch ms, without verifying it (the server does that). */
export function jwtExpiry(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const exp = typeof claims === 'object' && claims !== null ? (claims as { exp?: unknown }).exp : undefined;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
