import {
  INT32_MAX,
  MAX_COUNT,
  MAX_MILLIS,
  MAX_NAME_LENGTH,
  MAX_PAGE_SIZE,
  MAX_PAGE_START,
  MAX_PRIORITY,
  MAX_RETRY_COUNT,
  MAX_SECONDS,
  MAX_TEXT_LENGTH,
  MAX_VERSION,
} from '../bounds/ranges.js';

/**
 * Schema fragments of the bounds policy (`bounds/ranges.ts`). Route schemas use these instead of
 * bare `{type: 'integer'}`, so every number has a range and the OpenAPI document shows it.
 */

/** A duration in whole seconds: 0 … 2^31 − 1. */
export const seconds32 = { type: 'integer', minimum: 0, maximum: MAX_SECONDS } as const;
/** A duration in milliseconds: 0 … 2^31 − 1. */
export const millis32 = { type: 'integer', minimum: 0, maximum: MAX_MILLIS } as const;
/** A definition version: 1 … 2^31 − 1. */
export const version = { type: 'integer', minimum: 1, maximum: MAX_VERSION } as const;
/** A version where 0 means "the latest". */
export const versionOrLatest = { type: 'integer', minimum: 0, maximum: MAX_VERSION } as const;
/** A run priority: 0 … 99. */
export const priority = { type: 'integer', minimum: 0, maximum: MAX_PRIORITY } as const;
/** A retry count: 0 … 10,000. */
export const retryCount = { type: 'integer', minimum: 0, maximum: MAX_RETRY_COUNT } as const;
/** A count or rate: 0 … 2^31 − 1. */
export const count = { type: 'integer', minimum: 0, maximum: MAX_COUNT } as const;
/** Any other integer the contract carries without a stated range (schema versions, epoch ms). */
export const int32 = { type: 'integer', minimum: -INT32_MAX, maximum: INT32_MAX } as const;
/** An epoch-ms time a client reports (log lines): 0 … year 9999. */
export const epochMillis = { type: 'integer', minimum: 0, maximum: 253_402_300_799_999 } as const;
/** Most definitions one request registers. */
export const MAX_LIST_ITEMS = 1000;

/** Search paging. */
export const pageStart = { type: 'integer', minimum: 0, maximum: MAX_PAGE_START } as const;
export const pageSize = { type: 'integer', minimum: 0, maximum: MAX_PAGE_SIZE } as const;

/** A name or id (definition names, refs, run and task ids, queue names). */
export const name = { type: 'string', maxLength: MAX_NAME_LENGTH } as const;
/** A name that must not be empty. */
export const requiredName = { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH } as const;
/** Free text in a short field (reasons, descriptions, correlation ids). */
export const text = { type: 'string', maxLength: MAX_TEXT_LENGTH } as const;

/** Free JSON: an object of anything (depth and size are bounded for every body by `json-body.ts`). */
export const jsonObject = { type: 'object', additionalProperties: true } as const;
/** A map of names to names (taskToDomain). */
export const stringMap = { type: 'object', additionalProperties: name } as const;

/** Path parameters naming one thing. */
export function nameParams<const K extends string>(
  ...keys: K[]
): {
  type: 'object';
  required: K[];
  properties: Record<K, typeof requiredName>;
} {
  const properties = {} as Record<K, typeof requiredName>;
  for (const k of keys) properties[k] = requiredName;
  return { type: 'object', required: keys, properties };
}
