import type { JsonObject, JsonValue } from '@baton/protocol';

/**
 * `${workflow.secrets.NAME}` references. The engine keeps them as literal text in every stored
 * input (engine/expressions.ts) and marks those its definition wrote; only those are replaced
 * by values, in the copy of the input a call is made with (template-secrets.ts), never in a
 * record. The helpers here read and replace every reference in a value, whatever its origin:
 * for names and checks, never for what a call sends.
 */

/** A secret name: letters, digits, `_` and `-` (no dots, so `workflow.secrets.a.b` is never ambiguous). */
export const SECRET_NAME_PATTERN = '^[A-Za-z0-9_-]{1,128}$';
const SECRET_NAME = new RegExp(SECRET_NAME_PATTERN);

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** One reference: `${workflow.secrets.NAME}` (a leading `$.` and blanks allowed, as in other expressions). */
const REFERENCE = /(?<!\$)\$\{\s*(?:\$\.)?workflow\.secrets\.([A-Za-z0-9_-]{1,128})\s*\}/g;

/** Names referenced anywhere in a value (strings inside objects and lists included), each once. */
export function secretNamesIn(value: unknown): string[] {
  const names = new Set<string>();
  visitStrings(value, (text) => {
    if (!text.includes('workflow.secrets.')) return;
    for (const match of text.matchAll(REFERENCE)) if (match[1] !== undefined) names.add(match[1]);
  });
  return [...names];
}

function visitStrings(value: unknown, visit: (text: string) => void): void {
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) for (const item of value) visitStrings(item, visit);
  else if (value !== null && typeof value === 'object')
    for (const item of Object.values(value)) visitStrings(item, visit);
}

/**
 * A copy of `value` with every reference replaced by its secret's value (`values` must hold
 * every name `secretNamesIn` found). A string that is exactly one reference becomes the value.
 */
export function substituteSecrets(value: JsonValue, values: ReadonlyMap<string, string>): JsonValue {
  if (typeof value === 'string') {
    if (!value.includes('workflow.secrets.')) return value;
    return value.replace(REFERENCE, (whole, name: string) => values.get(name) ?? whole);
  }
  if (Array.isArray(value)) return value.map((item) => substituteSecrets(item, values));
  if (value !== null && typeof value === 'object') {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) out[key] = substituteSecrets(item, values);
    return out;
  }
  return value;
}
