import { errors as joseErrors } from 'jose';

import { BatonError } from '../errors.js';

/** A token that was missing or failed a check: answered 401 with the reason in the body and header. */
export class TokenRejected extends BatonError {
  constructor(
    message: string,
    /** RFC 6750 error code for WWW-Authenticate; absent when no token was sent at all. */
    readonly oauthError?: 'invalid_token' | 'invalid_request',
  ) {
    super('UNAUTHENTICATED', message);
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
  if (err instanceof joseErrors.JWTExpired) return new TokenRejected('token expired', 'invalid_token');
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
    return new TokenRejected(what, 'invalid_token');
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed)
    return new TokenRejected('bad signature', 'invalid_token');
  if (err instanceof joseErrors.JOSEAlgNotAllowed) {
    return new TokenRejected('signing algorithm not allowed', 'invalid_token');
  }
  if (err instanceof joseErrors.JWKSNoMatchingKey) {
    return new TokenRejected('no signing key of the issuer matches the token (kid)', 'invalid_token');
  }
  if (err instanceof joseErrors.JWKSMultipleMatchingKeys)
    return new TokenRejected('ambiguous signing key', 'invalid_token');
  if (err instanceof joseErrors.JOSENotSupported)
    return new TokenRejected('unsupported token algorithm', 'invalid_token');
  if (err instanceof joseErrors.JWTInvalid || err instanceof joseErrors.JWSInvalid) {
    return new TokenRejected('malformed token', 'invalid_token');
  }
  return new TokenRejected('invalid token', 'invalid_token');
}
