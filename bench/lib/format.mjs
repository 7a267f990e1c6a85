// Number formats shared by the report's table and its charts, so both show the same figures.

const missing = (value) => value === null || value === undefined || !Number.isFinite(value);

/** A rate such as steps/s: whole numbers with thousands separators, one decimal below 100. */
export function formatRate(value) {
  if (missing(value)) return '—';
  return value < 100
    ? value.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })
    : Math.round(value).toLocaleString('en-US');
}

/** Milliseconds with about three significant digits (0.412, 3.91, 42.7, 1,250). */
export function formatMs(value) {
  if (missing(value)) return '—';
  if (value >= 1000) return Math.round(value).toLocaleString('en-US');
  const digits = value < 1 ? 3 : value < 10 ? 2 : value < 100 ? 1 : 0;
  return value.toFixed(digits);
}

/** A ratio as a multiple: 2.35×. */
export function formatRatio(value) {
  if (missing(value)) return '—';
  return `${value.toFixed(2)}×`;
}

/** A fraction as a percentage: 42%. */
export function formatPercent(value) {
  if (missing(value)) return '—';
  return `${Math.round(value * 100)}%`;
}

/** Bytes as whole MB (MiB, as RSS is counted in pages of KiB). */
export function formatMb(bytes) {
  if (missing(bytes)) return '—';
  return String(Math.round(bytes / (1024 * 1024)));
}

/** A byte count as a whole number with thousands separators (1,234). */
export function formatBytes(bytes) {
  if (missing(bytes)) return '—';
  return Math.round(bytes).toLocaleString('en-US');
}
