import { decodeJwt } from 'jose';

import type { AuthOptions } from '../config/auth-options.js';
import type { Applications } from './applications.js';
import { BATON_ISSUER, type BatonTokens } from './baton-tokens.js';
import { type Identity, identityOf, rolesAt } from './identity.js';
import type { OidcVerifier } from './oidc-verifier.js';
import { TokenRejected } from './token-errors.js';

const MAX_TOKEN_LENGTH = 16 * 1024;

/**
 * Turns the request's token into an identity, or throws TokenRejected saying why. The token's
 * unverified `iss` only chooses the verifier (Baton's own key or the identity provider's JWKS);
 * each verifier then checks everything itself with a fixed list of algorithms.
 */
export class Authenticator {
  constructor(
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
      throw new TokenRejected('only one authorization header may be sent', 'invalid_request');
    }
    let token: string | undefined;
    if (authorization !== undefined && authorization.trim() !== '') {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match)
        throw new TokenRejected('the Authorization header must be "Bearer <token>"', 'invalid_request');
      token = match[1];
    } else if (x !== undefined && x.trim() !== '') {
      token = /^Bearer\s+(\S+)\s*$/i.exec(x)?.[1] ?? x.trim();
    }
    if (token === undefined) {
      throw new TokenRejected(
        'a token is required: send "Authorization: Bearer <token>" or "X-Authorization: <token>"',
      );
    }
    if (token.length > MAX_TOKEN_LENGTH) throw new TokenRejected('token too long', 'invalid_token');
    return token;
  }

  async identify(headers: Record<string, string | string[] | undefined>): Promise<Identity> {
    const token = Authenticator.tokenOf(headers);
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      throw new TokenRejected('malformed token', 'invalid_token');
    }
    if (issuer === BATON_ISSUER) {
      const { subject, keyId } = await this.baton.verify(token, this.options.clockSkewSeconds);
      const roles = await this.applications.rolesOfKey(keyId);
      if (roles === undefined)
        throw new TokenRejected(
          'the access key of this token was revoked or turned inactive',
          'invalid_token',
        );
      return identityOf(`app:${subject}`, 'application', roles);
    }
    if (this.oidc === undefined || issuer !== this.oidc.issuer) {
      throw new TokenRejected('wrong issuer', 'invalid_token');
    }
    const claims = await this.oidc.verify(token);
    const subject =
      typeof claims.sub === 'string'
        ? claims.sub
        : typeof claims.client_id === 'string'
          ? claims.client_id
          : 'unknown';
    return identityOf(subject, 'oidc', rolesAt(claims, this.options.rolesClaim));
  }
}
