// Loaded into a Baton server with `node --import` by bench/profile-step.mjs: counts what the
// server sends PostgreSQL through node-postgres (round trips, statements, bytes, rows answered),
// by statement. On SIGUSR2 it writes the counts so far to `$BATON_PG_STATS_FILE.<n>` (n = 1, 2,
// …), so that a profile can take the difference over the interval it measures.
import pg from 'pg';

import { labelOf as statementLabel, statementStats } from './statement-stats.mjs';

const stats = statementStats(process.env.BATON_PG_STATS_FILE, {
  roundTrips: 0,
  statements: 0,
  bytesOut: 0,
  rows: 0,
});
const totals = stats.totals;
/** Prepared statement names already sent with their text, per connection. */
const prepared = new WeakMap();

const labelOf = (text) => statementLabel(text, 60);

const count = (name, bytes) => stats.add(name, { bytesOut: bytes });

/** The bytes of a query's parameters, as text. */
const bytesOf = (params) =>
  params.reduce((n, v) => n + (v === null || v === undefined ? 0 : Buffer.byteLength(String(v))), 0);

function rowsOf(result) {
  const list = Array.isArray(result) ? result : [result];
  return list.reduce((n, r) => n + (r?.rows?.length ?? 0), 0);
}

const original = pg.Client.prototype.query;
pg.Client.prototype.query = function query(config, values, callback) {
  if (typeof config === 'object' && config !== null && typeof config.text === 'string') {
    totals.roundTrips++;
    const params = config.values ?? (Array.isArray(values) ? values : []);
    const paramBytes = bytesOf(params);
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
    if (Array.isArray(values) && values.length > 0)
      count(`[unnamed] ${labelOf(config)}`, Buffer.byteLength(config) + bytesOf(values));
    else
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
