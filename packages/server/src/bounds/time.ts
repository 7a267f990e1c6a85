import { MAX_DELAY_MS, MAX_TIME_MS } from './ranges.js';

/**
 * Derived times. A stored time is an integer number of epoch milliseconds that a Date can
 * format; anything computed from request values (now + delay) goes through here first.
 */

/** A delay in ms made safe to add: NaN and negatives are 0, anything larger is the longest delay. */
export function boundedDelayMs(ms: number): number {
  if (Number.isNaN(ms) || ms <= 0) return 0;
  return Math.floor(Math.min(ms, MAX_DELAY_MS));
}

/** `now + delay`, never past the latest storable instant and always an integer. */
export function addDelay(now: number, delayMs: number): number {
  return storableTime(now + boundedDelayMs(delayMs));
}

/** An epoch-ms value clamped to what the stores hold: integer, 0 … MAX_TIME_MS (NaN is 0). */
export function storableTime(ms: number): number {
  if (Number.isNaN(ms) || ms <= 0) return 0;
  return Math.floor(Math.min(ms, MAX_TIME_MS));
}

/** The literal answered for a time that cannot be shown (a value stored by an older version). */
export const UNKNOWN_TIME = 'unknown';

/** ISO-8601 text of an epoch-ms value, or `"unknown"` when it is no valid time; never throws. */
export function isoOrUnknown(ms: number): string {
  if (!Number.isFinite(ms)) return UNKNOWN_TIME;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? UNKNOWN_TIME : date.toISOString();
}
