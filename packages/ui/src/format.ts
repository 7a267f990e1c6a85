import { formatDuration } from '@baton/protocol';

import { offsetLabel, timeZoneChoice } from './time/zone';

/** How times, durations and values read on screen. */

/**
 * A moment as "2026-11-28 10:36:10 UTC" or "2026-11-28 11:36:10 UTC+1": always with its zone,
 * in the zone the header's switch chose (local or UTC).
 */
export function formatTime(ms: number | string | undefined): string {
  if (ms === undefined || ms === '' || ms === 0) return '—';
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return '—';
  return `${dateTimeText(d)} ${zoneLabel(d)}`;
}

/** The zone a time is shown in, at that moment ("UTC", "UTC+1"). */
export function zoneLabel(d: Date = new Date()): string {
  return timeZoneChoice() === 'utc' ? 'UTC' : offsetLabel(d);
}

function dateTimeText(d: Date, seconds = true): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const utc = timeZoneChoice() === 'utc';
  const [y, mo, day, h, mi, s] = utc
    ? [
        d.getUTCFullYear(),
        d.getUTCMonth(),
        d.getUTCDate(),
        d.getUTCHours(),
        d.getUTCMinutes(),
        d.getUTCSeconds(),
      ]
    : [d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds()];
  const text = `${y}-${pad(mo + 1)}-${pad(day)} ${pad(h)}:${pad(mi)}`;
  return seconds ? `${text}:${pad(s)}` : text;
}

/** A moment as a `datetime-local` input's value, in the chosen zone. */
export function toInputTime(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? '' : dateTimeText(d, false).replace(' ', 'T');
}

/** A `datetime-local` input's value, read in the chosen zone, as epoch ms. */
export function fromInputTime(value: string): number | undefined {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d))?/.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms =
    timeZoneChoice() === 'utc'
      ? Date.UTC(y, mo - 1, d, h, mi, s)
      : new Date(y, mo - 1, d, h, mi, s).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * A due time read once: "2026-11-28 12:36:10 UTC (in 1 h 59 min)". The server's messages carry
 * ISO times with seconds counts ("2026-11-28T12:36:10.000Z (in 7197 s)"); each is replaced by
 * this, so a wait reads one readable time in the chosen zone.
 */
export function dueText(ms: number, now = Date.now()): string {
  return `${formatTime(ms)} (${relative(ms, now)})`;
}

const ISO_WITH_SECONDS = /(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)(?: \((?:in )?-?\d+ s\))?/g;

/** A server message with its ISO times (and their "(in N s)") read as `dueText` does. */
export function readableMessage(message: string, now = Date.now()): string {
  return message.replace(ISO_WITH_SECONDS, (_all, iso: string) => {
    const ms = Date.parse(iso);
    return Number.isNaN(ms) ? iso : dueText(ms, now);
  });
}

/** A wait in words with one readable due time: the message's own, or its `until` added. */
export function waitText(message: string, until: number | undefined): string {
  const text = readableMessage(message);
  return until !== undefined && text === message ? `${text}, due ${dueText(until)}` : text;
}

/** One format for durations with the CLI (`4 min 4 s`), from the protocol package. */
export { formatDuration };

/** "12 s ago", "in 3 min". */
export function relative(ms: number | undefined, now = Date.now()): string {
  if (ms === undefined || ms === 0) return 'never';
  const diff = ms - now;
  const text = formatDuration(Math.abs(diff));
  return diff > 0 ? `in ${text}` : `${text} ago`;
}

export function pretty(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2);
}

export function shortId(id: string): string {
  return id.length > 13 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id;
}
