#!/usr/bin/env node
// Where the bytes of a finished step go: a throughput pass of the bench's workflow (as `npm run
// bench`'s baton-postgres or baton-sqlite) on a fresh store, then, per step,
//   PostgreSQL: per table its heap, TOAST and each index (pg_relation_size), live and dead rows,
//     measured as the pass left them, after VACUUM, and after VACUUM FULL (live rows only, packed);
//     and per column of runs and tasks the average stored size (pg_column_size), with the keys of
//     their JSON records;
//   SQLite: per table and index the pages in use (dbstat), as left and after VACUUM, and per
//     column of runs and tasks the average stored length.
//   node bench/stored-bytes-breakdown.mjs [--store postgres|sqlite] [--runs 300] [--steps 10] [--keep]
// (--keep: leave the PostgreSQL database in place for a closer look, and print its URL).
// Run `npx tsc -b` first.
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import pg from 'pg';

import { drive, register } from './lib/baton-system.mjs';
import { startBaton } from './lib/baton-server.mjs';
import { jsonClient } from './lib/http-json.mjs';
import { dropDatabase, freshDatabase } from './lib/pg-admin.mjs';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'postgres' },
    runs: { type: 'string', default: '300' },
    steps: { type: 'string', default: '10' },
    workers: { type: 'string', default: '16' },
    keep: { type: 'boolean', default: false },
  },
});
const options = {
  mode: 'throughput',
  runs: Number(values.runs),
  steps: Number(values.steps),
  workers: Number(values.workers),
};
const DB = 'bench_bytes';
const noMeter = { start: async () => {}, stop: async () => ({}) };
const fmt = (n) => (n === null || n === undefined ? '-' : Number(n).toFixed(1).padStart(9));

async function pgRelations(db) {
  const { rows } = await db.query(
    `SELECT c.relname AS name, c.relkind AS kind, coalesce(t.relname, '') AS of,
        pg_relation_size(c.oid) AS main,
        pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm') AS maps,
        CASE WHEN c.reltoastrelid <> 0 THEN pg_total_relation_size(c.reltoastrelid) ELSE 0 END AS toast
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_index i ON i.indexrelid = c.oid LEFT JOIN pg_class t ON t.oid = i.indrelid
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')`,
  );
  return rows.map((r) => ({ ...r, main: Number(r.main), maps: Number(r.maps), toast: Number(r.toast) }));
}

async function pgRowCounts(db) {
  await db.query('SELECT pg_stat_force_next_flush()').catch(() => {});
  await new Promise((r) => setTimeout(r, 1500));
  const { rows } = await db.query(
    `SELECT relname, n_live_tup AS live, n_dead_tup AS dead, n_tup_ins AS ins, n_tup_upd AS upd,
        n_tup_hot_upd AS hot, n_tup_del AS del FROM pg_stat_user_tables`,
  );
  return new Map(rows.map((r) => [r.relname, r]));
}

function printPg(title, rels, steps, counts) {
  console.log(`\n== ${title}: bytes per step (${steps} steps)`);
  let total = 0;
  const tables = rels.filter((r) => r.kind === 'r');
  for (const t of tables.sort((a, b) => a.name.localeCompare(b.name))) {
    const idx = rels.filter((r) => r.kind === 'i' && r.of === t.name);
    const sum = t.main + t.maps + t.toast + idx.reduce((s, i) => s + i.main, 0);
    total += sum;
    if (sum <= 8192 * 2 && !counts?.get(t.name)?.ins) continue;
    const c = counts?.get(t.name);
    console.log(
      `${t.name.padEnd(22)} total ${fmt(sum / steps)}  heap ${fmt(t.main / steps)}  maps ${fmt(t.maps / steps)}  toast ${fmt(t.toast / steps)}` +
        (c
          ? `   rows ins ${(c.ins / steps).toFixed(2)} upd ${(c.upd / steps).toFixed(2)} (hot ${(c.hot / steps).toFixed(2)}) del ${(c.del / steps).toFixed(2)} live ${c.live} dead ${c.dead}`
          : ''),
    );
    for (const i of idx.sort((a, b) => b.main - a.main))
      console.log(`    ${i.name.padEnd(32)} ${fmt(i.main / steps)}`);
  }
  console.log(`ALL TABLES ${fmt(total / steps)} B/step (total ${total} B)`);
}

async function pgColumns(db, steps) {
  for (const table of ['runs', 'tasks']) {
    const { rows: cols } = await db.query(
      `SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`,
      [table],
    );
    const exprs = cols.map(
      (c) => `avg(pg_column_size(${c.column_name}))::numeric(10,1) AS "${c.column_name}"`,
    );
    const { rows } = await db.query(
      `SELECT count(*) AS n, avg(pg_column_size(t.*))::numeric(10,1) AS whole_row, ${exprs.join(', ')} FROM ${table} t`,
    );
    console.log(
      `\n-- ${table}: average stored bytes per row (${rows[0].n} rows; ${(rows[0].n / steps).toFixed(2)} per step)`,
    );
    for (const [k, v] of Object.entries(rows[0])) if (k !== 'n') console.log(`   ${k.padEnd(22)} ${v}`);
    const { rows: keys } = await db.query(
      `SELECT e.key, count(*) AS n, avg(length(e.key) + pg_column_size(e.value))::numeric(10,1) AS bytes,
          avg(length(e.value::text))::numeric(10,1) AS text_len
         FROM ${table} t, jsonb_each(t.record) e GROUP BY e.key ORDER BY 3 DESC`,
    );
    console.log(`   record keys (key + jsonb value, approx):`);
    for (const k of keys)
      console.log(
        `      ${k.key.padEnd(28)} in ${String(k.n).padStart(6)} rows  ${k.bytes} B  (text ${k.text_len})`,
      );
  }
}

