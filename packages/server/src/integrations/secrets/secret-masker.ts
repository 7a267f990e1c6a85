import type { JsonObject, JsonValue } from '@baton/protocol';

import { encodingsOf } from './secret-encodings.js';

export const MASK = '***';

/**
 * Replaces every secret value a call used (and every value derived from one, such as a
 * `Basic …` header) with `***`, wherever it occurs in text: in a task's output, its reason,
 * its logs, an error message, in every encoding Baton itself writes it in (`secret-encodings.ts`),
 * case-insensitively. Longer texts first, so a value containing another is masked whole.
 */
export class SecretMasker {
  private readonly values: string[];
  private readonly pattern: RegExp | undefined;

  constructor(values: Iterable<string> = []) {
    this.values = [...new Set([...values].filter((v) => v.length > 0))].sort((a, b) => b.length - a.length);
    const forms = [...new Set(this.values.flatMap(encodingsOf))].sort((a, b) => b.length - a.length);
    this.pattern = forms.length === 0 ? undefined : new RegExp(forms.map(escapeRegExp).join('|'), 'giu');
  }

  /** A masker that also hides these values. */
  with(values: Iterable<string>): SecretMasker {
    return new SecretMasker([...this.values, ...values]);
  }

  get empty(): boolean {
    return this.values.length === 0;
  }

  text(text: string): string {
    return this.pattern === undefined ? text : text.replace(this.pattern, MASK);
  }

  /** A masked copy of a JSON value (keys and string values; numbers and booleans are not secrets' text). */
  json<T extends JsonValue>(value: T): T {
    if (this.values.length === 0) return value;
    return this.mask(value) as T;
  }

  private mask(value: JsonValue): JsonValue {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.mask(item));
    if (value !== null && typeof value === 'object') {
      const out: JsonObject = {};
      for (const [key, item] of Object.entries(value)) out[this.text(key)] = this.mask(item);
      return out;
    }
    return value;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
