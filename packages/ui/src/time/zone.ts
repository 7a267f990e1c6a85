import { useSyncExternalStore } from 'react';

/**
 * Which clock the page shows times on: the browser's own zone or UTC. Chosen with the switch in
 * the header and remembered in localStorage, so an operator comparing with server logs (UTC)
 * sets it once. Every time on screen is formatted through `formatTime`, which reads it here.
 */

export type TimeZoneChoice = 'local' | 'utc';

const KEY = 'baton.timeZone';
const listeners = new Set<() => void>();

function stored(): TimeZoneChoice {
  try {
    return window.localStorage.getItem(KEY) === 'utc' ? 'utc' : 'local';
  } catch {
    return 'local';
  }
}

let choice: TimeZoneChoice = typeof window === 'undefined' ? 'local' : stored();

export function timeZoneChoice(): TimeZoneChoice {
  return choice;
}

export function setTimeZoneChoice(next: TimeZoneChoice): void {
  choice = next;
  try {
    window.localStorage.setItem(KEY, next);
  } catch {
    // Storage refused (private mode): the choice lasts as long as the page.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The current choice; the component re-renders when it changes. */
export function useTimeZoneChoice(): TimeZoneChoice {
  return useSyncExternalStore(subscribe, timeZoneChoice, timeZoneChoice);
}

/** The browser zone's offset at a moment, as "UTC+1", "UTC-4:30" or "UTC". */
export function offsetLabel(d: Date): string {
  const minutes = -d.getTimezoneOffset();
  if (minutes === 0) return 'UTC';
  const sign = minutes > 0 ? '+' : '-';
  const abs = Math.abs(minutes);
  const h = Math.floor(abs / 60);
  const m = abs % 60;
  return `UTC${sign}${h}${m ? `:${String(m).padStart(2, '0')}` : ''}`;
}

/** The browser's zone name (Europe/Paris), for titles. */
export function localZoneName(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
  } catch {
    return 'local time';
  }
}
