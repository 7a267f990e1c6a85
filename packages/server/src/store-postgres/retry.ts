import { isRetryable } from '../store/sqlstate.js';

export interface RetryOptions {
  /** Total attempts, the first included (default 8). */
  attempts?: number;
  /** Backoff of the first retry in ms; doubles each time, jittered, capped by maxDelayMs (default 5). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Which errors are worth another attempt (default: serialization failure, deadlock). */
  retryable?: (err: unknown) => boolean;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Told about each retry (metrics, logs). */
  onRetry?: (err: unknown, attempt: number) => void;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `fn` again from the start when it fails with a retryable error, with a small jittered
 * exponential backoff, up to `attempts` times; the last error is thrown as is.
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 8);
  const base = options.baseDelayMs ?? 5;
  const max = options.maxDelayMs ?? 250;
  const retryable = options.retryable ?? isRetryable;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= attempts || !retryable(err)) throw err;
      options.onRetry?.(err, attempt);
      const ceiling = Math.min(max, base * 2 ** (attempt - 1));
      await sleep(ceiling / 2 + random() * (ceiling / 2));
    }
  }
}
