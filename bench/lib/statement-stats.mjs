// What the statement hooks loaded into a Baton server (pg-statements-hook.mjs,
// sqlite-statements-hook.mjs) share: statement labels, a tally by label, and the dump of the
// counts on SIGUSR2 to `<file>.<n>` (n = 1, 2, …), so that a profile can take the difference
// over the interval it measures.
import { renameSync, writeFileSync } from 'node:fs';

/**
 * A statement's text with whitespace folded and string literals elided, cut to `length`. Numbers
 * of six digits or more (times, as a claim's) are elided too: small ones (a count a statement
 * expects) tell its shapes apart.
 */
export const labelOf = (text, length) =>
  text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/'(?:[^']|'')*'/g, "'…'")
    .replace(/\b\d{6,}\b/g, '…')
    .slice(0, length);

/** Totals and a tally by label; `add(label, amounts)` adds each amount to both. */
export function statementStats(file, totals) {
  /** label → { statements, …amounts } */
  const byStatement = new Map();
  let dumps = 0;
  process.on('SIGUSR2', () => {
    if (!file) return;
    dumps++;
    // `at`: microseconds of the monotonic clock, the clock of a V8 CPU profile's timestamps.
    const at = Number(process.hrtime.bigint() / 1000n);
    // Written aside and renamed: the profiler reads the file as soon as it exists.
    const path = `${file}.${dumps}`;
    writeFileSync(
      `${path}.tmp`,
      JSON.stringify({ at, totals, byStatement: Object.fromEntries(byStatement) }),
    );
    renameSync(`${path}.tmp`, path);
  });
  return {
    totals,
    add(label, amounts) {
      totals.statements++;
      const entry = byStatement.get(label) ?? { statements: 0 };
      entry.statements++;
      for (const [key, value] of Object.entries(amounts)) {
        totals[key] += value;
        entry[key] = (entry[key] ?? 0) + value;
      }
      byStatement.set(label, entry);
    },
  };
}
