import { Cron } from 'croner';

import { toCroner } from './spring-cron.js';

/**
 * Cron expressions through croner: every form of Spring's 6-field `CronExpression` (`second
 * minute hour day month weekday`; `spring-cron.ts` rewrites what croner reads differently), the
 * 5-field form, and macros (`@yearly`, `@monthly`, `@weekly`, `@daily`, `@hourly`), in an IANA
 * time zone. Across DST, croner follows the zone's wall clock: a time in
 * the spring-forward gap fires at the first instant after the gap, a time in the fall-back
 * overlap fires once.
 */

/** Why the expression or zone is unusable, or undefined. */
export function cronProblem(expression: string, zoneId: string): string | undefined {
  const zone = zoneProblem(zoneId);
  if (zone) return zone;
  try {
    const next = cronOf(expression, zoneId).nextRun();
    return next === null ? `cron expression '${expression}' never fires` : undefined;
  } catch (raw) {
    const message = raw instanceof Error ? raw.message : String(raw);
    return `invalid cron expression '${expression}': ${message.replace(/^CronPattern: /, '')}`;
  }
}

function cronOf(expression: string, zoneId: string): Cron {
  const { pattern, options } = toCroner(expression);
  return new Cron(pattern, { timezone: zoneId, paused: true, ...options });
}

export function zoneProblem(zoneId: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zoneId });
    return undefined;
  } catch {
    return `unknown time zone '${zoneId}' (use an IANA name such as UTC or Europe/Berlin)`;
  }
}

/** The slots strictly after `after` (epoch ms), at most `limit`, none after `until`. */
export function nextSlots(
  expression: string,
  zoneId: string,
  after: number,
  limit: number,
  until?: number,
): number[] {
  const cron = cronOf(expression, zoneId);
  const out: number[] = [];
  let previous = new Date(after);
  while (out.length < limit) {
    const next = cron.nextRun(previous);
    if (!next) break;
    const at = next.getTime();
    if (until !== undefined && at > until) break;
    out.push(at);
    previous = next;
  }
  return out;
}
