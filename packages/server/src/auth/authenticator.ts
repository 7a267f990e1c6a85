import { decodeJwt } from 'jose';

import type { Clock } from '../clock.js';
import type { AuthOptions } from '../config/auth-options.js';
import type { Applications } from './applications.js';
import { BATON_ISSUER, type BatonTokens } from './baton-tokens.js';
import { type Identity, identityOf, rolesAt } from './identity.js';
import type { OidcVerifier } from './oidc-verifier.js';
import { TokenRejected } from './token-errors.js';

const MAX_TOKEN_LENGTH = 16 * 1024;
/** A checked token is trusted again, without its signature check, for at most this long (and never past its exp). */
const VERIFIED_TTL_MS = 60_000;
const VERIFIED_MAX = 10_000;

/** What a checked token proved: who it is and, for application keys, which key (roles are read per use). */
interface Verified {
  until: number;
  subject: string;
  via: 'oidc' | 'application';
  roles?: string[];
  keyId?: string;
}

/**
 * Turns the request's token into an identity, or throws TokenRejected saying why. The token's
 * unverified `iss` only chooses the verifier (Baton's own key or the identity provider's JWKS);
 * each verifier then checks everything itself with a fixed list of algorithms.
 */
export class Authenticator {
  /**
   * Tokens already checked, by their exact text: a worker sends the same token thousands of
   * times, and a signature check costs far more than the request it guards.
   */
  private readonly verified = new Map<string, Verified>();

  constructor(
    private readonly clock: Clock,
    private readonly options: AuthOptions,
    private readonly baton: BatonTokens,
    private readonly applications: Applications,
    private readonly oidc: OidcVerifier | undefined,
  ) {}

  /** The bearer token from `Authorization: Bearer …` or `X-Authorization` (Conductor's SDKs). */
  static tokenOf(headers: Record<string, string | string[] | undefined>): string {
    const authorization = headers.authorization;
    const x = headers['x-authorization'];
    if (Array.isArray(authorization) || Array.isArray(x)) {
      throw new TokenRejected(
        'AUTHORIZATION_HEADER_INVALID',
        { detail: 'only one authorization header may be sent' },
        'invalid_request',
      );
    }
    let token: string | undefined;
    if (authorization !== undefined && authorization.trim() !== '') {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match)
        throw new TokenRejected(
          'AUTHORIZATION_HEADER_INVALID',
          { detail: 'the Authorization header must be "Bearer <token>"' },
          'invalid_request',
        );
      token = match[1];
    } else if (x !== undefined && x.trim() !== '') {
      token = /^Bearer\s+(\S+)\s*$/i.exec(x)?.[1] ?? x.trim();
    }
    if (token === undefined) {
      throw new TokenRejected('TOKEN_REQUIRED', {});
    }
    if (token.length > MAX_TOKEN_LENGTH)
      throw new TokenRejected('TOKEN_INVALID', { reason: 'token too long' }, 'invalid_token');
    return token;
  }

  async identify(headers: Record<string, string | string[] | undefined>): Promise<Identity> {
    const token = Authenticator.tokenOf(headers);
    const now = this.clock.now();
    let known = this.verified.get(token);
    if (known && known.until <= now) {
      this.verified.delete(token);
      known = undefined;
    }
    known ??= await this.check(token, now);
    if (known.via === 'oidc') return identityOf(known.subject, 'oidc', known.roles ?? []);
    const roles = await this.applications.rolesOfKey(known.keyId ?? '');
    if (roles === undefined) {
      throw new TokenRejected('TOKEN_REVOKED', {}, 'invalid_token');
    }
    return identityOf(known.subject, 'application', roles);
  }

  private remember(token: string, verified: Verified): Verified {
    if (this.verified.size >= VERIFIED_MAX) this.verified.clear();
    this.verified.set(token, verified);
    return verified;
  }

  /** Checks a token fully (signature, issuer, audience, expiry) and remembers what it proved. */
  private async check(token: string, now: number): Promise<Verified> {
    let issuer: unknown;
    let exp: number;
    let iat: unknown;
    try {
      const claims = decodeJwt(token);
      issuer = claims.iss;
      iat = claims.iat;
      exp = typeof claims.exp === 'number' ? claims.exp * 1000 : now;
    } catch {
      throw new TokenRejected('TOKEN_INVALID', { reason: 'malformed token' }, 'invalid_token');
    }
    // Trusted again until it expires (plus the allowed skew), for at most VERIFIED_TTL_MS.
    const until = Math.min(exp + this.options.clockSkewSeconds * 1000, now + VERIFIED_TTL_MS);
    if (issuer === BATON_ISSUER) {
      const { subject, keyId } = await this.baton.verify(token, this.options.clockSkewSeconds);
      // Baton always writes iat: a token without one was not made by POST /api/token.
      if (typeof iat !== 'number')
        throw new TokenRejected('TOKEN_INVALID', { reason: 'token has no iat' }, 'invalid_token');
      this.checkLifetime(iat * 1000, exp);
      return this.remember(token, { until, subject: `app:${subject}`, via: 'application', keyId });
    }
    if (this.oidc === undefined || issuer !== this.oidc.issuer) {
      throw new TokenRejected('TOKEN_INVALID', { reason: 'wrong issuer' }, 'invalid_token');
    }
    const claims = await this.oidc.verify(token);
    this.checkLifetime(typeof iat === 'number' ? iat * 1000 : now, exp);
    const subject =
      typeof claims.sub === 'string'
        ? claims.sub
        : typeof claims.client_id === 'string'
          ? claims.client_id
          : 'unknown';
    return this.remember(token, {
      until,
      subject,
      via: 'oidc',
      roles: rolesAt(claims, this.options.rolesClaim),
    });
  }

  /**
   * A signed token is still refused when it was made to live longer than the setting allows:
   * whoever holds a signing key (a leaked one included) cannot mint a token good for a year.
   */
  private checkLifetime(issuedAtMs: number, expiresAtMs: number): void {
    const max = this.options.maxTokenLifetimeSeconds;
    if (expiresAtMs - issuedAtMs > max * 1000) {
      throw new TokenRejected('TOKEN_LIFETIME_TOO_LONG', { maxSeconds: max }, 'invalid_token');
    }
  }
}
