/**
 * The texts a secret value can take once Baton itself has written it somewhere: as it is, JSON
 * string-escaped (a header map in a failure reason), percent-encoded (`encodeURIComponent`,
 * form encoding with `+`, and what the WHATWG URL parser leaves in a path, query or fragment),
 * as a host name (lower-cased, IDNA), and base64 (a `Basic …` header, with and without a `user:`
 * in front). The masker hides every one of them, case-insensitively (a resolver lower-cases a
 * host name in `getaddrinfo ENOTFOUND …`).
 */
export function encodingsOf(value: string): string[] {
  const forms = new Set<string>([value]);
  const add = (make: () => string): void => {
    try {
      const form = make();
      if (form.length > 0) forms.add(form);
    } catch {
      // A form this value has no spelling in (an invalid host name, a lone surrogate).
    }
  };
  add(() => jsonEscaped(value));
  add(() => jsonEscaped(value, true));
  add(() => encodeURIComponent(value));
  add(() => encodeURI(value));
  add(() => new URLSearchParams([['', value]]).toString().slice(1));
  add(() => new URL(`http://h/?${value}`).search.slice(1));
  add(() => new URL(`http://h/${value}`).pathname.slice(1));
  add(() => new URL(`http://h/#${value}`).hash.slice(1));
  add(() => new URL(`http://${value}/`).hostname);
  add(() => Buffer.from(value, 'utf8').toString('base64'));
  add(() => Buffer.from(value, 'utf8').toString('base64url'));
  add(() => Buffer.from(`:${value}`, 'utf8').toString('base64'));
  for (const form of [...forms]) add(() => jsonEscaped(form));
  return [...forms];
}

/** The text JSON.stringify writes between the quotes (with `asciiOnly`, non-ASCII as `\uXXXX` too). */
function jsonEscaped(value: string, asciiOnly = false): string {
  const escaped = JSON.stringify(value).slice(1, -1);
  if (!asciiOnly) return escaped;
  return escaped.replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
