/**
 * PostgreSQL stores neither NUL nor unpaired UTF-16 surrogates, in text or in jsonb ("unsupported
 * Unicode escape sequence"). Requests carrying them are refused at the HTTP edge, but values made
 * inside Baton (a script's or a jq filter's output) can still hold them: every parameter sent to
 * PostgreSQL passes here, and such characters become U+FFFD instead of failing the transaction.
 */

// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const RAW = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** In JSON text (from JSON.stringify, which escapes both): `\u0000` and `\udXXX` escapes, not escaped themselves. */
const ESCAPED = /(?<!\\)((?:\\\\)*)\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})/g;

function storableText(value: string): string {
  if (value.startsWith('{') || value.startsWith('[')) {
    return value.includes('\\u') ? value.replace(ESCAPED, '$1\\ufffd') : value;
  }
  RAW.lastIndex = 0;
  return RAW.test(value) ? value.replace(RAW, '\uFFFD') : value;
}

function storable(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.some((v) => typeof v === 'string') ? value.map(storable) : value;
  return value;
}

/** The parameters of one statement, with text PostgreSQL cannot hold replaced. */
export function storableParams(values: readonly unknown[]): unknown[] {
  return values.map(storable);
}
