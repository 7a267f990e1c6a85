import type { ValidationError } from '@baton/protocol';

import { fail } from '../../errors.js';

/**
 * Tags on integration providers and their models, as Orkes' `Tag` (`{key, type, value}`). A tag
 * is one key-value pair: adding one already there keeps it once; removing matches key and value.
 */

// A type, not an interface, so a tag is a JsonObject where answers are built.
export type IntegrationTag = {
  key: string;
  value: string;
  type: string;
};

const MAX_TAGS = 100;

/** The request body's schema (the routes' validation and the OpenAPI document). */
export const TAG_LIST_SCHEMA = {
  type: 'array',
  maxItems: MAX_TAGS,
  items: {
    type: 'object',
    required: ['key', 'value'],
    properties: {
      key: { type: 'string', minLength: 1, maxLength: 256 },
      value: { type: 'string', minLength: 1, maxLength: 256 },
      type: { type: 'string', maxLength: 64 },
    },
  },
} as const;

function invalid(errors: ValidationError[]): never {
  throw fail('INTEGRATION_INVALID', {}, errors);
}

/** The tags of a request body: an array of `{key, value, type?}` with string fields. */
export function tagsOf(body: unknown): IntegrationTag[] {
  if (!Array.isArray(body)) invalid([{ path: 'body', message: 'an array of tags', invalidValue: null }]);
  if (body.length > MAX_TAGS)
    invalid([{ path: 'body', message: `at most ${MAX_TAGS} tags`, invalidValue: body.length }]);
  return body.map((tag: unknown, i): IntegrationTag => {
    const t =
      tag !== null && typeof tag === 'object' && !Array.isArray(tag) ? (tag as Record<string, unknown>) : {};
    for (const field of ['key', 'value'] as const) {
      const v = t[field];
      if (typeof v !== 'string' || v === '' || v.length > 256)
        invalid([
          {
            path: `body[${i}].${field}`,
            message: 'a string of 1 to 256 characters',
            invalidValue: typeof v === 'string' ? v.slice(0, 200) : null,
          },
        ]);
    }
    const type = t.type === undefined || t.type === null ? 'METADATA' : t.type;
    if (typeof type !== 'string' || type.length > 64)
      invalid([
        { path: `body[${i}].type`, message: 'a string of at most 64 characters', invalidValue: null },
      ]);
    return { key: t.key as string, value: t.value as string, type };
  });
}

const same = (a: IntegrationTag, b: IntegrationTag): boolean => a.key === b.key && a.value === b.value;

export function mergeTags(current: IntegrationTag[] | undefined, added: IntegrationTag[]): IntegrationTag[] {
  const tags = [...(current ?? [])];
  for (const tag of added) if (!tags.some((t) => same(t, tag))) tags.push(tag);
  return tags;
}

export function removeTags(
  current: IntegrationTag[] | undefined,
  removed: IntegrationTag[],
): IntegrationTag[] {
  return (current ?? []).filter((t) => !removed.some((r) => same(t, r)));
}
