/**
 * How a duration reads for people, the same in the CLI and the web UI: `850 ms`, `4.2 s`,
 * `12 s`, `4 min 4 s`, `2 h 3 min`, `3 d 4 h`. Each step keeps two units at most; the smaller
 * is rounded down from whole seconds, so it never reads `4 min 60 s`.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const whole = Math.round(s);
  const m = Math.floor(whole / 60);
  if (m < 60) return `${m} min ${whole % 60} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
