// Loaded into a Baton server with `node --import` by bench/profile-step-sqlite.mjs: counts the
// statements the server runs on better-sqlite3 and the wall time spent inside them (SQLite's own
// work, fsyncs included, as the calls are synchronous), by statement. On SIGUSR2 it writes the
// counts so far to `$BATON_SQLITE_STATS_FILE.<n>` (n = 1, 2, …), so that a profile can take the
// difference over the interval it measures.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// better-sqlite3 as the server resolves it.
const require = createRequire(
  join(dirname(fileURLToPath(import.meta.url)), '../../packages/server/package.json'),
);
const Database = require('better-sqlite3');

const file = process.env.BATON_SQLITE_STATS_FILE;
const totals = { statements: 0, us: 0 };
/** label → { statements, us } */
const byStatement = new Map();

const labelOf = (text) =>
  text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/'(?:[^']|'')*'/g, "'…'")
    .slice(0, 70);
const labels = new WeakMap();

// The native Statement class is not exported: take it from a statement.
const probe = new Database(':memory:');
const Statement = Object.getPrototypeOf(probe.prepare('SELECT 1'));
probe.close();

for (const method of ['run', 'get', 'all', 'iterate']) {
  const original = Statement[method];
  Statement[method] = function counted(...args) {
    let label = labels.get(this);
    if (label === undefined) {
      label = labelOf(this.source);
      labels.set(this, label);
    }
    const t0 = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const us = Number(process.hrtime.bigint() - t0) / 1000;
      totals.statements++;
      totals.us += us;
      const entry = byStatement.get(label) ?? { statements: 0, us: 0 };
      entry.statements++;
      entry.us += us;
      byStatement.set(label, entry);
    }
  };
}
const exec = Database.prototype.exec;
Database.prototype.exec = function counted(sql) {
  const t0 = process.hrtime.bigint();
  try {
    return exec.call(this, sql);
  } finally {
    const us = Number(process.hrtime.bigint() - t0) / 1000;
    const label = `[exec] ${labelOf(sql)}`;
    totals.statements++;
    totals.us += us;
    const entry = byStatement.get(label) ?? { statements: 0, us: 0 };
    entry.statements++;
    entry.us += us;
    byStatement.set(label, entry);
  }
};

let dumps = 0;
process.on('SIGUSR2', () => {
  if (!file) return;
  dumps++;
  // `at`: microseconds of the monotonic clock, the clock of a V8 CPU profile's timestamps.
  const at = Number(process.hrtime.bigint() / 1000n);
  writeFileSync(
    `${file}.${dumps}`,
    JSON.stringify({ at, totals, byStatement: Object.fromEntries(byStatement) }),
  );
});
