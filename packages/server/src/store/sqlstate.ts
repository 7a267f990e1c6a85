/**
 * PostgreSQL error classification by SQLSTATE, as tables. The driver puts the SQLSTATE on
 * `error.code`; callers may wrap errors, so the `cause` chain is searched too.
 */

/** SQLSTATEs Baton reacts to, with PostgreSQL's condition names. */
export const SQLSTATE = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
  lockNotAvailable: '55P03',
  queryCanceled: '57014',
  adminShutdown: '57P01',
  undefinedTable: '42P01',
  readOnlyTransaction: '25006',
} as const;

/**
 * Errors after which the whole transaction can simply run again: PostgreSQL rolled it back
 * and nothing of it is visible, and a new attempt may well succeed.
 */
export const RETRYABLE_SQLSTATES: ReadonlySet<string> = new Set<string>([
  SQLSTATE.serializationFailure,
  SQLSTATE.deadlockDetected,
]);

export const UNIQUE_VIOLATION_SQLSTATES: ReadonlySet<string> = new Set<string>([SQLSTATE.uniqueViolation]);

/** The SQLSTATE of an error or of the first error in its `cause` chain that has one. */
export function sqlState(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isRetryable(err: unknown): boolean {
  const state = sqlState(err);
  return state !== undefined && RETRYABLE_SQLSTATES.has(state);
}

export function isUniqueViolation(err: unknown): boolean {
  const state = sqlState(err);
  return state !== undefined && UNIQUE_VIOLATION_SQLSTATES.has(state);
}
