import type { CronOptions } from 'croner';

/**
 * Spring's `CronExpression` (what Conductor's scheduler parses) in croner's terms. Spring takes
 * six fields, `second minute hour day-of-month month day-of-week`, and croner reads most of
 * them as they are: `?`, `L`, `LW`, `nW`, `d#n`, `dL`/`DDDL` (the last such weekday), names of
 * days and months in any case, 0 and 7 for Sunday, and the macros (`@hourly`, …). Where the two
 * differ, the expression is rewritten or an option set:
 *  - `n/step` (from n up to the field's maximum): croner only steps from `*` or a range, so it
 *    becomes `n-max/step` (day-of-week up to 7, so `1/2` keeps Spring's Sunday);
 *  - day-of-month `L-n` (n days before the last day): croner has no offset in the field, so it
 *    becomes `L` with croner's `dayOffset` of -n, which shifts the whole date; it is taken only
 *    with a day-of-week of `*` or `?`, where the shift changes nothing else;
 *  - Spring matches a day only when day-of-month and day-of-week both match (croner's
 *    `domAndDow`), where Vixie cron takes either.
 * Five fields (Vixie cron, minutes first; either day field matches), seven (croner's year
 * field) and macros are read as croner reads them.
 */
export interface CronerForm {
  pattern: string;
  options: Pick<CronOptions, 'domAndDow' | 'dayOffset'>;
}

/** Each field's maximum in Spring's six-field order; day-of-week counts Sunday as 7. */
const SPRING_MAX = [59, 59, 23, 31, 12, 7] as const;
const DAY_OF_MONTH = 3;
const DAY_OF_WEEK = 5;

/** Throws (an Error naming the field) when a Spring form has no croner equivalent. */
export function toCroner(expression: string): CronerForm {
  const trimmed = expression.trim();
  const fields = trimmed.split(/\s+/);
  if (trimmed.startsWith('@') || fields.length !== 6) return { pattern: trimmed, options: {} };
  const options: CronerForm['options'] = { domAndDow: true };
  const out = fields.map((field, i) =>
    field
      .split(',')
      .map((part) => stepFrom(part, SPRING_MAX[i] ?? 0))
      .join(','),
  );
  const lastOffset = /^L-(\d+)$/i.exec(out[DAY_OF_MONTH] ?? '');
  if (lastOffset) {
    const days = Number(lastOffset[1]);
    if (days > 30)
      throw new Error(`day-of-month '${fields[DAY_OF_MONTH]}': at most 30 days before the last day`);
    const weekday = out[DAY_OF_WEEK] ?? '*';
    if (weekday !== '*' && weekday !== '?') {
      throw new Error(
        `day-of-month '${fields[DAY_OF_MONTH]}' (days before the last day) is supported with day-of-week * or ? only`,
      );
    }
    out[DAY_OF_MONTH] = 'L';
    options.dayOffset = -days;
  }
  return { pattern: out.join(' '), options };
}

/** `n/step` → `n-max/step`; every other part as it is. */
function stepFrom(part: string, max: number): string {
  const match = /^([0-9A-Za-z]+)\/(\d+)$/.exec(part);
  if (!match) return part;
  return `${match[1]}-${max}/${match[2]}`;
}
