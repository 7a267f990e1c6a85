import { BlockList, isIP } from 'node:net';

import { addressForms, canonicalHost } from './address-forms.js';

/**
 * Where calls made by the engine may go (`BATON_HTTP_ALLOW`, `BATON_HTTP_DENY`). Rules are
 * host names (`api.example.com`, `*.example.com`), addresses or CIDRs. A destination is checked
 * by its name before DNS and by every address it resolves to after, so a name that points at a
 * denied address (cloud metadata at 169.254.169.254, by default) is refused too.
 *
 * Order: a destination matching an allow rule is allowed; else one matching a deny rule is
 * denied; else, when allow rules are set, it is denied for matching none of them.
 *
 * Every spelling of an address is judged as its canonical form (`address-forms.ts`): `0`,
 * `0.0.0.0.`, `0x7f.1` and `[::ffff:7f00:1]` are what a rule for `0.0.0.0` or `127.0.0.0/8`
 * names. A list that denies loopback also denies the unspecified addresses (`0.0.0.0/8`,
 * `::/128`), since connecting to them reaches this machine's own services.
 */

export interface EgressVerdict {
  readonly allowed: boolean;
  /** For a refusal: which rule, named as configured (`BATON_HTTP_DENY rule 169.254.0.0/16`). */
  readonly rule?: string;
}

interface Rule {
  readonly text: string;
  readonly matchName?: (host: string) => boolean;
  readonly matchAddress?: (address: string) => boolean;
}

/** The error a refused connection fails with (its message names the rule). */
export class EgressDeniedError extends Error {
  override name = 'EgressDeniedError';
  readonly code = 'BATON_EGRESS_DENIED';
  constructor(
    readonly destination: string,
    readonly rule: string,
  ) {
    super(`egress to ${destination} denied by ${rule}`);
  }
}

function parseRule(text: string): Rule {
  const slash = text.indexOf('/');
  const address = slash >= 0 ? text.slice(0, slash) : text;
  const family = isIP(address);
  if (family !== 0) {
    const type = family === 4 ? 'ipv4' : 'ipv6';
    const bits = slash >= 0 ? Number(text.slice(slash + 1)) : family === 4 ? 32 : 128;
    const list = new BlockList();
    list.addSubnet(address, bits, type);
    return {
      text,
      matchAddress: (candidate) =>
        addressForms(candidate).some((form) => {
          const kind = isIP(form);
          return kind !== 0 && list.check(form, kind === 4 ? 'ipv4' : 'ipv6');
        }),
    };
  }
  const name = canonicalHost(text);
  if (name.startsWith('*.')) {
    const suffix = name.slice(1);
    return { text, matchName: (host) => host.endsWith(suffix) };
  }
  return { text, matchName: (host) => host === name };
}

/** Denied with loopback: what `0.0.0.0` and `[::]` reach is this machine too. */
const UNSPECIFIED = ['0.0.0.0/8', '::/128'];

function deniesLoopback(rules: readonly Rule[]): boolean {
  return rules.some(
    (r) =>
      r.matchName?.('localhost') === true ||
      r.matchAddress?.('127.0.0.1') === true ||
      r.matchAddress?.('::1') === true,
  );
}

export class EgressPolicy {
  private readonly allow: readonly Rule[] | undefined;
  private readonly deny: readonly Rule[];

  constructor(rules: { deny: readonly string[]; allow?: readonly string[] | undefined }) {
    const deny = rules.deny.map(parseRule);
    this.deny = deniesLoopback(deny)
      ? [
          ...deny,
          ...UNSPECIFIED.map((cidr) => ({
            ...parseRule(cidr),
            text: `${cidr} (unspecified, denied with loopback)`,
          })),
        ]
      : deny;
    this.allow = rules.allow?.map(parseRule);
  }

  /** Before DNS: the name as written in the URL (an address literal is checked as an address). */
  checkHost(host: string): EgressVerdict {
    const name = canonicalHost(host);
    if (isIP(name) !== 0) return this.checkAddress(name, name);
    if (this.allow?.some((r) => r.matchName?.(name))) return { allowed: true };
    const denied = this.deny.find((r) => r.matchName?.(name));
    if (denied) return { allowed: false, rule: `BATON_HTTP_DENY rule ${denied.text}` };
    // Allowed or denied by its addresses, once resolved.
    return { allowed: true };
  }

  /** After DNS: one address `host` resolved to (the host itself for a literal). */
  checkAddress(host: string, address: string): EgressVerdict {
    const name = canonicalHost(host);
    const allowRules = this.allow;
    if (allowRules?.some((r) => r.matchName?.(name) || r.matchAddress?.(address))) return { allowed: true };
    const denied = this.deny.find((r) => r.matchAddress?.(address));
    if (denied) return { allowed: false, rule: `BATON_HTTP_DENY rule ${denied.text}` };
    if (allowRules !== undefined) return { allowed: false, rule: 'BATON_HTTP_ALLOW (no rule matches)' };
    return { allowed: true };
  }
}
