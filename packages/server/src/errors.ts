import { ERROR_CODES, type ErrorCode, type ValidationError } from '@baton/protocol';

/** Every error Baton answers with carries a stable code; the HTTP layer maps it to a status. */
export class BatonError extends Error {
  override name = 'BatonError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly validationErrors?: ValidationError[],
    readonly retryable = false,
  ) {
    super(message);
  }
  get status(): number {
    return ERROR_CODES[this.code];
  }
}

export const notFound = (message: string): BatonError => new BatonError('NOT_FOUND', message);
export const conflict = (message: string): BatonError => new BatonError('CONFLICT', message);
export const badRequest = (message: string, validationErrors?: ValidationError[]): BatonError =>
  new BatonError(validationErrors ? 'VALIDATION' : 'BAD_REQUEST', message, validationErrors);

/** Normalises anything thrown into an Error, so catch blocks never handle `unknown` twice. */
export function coerceError(raw: unknown): Error & { code?: unknown } {
  if (raw instanceof Error) return raw;
  return new Error(typeof raw === 'string' ? raw : JSON.stringify(raw));
}
