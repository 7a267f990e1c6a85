// A node:test reporter that checks each test file reported every test it started, for
// scripts/run-tests.mjs. A file's process that ends early (process.exit() in the code under test,
// a crash the runner cannot see, results lost in the pipe) otherwise shows as fewer passing tests
// and a green run. It writes one JSON line at the end: per file, the tests that started and never
// ended, files that reported no test at all (some register none for the stores enabled), the
// number of skipped tests, and the seconds its top-level tests took (for the runner's table of the
// slowest files; a file's tests run one after another, so their sum is the file's time less its
// process start-up), and the tests that failed with the first lines of their error, so the end of a
// long log, which is often all that is kept of it, still names what failed.
export default async function* completenessReporter(source) {
  /** @type {Map<string, { open: Map<string, number>, reported: number, silent: boolean, skipped: number, ms: number, failed: { test: string, error: string }[] }>} */
  const files = new Map();
  const fileOf = (file) => {
    let entry = files.get(file);
    if (!entry) {
      entry = { open: new Map(), reported: 0, silent: false, skipped: 0, ms: 0, failed: [] };
      files.set(file, entry);
    }
    return entry;
  };
  for await (const event of source) {
    const data = event.data ?? {};
    const file = typeof data.file === 'string' ? data.file : undefined;
    if (!file) continue;
    const key = `${data.nesting}\u0000${data.name}`;
    const entry = fileOf(file);
    if (event.type === 'test:start') {
      entry.open.set(key, (entry.open.get(key) ?? 0) + 1);
    } else if (event.type === 'test:pass' || event.type === 'test:fail') {
      const left = (entry.open.get(key) ?? 0) - 1;
      if (left > 0) entry.open.set(key, left);
      else entry.open.delete(key);
      // The runner stands a test named after the file in for a file that reported nothing.
      if (data.name === file && data.nesting === 0) {
        if (event.type === 'test:pass') entry.silent = true;
      } else {
        entry.reported += 1;
        if (data.skip !== undefined && data.skip !== false) entry.skipped += 1;
        const ms = data.details?.duration_ms;
        if (data.nesting === 0 && typeof ms === 'number') entry.ms += ms;
        // A suite fails when a test in it does; the test itself is the one worth naming.
        if (event.type === 'test:fail' && data.details?.type !== 'suite') {
          entry.failed.push({ test: String(data.name), error: errorText(data.details?.error) });
        }
      }
    }
  }
  const summary = [...files].map(([file, entry]) => ({
    file,
    reported: entry.reported,
    silent: entry.silent && entry.reported === 0,
    skipped: entry.skipped,
    seconds: Math.round(entry.ms / 100) / 10,
    unfinished: [...entry.open.keys()].map((key) => key.replace('\u0000', ' ')),
    failed: entry.failed,
  }));
  yield `${JSON.stringify(summary)}\n`;
}

/** The first lines of a failure: the runner wraps the test's own error as the cause. */
function errorText(error) {
  if (!error || typeof error !== 'object') return String(error ?? '');
  const inner = error.cause && typeof error.cause === 'object' ? error.cause : error;
  const text = typeof inner.stack === 'string' ? inner.stack : String(inner.message ?? inner);
  return text.split('\n').slice(0, 12).join('\n').slice(0, 2000);
}
