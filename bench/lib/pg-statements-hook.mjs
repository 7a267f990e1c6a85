// Loaded into a Baton server with `node --import` by bench/profile-step.mjs: counts what the
// server sends PostgreSQL through node-postgres (round trips, statements, bytes, rows answered),
// by statement. On SIGUSR2 it writes the counts so far to `$BATON_PG_STATS_FILE.<n>` (n = 1, 2,
// …), so that a profile can take the difference over the interval it measures.
import { writeFileSync } from 'node:fs';

import pg from 'pg';

const file = process.env.BATON_PG_STATS_FILE;
const totals = { roundTrips: 0, statements: 0, bytesOut: 0, rows: 0 };
/** label → { statements, bytesOut } */
const byStatement = new Map();
/** Prepared statement names already sent with their text, per connection. */
const prepared = new WeakMap();

const labelOf = (text) =>
  text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/'(?:[^']|'')*'/g, "'…'")
    .slice(0, 60);

function count(label, bytes) {
  totals.statements++;
  totals.bytesOut += bytes;
  const entry = byStatement.get(label) ?? { statements: 0, bytesOut: 0 };
  entry.statements++;
  entry.bytesOut += bytes;
  byStatement.set(label, entry);
}

function rowsOf(result) {
  const list = Array.isArray(result) ? result : [result];
  return list.reduce((n, r) => n + (r?.rows?.length ?? 0), 0);
}

const original = pg.Client.prototype.query;
pg.Client.prototype.query = function query(config, values, callback) {
  if (typeof config === 'object' && config !== null && typeof config.text === 'string') {
    totals.roundTrips++;
    const params = config.values ?? (Array.isArray(values) ? values : []);
    const paramBytes = params.reduce(
      (n, v) => n + (v === null || v === undefined ? 0 : Buffer.byteLength(String(v))),
      0,
    );
    if (config.name) {
      const names = prepared.get(this) ?? new Set();
      prepared.set(this, names);
      const textBytes = names.has(config.name) ? 0 : Buffer.byteLength(config.text);
      names.add(config.name);
      count(`[prepared] ${config.name}`, textBytes + paramBytes);
    } else if (params.length > 0) {
      count(`[unnamed] ${labelOf(config.text)}`, Buffer.byteLength(config.text) + paramBytes);
    } else {
      // The write-behind batch: several statements, literals inlined, joined by ';\n'.
      for (const piece of config.text.split(';\n'))
        count(`[simple] ${labelOf(piece)}`, Buffer.byteLength(piece));
    }
  } else if (typeof config === 'string') {
    totals.roundTrips++;
    for (const piece of config.split(';\n')) count(`[simple] ${labelOf(piece)}`, Buffer.byteLength(piece));
  }
  const onRows = (result) => {
    totals.rows += rowsOf(result);
  };
  // pg.Pool answers through a callback: count its rows on the way.
  if (typeof callback === 'function') {
    const cb = callback;
    callback = (err, result) => {
      if (!err) onRows(result);
      cb(err, result);
    };
  } else if (typeof values === 'function') {
    const cb = values;
    values = (err, result) => {
      if (!err) onRows(result);
      cb(err, result);
    };
  }
  const answer = original.call(this, config, values, callback);
  if (answer && typeof answer.then === 'function') {
    answer.then(onRows, () => {});
  }
  return answer;
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
