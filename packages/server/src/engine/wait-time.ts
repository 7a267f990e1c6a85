/**
 * WAIT task times (Conductor's `DateTimeUtils`): `duration` like `"10s"`, `"5 mins"`,
 * `"1 days 2 hours"` (units d/day(s), h/hr(s)/hour(s), m/min(s)/minute(s), s/sec(s)/second(s));
 * `until` like `"2026-01-01 10:30"`, `"2026-01-01 10:30 UTC"` or `"2026-01-01"`. Times without a
 * zone are UTC (the server's zone would make runs depend on where they ran). Zones: `UTC`,
 * `GMT`, `Z` or an offset such as `+05:30`.
 */

const DURATION =
  /^\s*(?:(\d+)\s*(?:days?|d))?\s*(?:(\d+)\s*(?:hours?|hrs?|h))?\s*(?:(\d+)\s*(?:minutes?|mins?|m))?\s*(?:(\d+)\s*(?:seconds?|secs?|s))?\s*$/i;

/** The duration in ms, or undefined when the text is no duration. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (!match || text.trim() === '') return undefined;
  const [, d, h, m, s] = match;
  const n = (part: string | undefined): number => (part === undefined ? 0 : Number(part));
  return (((n(d) * 24 + n(h)) * 60 + n(m)) * 60 + n(s)) * 1000;
}

const UNTIL = /^\s*(\d{4})-(\d{2})-(\d{2})(?:\s+(\d{2}):(\d{2})(?:\s+(\S+))?)?\s*$/;

/** The instant (epoch ms), or undefined when the text is in no supported format. */
export function parseUntil(text: string): number | undefined {
  const match = UNTIL.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, zone] = match;
  const offset = zone === undefined ? 0 : zoneOffsetMinutes(zone);
  if (offset === undefined) return undefined;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = h === undefined ? 0 : Number(h);
  const minute = mi === undefined ? 0 : Number(mi);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59) return undefined;
  const at = Date.UTC(year, month - 1, day, hour, minute);
  // Date.UTC rolls 2026-02-31 over into March: such a date is no date.
  if (new Date(at).getUTCDate() !== day) return undefined;
  return at - offset * 60_000;
}

function zoneOffsetMinutes(zone: string): number | undefined {
  if (/^(UTC|GMT|Z)$/i.test(zone)) return 0;
  const match = /^(?:UTC|GMT)?([+-])(\d{2}):?(\d{2})$/i.exec(zone);
  if (!match) return undefined;
  const [, sign, hh, mm] = match;
  const minutes = Number(hh) * 60 + Number(mm);
  return sign === '-' ? -minutes : minutes;
}
