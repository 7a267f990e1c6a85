import type { ErrorBody } from '@baton/protocol';

/**
 * The server answered with an error status. `message` is the server's own message
 * (docs/design/errors.md#the-error-body) when it sent one; `body` keeps the whole answer
 * for callers that need the details.
 */
export class BatonApiError extends Error {
  override name = 'BatonApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly body: ErrorBody | string | undefined,
    readonly method: string,
    readonly url: string,
  ) {
    super(message);
  }

  /**
   * The server's specific error code (`RUN_NOT_FOUND`, `TASK_NOT_IN_PROGRESS`, ...: see
   * `ERROR_REGISTRY` in @baton/protocol and docs/errors.md), when the answer carried one.
   */
  get errorCode(): string | undefined {
    return typeof this.body === 'object' && typeof this.body.errorCode === 'string'
      ? this.body.errorCode
      : undefined;
  }

  /** True when repeating the same request later may succeed (the server's `retryable`, or 5xx/429). */
  get retryable(): boolean {
    if (typeof this.body === 'object' && typeof this.body.retryable === 'boolean') return this.body.retryable;
    return this.status >= 500 || this.status === 429;
  }

  /** Builds the error from an answer, preferring the error body's message. */
  static from(method: string, url: string, status: number, body: unknown): BatonApiError {
    const parsed = isErrorBody(body) ? body : undefined;
    const text = typeof body === 'string' ? body.trim() : '';
    const message = parsed?.message ?? (text.length > 0 ? text.slice(0, 500) : `HTTP ${status}`);
    return new BatonApiError(status, message, parsed ?? (text || undefined), method, url);
  }
}

function isErrorBody(value: unknown): value is ErrorBody {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/** The server could not be reached at all (refused, reset, DNS, timeout). Names the URL. */
export class BatonConnectionError extends Error {
  override name = 'BatonConnectionError';
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach Baton at ${url}: ${describeCause(cause)}`, { cause });
  }
}

/**
 * Something answered, but not Baton's API: a web page where JSON was expected (a path after the
 * port, or another program on that port). Names the URL asked.
 */
export class BatonNotApiError extends Error {
  override name = 'BatonNotApiError';
  constructor(
    readonly url: string,
    readonly contentType: string,
  ) {
    super(
      `the answer from ${url} is a web page (${contentType}), not Baton's API: give the address Baton listens on, with no path after the port (http://host:8080)`,
    );
  }
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  // undici hides the system error (ECONNREFUSED, ENOTFOUND) one level down.
  const inner = (cause as Error & { cause?: unknown }).cause;
  if (inner instanceof Error) {
    const code = (inner as Error & { code?: unknown }).code;
    return typeof code === 'string' ? `${code} (${inner.message})` : inner.message;
  }
  return cause.message;
}

/**
 * Thrown by a handler to fail its task for good: the task ends FAILED_WITH_TERMINAL_ERROR and is
 * not retried, whatever its definition's retryCount. Any other error ends it FAILED (retried
 * while attempts remain).
 */
export class TerminalError extends Error {
  override name = 'TerminalError';
  /** Output recorded with the failure. */
  readonly outputData: Record<string, unknown> | undefined;
  constructor(message: string, options: { outputData?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.outputData = options.outputData;
  }

  /** Recognises terminal errors across package copies (a realm-safe brand, not instanceof). */
  static is(value: unknown): value is TerminalError {
    return value instanceof Error && value.name === 'TerminalError';
  }
}

/** Every thrown value as an Error. */
export function coerceError(value: unknown): Error {
  return value instanceof Error
    ? value
    : new Error(typeof value === 'string' ? value : JSON.stringify(value));
}
