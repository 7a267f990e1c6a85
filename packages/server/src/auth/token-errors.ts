import { errors as joseErrors } from 'jose';

import { BatonError, errorMessage } from '../errors.js';

/** The registered codes of a refused token (all of class UNAUTHENTICATED). */
type TokenErrorCode =
  | 'TOKEN_REQUIRED'
  | 'AUTHORIZATION_HEADER_INVALID'
  | 'TOKEN_INVALID'
  | 'TOKEN_EXPIRED'
  | 'TOKEN_REVOKED'
  | 'TOKEN_LIFETIME_TOO_LONG';

/** A token that was missing or failed a check: answered 401 with the reason in the body and header. */
export class TokenRejected extends BatonError {
  constructor(
    code: TokenErrorCode,
    params: Readonly<Record<string, string | number>>,
    /** RFC 6750 error code for WWW-Authenticate; absent when no token was sent at all. */
    readonly oauthError?: 'invalid_token' | 'invalid_request',
  ) {
    super(code, errorMessage(code, params));
  }

  /** The WWW-Authenticate challenge for this rejection (RFC 6750 §3). */
  challenge(): string {
    if (this.oauthError === undefined) return 'Bearer realm="baton"';
    const description = this.message.replace(/["\\]/g, "'");
    return `Bearer realm="baton", error="${this.oauthError}", error_description="${description}"`;
  }
}

/** Says why jose refused a token, in words a caller can act on. Never echoes the token. */
export function explainJoseError(err: unknown): TokenRejected {
  if (err instanceof joseErrors.JWTExpired) return new TokenRejected('TOKEN_EXPIRED', {}, 'invalid_token');
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    const what =
      err.claim === 'aud'
        ? 'wrong audience'
        : err.claim === 'iss'
          ? 'wrong issuer'
          : err.claim === 'nbf'
            ? 'token not yet valid'
            : err.claim === 'iat'
              ? 'token issued in the future'
              : `claim ${err.claim} is invalid (${err.reason})`;
    return new TokenRejected('TOKEN_INVALID', { reason: what }, 'invalid_token');
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed)
    return new TokenRejected('TOKEN_INVALID', { reason: 'bad signature' }, 'invalid_token');
  if (err instanceof joseErrors.JOSEAlgNotAllowed) {
    return new TokenRejected('TOKEN_INVALID', { reason: 'signing algorithm not allowed' }, 'invalid_token');
  }
  if (err instanceof joseErrors.JWKSNoMatchingKey) {
    return new TokenRejected(
      'TOKEN_INVALID',
      { reason: 'no signing key of the issuer matches the token (kid)' },
      'invalid_token',
    );
  }
  if (err instanceof joseErrors.JWKSMultipleMatchingKeys)
    return new TokenRejected('TOKEN_INVALID', { reason: 'ambiguous signing key' }, 'invalid_token');
  if (err instanceof joseErrors.JOSENotSupported)
    return new TokenRejected('TOKEN_INVALID', { reason: 'unsupported token algorithm' }, 'invalid_token');
  if (err instanceof joseErrors.JWTInvalid || err instanceof joseErrors.JWSInvalid) {
    return new TokenRejected('TOKEN_INVALID', { reason: 'malformed token' }, 'invalid_token');
  }
  return new TokenRejected('TOKEN_INVALID', { reason: 'invalid token' }, 'invalid_token');
}
