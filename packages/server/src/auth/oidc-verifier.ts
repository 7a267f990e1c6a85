import { createRemoteJWKSet, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';

import { type BatonError, fail } from '../errors.js';
import { explainJoseError } from './token-errors.js';

/**
 * Asymmetric algorithms only: a token signed with HMAC (the algorithm-confusion attack, where
 * the issuer's public key is used as an HMAC secret) or with `alg: none` is refused by jose
 * before any key is used.
 */
export const OIDC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

export interface OidcSettings {
  issuer: string;
  audience: string;
  /** The JWKS URL; found from the issuer's discovery document when absent. */
  jwksUrl?: string;
  clockSkewSeconds: number;
  /** Shortest time between two JWKS fetches caused by an unknown kid (rotation). */
  refetchCooldownMs?: number;
}

const DISCOVERY_TIMEOUT_MS = 5000;

/**
 * Checks identity-provider tokens: signature against the issuer's JWKS (cached; fetched again
 * when a token names a kid the cache does not hold, so a key rotation at the provider needs no
 * restart), issuer, audience, expiry with bounded clock skew.
 */
export class OidcVerifier {
  private keys: JWTVerifyGetKey | undefined;
  private discovering: Promise<JWTVerifyGetKey> | undefined;

  constructor(private readonly settings: OidcSettings) {}

  get issuer(): string {
    return this.settings.issuer;
  }

  async verify(token: string): Promise<JWTPayload> {
    const keys = this.keys ?? (await this.discover());
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: OIDC_ALGORITHMS,
        clockTolerance: this.settings.clockSkewSeconds,
        requiredClaims: ['exp'],
      });
      return payload;
    } catch (err) {
      if (isFetchFailure(err)) throw providerDown(err);
      throw explainJoseError(err);
    }
  }

  /** Finds the JWKS once (concurrent callers share the attempt; a failure is retried next time). */
  private discover(): Promise<JWTVerifyGetKey> {
    this.discovering ??= (async () => {
      const jwksUrl = this.settings.jwksUrl ?? (await this.jwksFromDiscovery());
      this.keys = createRemoteJWKSet(new URL(jwksUrl), {
        cooldownDuration: this.settings.refetchCooldownMs ?? 2000,
        cacheMaxAge: 10 * 60_000,
        timeoutDuration: DISCOVERY_TIMEOUT_MS,
      });
      return this.keys;
    })().finally(() => {
      this.discovering = undefined;
    });
    return this.discovering;
  }

  private async jwksFromDiscovery(): Promise<string> {
    const url = `${this.settings.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    let doc: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      doc = (await res.json()) as typeof doc;
    } catch (err) {
      throw providerDown(err);
    }
    // OpenID Connect Discovery §4.3: the document must name the issuer it was fetched for.
    if (doc.issuer !== this.settings.issuer || typeof doc.jwks_uri !== 'string') {
      throw fail('IDENTITY_PROVIDER_MISMATCH');
    }
    return doc.jwks_uri;
  }
}

function isFetchFailure(err: unknown): boolean {
  return (
    err instanceof Error && (err.name === 'JWKSTimeout' || /fetch failed|Expected 200 OK/.test(err.message))
  );
}

function providerDown(err: unknown): BatonError {
  const why = err instanceof Error ? err.message : String(err);
  return fail('IDENTITY_PROVIDER_UNREACHABLE', { reason: why });
}
