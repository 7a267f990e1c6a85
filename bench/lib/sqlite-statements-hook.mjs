// Loaded into a Baton server with `node --import` by bench/profile-step-sqlite.mjs: counts the
// statements the server runs on better-sqlite3 and the wall time spent inside them (SQLite's own
// work, fsyncs included, as the calls are synchronous), by statement. On SIGUSR2 it writes the
// counts so far to `$BATON_SQLITE_STATS_FILE.<n>` (n = 1, 2, …), so that a profile can take the
// difference over the interval it measures.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { labelOf as statementLabel, statementStats } from './statement-stats.mjs';

// better-sqlite3 as the server resolves it.
const require = createRequire(
  join(dirname(fileURLToPath(import.meta.url)), '../../packages/server/package.json'),
);
const Database = require('better-sqlite3');

const stats = statementStats(process.env.BATON_SQLITE_STATS_FILE, { statements: 0, us: 0 });

/** Runs `fn`, adding its wall time to `label`'s tally. */
function timed(labelText, fn) {
  const t0 = process.hrtime.bigint();
  try {
    return fn();
  } finally {
    stats.add(labelText, { us: Number(process.hrtime.bigint() - t0) / 1000 });
  }
}

// The head and the tail: reads of the same columns (a task by id, a run's tasks, the decide set)
// differ only in how they end.
const labelOf = (text) => {
  const whole = statementLabel(text, Infinity);
  return whole.length <= 100 ? whole : `${whole.slice(0, 60)} … ${whole.slice(-36)}`;
};
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
    return timed(label, () => original.apply(this, args));
  };
}
const exec = Database.prototype.exec;
Database.prototype.exec = function counted(sql) {
  return timed(`[exec] ${labelOf(sql)}`, () => exec.call(this, sql));
};
