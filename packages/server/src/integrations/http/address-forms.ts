import { isIP } from 'node:net';

/**
 * One destination, written any way a URL or a resolver may write it, as the addresses the
 * egress policy must judge. An address has many spellings (`0`, `0x7f.1`, `2130706433`,
 * `0.0.0.0.`, `[::ffff:0:0]`, `64:ff9b::a9fe:a9fe`), and a rule written for one of them must
 * catch all of them, so every form is brought to its canonical text first, and an IPv6 address
 * that carries an IPv4 one (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64
 * `64:ff9b::/96` and `64:ff9b:1::/48`) is judged as that IPv4 address too.
 */

/** A host as written (`Example.COM.`, `0`, `[::1]`): lower case, no brackets or trailing dot, IPv4 forms dotted. */
export function canonicalHost(host: string): string {
  let plain = host.trim().toLowerCase();
  if (plain.startsWith('[') && plain.endsWith(']')) plain = plain.slice(1, -1);
  const zone = plain.indexOf('%');
  if (zone >= 0 && plain.includes(':')) plain = plain.slice(0, zone);
  while (plain.endsWith('.')) plain = plain.slice(0, -1);
  if (isIP(plain) === 6) return canonicalIPv6(plain) ?? plain;
  if (isIP(plain) === 4) return plain;
  // The WHATWG host parser reads `0`, `127.1`, `0x7f.0.0.1`, `017700000001` as IPv4, as
  // undici and every browser do: judge what would be dialled.
  if (/^[0-9a-fx.]+$/.test(plain)) {
    try {
      const parsed = new URL(`http://${plain}/`).hostname;
      if (isIP(parsed) === 4) return parsed;
    } catch {
      return plain;
    }
  }
  return plain;
}

/** The forms of an address the policy checks: its canonical text, and the IPv4 address it embeds, if any. */
export function addressForms(address: string): string[] {
  const canonical = canonicalHost(address);
  const family = isIP(canonical);
  if (family !== 6) return [canonical];
  const words = ipv6Words(canonical);
  const embedded = words && embeddedIPv4(words);
  return embedded === undefined ? [canonical] : [canonical, embedded];
}

function canonicalIPv6(address: string): string | undefined {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/** The eight 16-bit words of a valid IPv6 address (an IPv4 tail included). */
function ipv6Words(address: string): number[] | undefined {
  let text = address;
  const tail: number[] = [];
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, dotted.index) + '0:0';
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string | undefined): number[] =>
    part === undefined || part === '' ? [] : part.split(':').map((w) => parseInt(w, 16));
  const head = parse(halves[0]);
  const rest = parse(halves[1]);
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const words = [...head, ...new Array<number>(Math.max(0, fill)).fill(0), ...rest];
  if (words.length !== 8 || words.some((w) => !Number.isInteger(w) || w < 0 || w > 0xffff)) return undefined;
  if (tail.length === 2) words.splice(6, 2, tail[0] ?? 0, tail[1] ?? 0);
  return words;
}

function embeddedIPv4(words: readonly number[]): string | undefined {
  const zero = (from: number, to: number): boolean => words.slice(from, to).every((w) => w === 0);
  const mapped = zero(0, 5) && words[5] === 0xffff;
  const compatible = zero(0, 6);
  const nat64 = words[0] === 0x64 && words[1] === 0xff9b && zero(2, 6);
  const nat64Local = words[0] === 0x64 && words[1] === 0xff9b && words[2] === 1;
  if (!mapped && !compatible && !nat64 && !nat64Local) return undefined;
  const high = words[6] ?? 0;
  const low = words[7] ?? 0;
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}