async function postgres() {
  const databaseUrl = await freshDatabase(DB);
  const db = new pg.Client({ connectionString: databaseUrl });
  let server;
  let client;
  try {
    server = await startBaton({ databaseUrl });
    client = jsonClient(server.url, { sockets: options.workers + 24 });
    await register(client, options.steps);
    await db.connect();
    const before = await pgRelations(db);
    const result = await drive(client, options, { protocol: 'update-v2', meter: noMeter });
    client.close();
    await server.stop();
    server = undefined;
    const steps = result.steps;
    const sub = (after) =>
      after.map((r) => {
        const b = before.find((x) => x.name === r.name);
        return {
          ...r,
          main: r.main - (b?.main ?? 0),
          maps: r.maps - (b?.maps ?? 0),
          toast: r.toast - (b?.toast ?? 0),
        };
      });
    const counts = await pgRowCounts(db);
    printPg('as the pass left it (what the bench measures)', sub(await pgRelations(db)), steps, counts);
    await db.query('VACUUM');
    printPg('after VACUUM', sub(await pgRelations(db)), steps, await pgRowCounts(db));
    await db.query('VACUUM FULL');
    printPg('after VACUUM FULL (live rows, packed)', sub(await pgRelations(db)), steps);
    await pgColumns(db, steps);
  } finally {
    client?.close();
    await server?.stop();
    await db.end().catch(() => {});
    if (values.keep) console.log(`\nkept: ${databaseUrl}`);
    else await dropDatabase(DB);
  }
}

function sqliteTables(db) {
  const rows = db
    .prepare(
      `SELECT d.name, m.type, m.tbl_name AS of, sum(d.pgsize) AS bytes, sum(d.unused) AS unused, sum(d.ncell) AS cells
         FROM dbstat d LEFT JOIN sqlite_master m ON m.name = d.name GROUP BY d.name`,
    )
    .all();
  return rows;
}

function printSqlite(title, rows, before, steps) {
  console.log(`\n== ${title}: bytes per step (${steps} steps)`);
  let total = 0;
  const delta = (r) => r.bytes - (before.find((b) => b.name === r.name)?.bytes ?? 0);
  const tables = rows.filter((r) => r.type === 'table' || r.of === r.name || r.type === null);
  for (const t of tables.sort((a, b) => a.name.localeCompare(b.name))) {
    const idx = rows.filter((r) => r.type === 'index' && r.of === t.name);
    const sum = delta(t) + idx.reduce((s, i) => s + delta(i), 0);
    total += sum;
    if (sum === 0) continue;
    console.log(
      `${t.name.padEnd(22)} total ${fmt(sum / steps)}  table ${fmt(delta(t) / steps)}  unused-in-pages ${fmt(t.unused / steps)}`,
    );
    for (const i of idx.sort((a, b) => delta(b) - delta(a)))
      console.log(`    ${i.name.padEnd(32)} ${fmt(delta(i) / steps)}`);
  }
  console.log(`ALL ${fmt(total / steps)} B/step`);
}

async function sqlite() {
  const Database = createRequire(
    join(dirname(fileURLToPath(import.meta.url)), '../packages/server/package.json'),
  )('better-sqlite3');
  const server = await startBaton({});
  const client = jsonClient(server.url, { sockets: options.workers + 24 });
  const file = join(server.dataDir, 'baton.db');
  let db;
  try {
    await register(client, options.steps);
    db = new Database(file, { readonly: true });
    const before = sqliteTables(db);
    db.close();
    const result = await drive(client, options, { protocol: 'update-v2', meter: noMeter });
    // Read while the server still runs (its data directory goes with it): the WAL's pages count.
    db = new Database(file, { readonly: true });
    const steps = result.steps;
    printSqlite('as the pass left it', sqliteTables(db), before, steps);
    const packed = join(tmpdir(), `baton-bytes-${process.pid}.db`);
    db.exec(`VACUUM INTO '${packed}'`);
    db.close();
    db = new Database(packed, { readonly: true });
    rmSync(packed, { force: true });
    printSqlite('after VACUUM', sqliteTables(db), before, steps);
    for (const table of ['runs', 'tasks']) {
      const cols = db
        .prepare(`SELECT name FROM pragma_table_info('${table}')`)
        .all()
        .map((c) => c.name);
      const row = db
        .prepare(
          `SELECT count(*) AS n, ${cols.map((c) => `avg(length(CAST("${c}" AS BLOB))) AS "${c}"`).join(', ')} FROM ${table}`,
        )
        .get();
      console.log(
        `\n-- ${table}: average stored length per column (${row.n} rows; ${(row.n / steps).toFixed(2)} per step)`,
      );
      for (const [k, v] of Object.entries(row))
        if (k !== 'n') console.log(`   ${k.padEnd(22)} ${v === null ? '-' : Number(v).toFixed(1)}`);
    }
  } finally {
    db?.close();
    client.close();
    await server.stop().catch(() => {});
  }
}

if (values.store === 'sqlite') await sqlite();
else await postgres();
