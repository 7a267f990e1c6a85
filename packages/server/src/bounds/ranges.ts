/**
 * The bounds policy: the range of every number a request may carry, in one place. Route
 * schemas take their fragments from `http/bounds.ts`, which reads these constants, so the
 * OpenAPI document shows the ranges; the engine and services use them to clamp what they derive.
 *
 * Why these ranges: seconds and versions fit a signed 32-bit integer (PostgreSQL INTEGER, and
 * Conductor's Java `int`); times derived from them (now + seconds × 1000) stay far below what
 * a BIGINT or a JavaScript Date holds, so no stored time can overflow or fail to format.
 */

/** 2^31 − 1: the largest signed 32-bit integer. */
export const INT32_MAX = 2_147_483_647;

/** Any duration in seconds (timeouts, delays, callbacks, rate windows). */
export const MAX_SECONDS = INT32_MAX;
/** Any duration in milliseconds a request gives (jitter, mocked execution times). */
export const MAX_MILLIS = INT32_MAX;
/** Definition versions are 1 … 2^31 − 1. */
export const MAX_VERSION = INT32_MAX;
/** Run priorities, as Conductor's: 0 … 99. */
export const MAX_PRIORITY = 99;
/** Retries of one task (Conductor allows any int; more than this is a loop, not a retry). */
export const MAX_RETRY_COUNT = 10_000;
/** Counts a definition may give (concurrency, rate per window, backoff factor). */
export const MAX_COUNT = INT32_MAX;
/** Search paging: first hit. Offsets beyond this are no query anyone reads. */
export const MAX_PAGE_START = 1_000_000;
/** Search paging: hits per page. */
export const MAX_PAGE_SIZE = 5_000;
/** Longest name or id a path or field may carry (definition names, refs, ids, queues). */
export const MAX_NAME_LENGTH = 512;
/** Longest free text in a short field (reasons, descriptions, correlation ids, worker ids). */
export const MAX_TEXT_LENGTH = 65_536;

/** Free JSON (inputs, outputs, variables, templates, logs, mocks): deepest nesting accepted. */
export const MAX_JSON_DEPTH = 128;
/**
 * The deepest JSON the engine assembles into a record (a task's input, a JOIN's or DO_WHILE's
 * output, a run's output): room for a value of MAX_JSON_DEPTH inside the parameters or the join
 * that holds it, and far below the few thousand levels where a recursive walk (serializing the
 * record, resolving an expression) overflows the stack.
 */
export const MAX_RECORD_DEPTH = 2 * MAX_JSON_DEPTH;
/** Free JSON: most values (objects, arrays and scalars together) in one request body. */
export const MAX_JSON_NODES = 1_000_000;

/** Longest delay any derived time may add to now: the longest duration in seconds, in ms. */
export const MAX_DELAY_MS = MAX_SECONDS * 1000;
/**
 * The latest instant Baton stores: year 9999's end. Below BIGINT's and SQLite INTEGER's limits
 * and inside what a JavaScript Date can format.
 */
export const MAX_TIME_MS = 253_402_300_799_999;

/** Whether `version` can name a stored version (anything else names none, never a driver error). */
/**
 * The version after `latest` (1 for a new name), or undefined when `latest` is already the
 * highest storable version: the caller refuses rather than write a number the stores cannot hold.
 */
export function nextVersion(latest: number | undefined): number | undefined {
  const next = (latest ?? 0) + 1;
  return next <= MAX_VERSION ? next : undefined;
}

export function isStorableVersion(version: number): boolean {
  return Number.isInteger(version) && version >= 0 && version <= MAX_VERSION;
}

/** A priority from anywhere (an expression, a stored record) made one of 0 … 99. */
export function boundedPriority(priority: number): number {
  return Number.isFinite(priority) ? Math.min(MAX_PRIORITY, Math.max(0, Math.trunc(priority))) : 0;
}

/**
 * Most tasks one decision acts on; the rest waits for the next step (a CONTINUE timer). A DO_WHILE
 * over tasks that never wait would otherwise loop inside one transaction, and one request, forever.
 */
export const MAX_TASKS_PER_STEP = 2_500;

/**
 * Most scripts (INLINE, LAMBDA, SWITCH and loop conditions, jq) one decision runs; the rest waits
 * for the next step, as with MAX_TASKS_PER_STEP. Scripts run on script threads and a decision is
 * computed again after each answer (scripting/async-scripts.ts), so a decision's cost grows with
 * the square of its scripts: this keeps a long loop of scripts linear.
 */
export const MAX_SCRIPTS_PER_STEP = 64;
