export interface ValidationError {
  /** Where the problem is, e.g. `tasks[2].taskReferenceName` or `body.status`. */
  path: string;
  message: string;
  invalidValue?: unknown;
}

/** Stable error codes; a code is never reused for another meaning. */
export const ERROR_CODES = {
  VALIDATION: 400,
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  NOT_READY: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;
