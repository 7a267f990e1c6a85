#!/usr/bin/env node
// What one step of Baton on PostgreSQL costs: a throughput run (as `npm run bench`'s
// baton-postgres or baton-postgres-legacy) on a fresh database, measuring per step
//   - CPU of the server, its PostgreSQL backends and the workers (cpu-meter.mjs);
//   - what the server sends PostgreSQL: round trips, statements, bytes, rows answered, by
//     statement (pg-statements-hook.mjs, loaded into the server);
//   - rows inserted, updated (HOT or not) and deleted per table, commits, and WAL bytes (the
//     WAL figure is the whole server's: other databases' work counts too);
// and, with --cpu-prof DIR, the server's V8 CPU profile (open it in Chrome DevTools, or read the
// summary printed here: self time by function and by package);
// and with --explain-log FILE (the PostgreSQL server's log, e.g.
// /var/log/postgresql/postgresql-15-main.log), the backends' executor time by statement, from
// auto_explain (pg-executor-log.mjs; it slows the backends, so read its CPU figures apart);
// and with --wal-records, the WAL the pass wrote by record type, from pg_waldump (wal-records.mjs);
// and with --oncpu, the (first) server's time on the CPU as Linux perf samples it, by thread, by
// kind of code and by JavaScript function (oncpu-profile.mjs: what the V8 profile counts as busy
// includes time descheduled in system calls).
//   node bench/profile-step.mjs --runs 300 [--nodes 2] [--protocol legacy] [--cpu-prof /tmp/prof] [--oncpu] [--explain-log FILE] [--wal-records]
// Run `npx tsc -b` first.
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import pg from 'pg';

import { drive, register } from './lib/baton-system.mjs';
import { startBaton } from './lib/baton-server.mjs';
import { CpuMeter } from './lib/cpu-meter.mjs';
import { jsonClient } from './lib/http-json.mjs';
import { cpuLine, dumpCounters, profileFlags, profileSummary } from './lib/profile-run.mjs';
import { databaseName, dropDatabase, freshDatabase } from './lib/pg-admin.mjs';
import { executorSummary, logEveryPlan, logOffset } from './lib/pg-executor-log.mjs';
import { ONCPU_NODE_ARGS, OnCpuRecorder } from './lib/oncpu-profile.mjs';
import { walRecords, walSource } from './lib/wal-records.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const { options, protocol, profDir, oncpu, top, explainLog, walByRecord, nodes } = profileFlags('300');
const DB = 'bench_profile';
const statsFile = join(tmpdir(), `baton-pg-stats-${process.pid}`);

async function tableStats(client) {
  const { rows } = await client.query(
    `SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot, n_tup_del AS del,
       seq_scan AS seq, seq_tup_read AS seqrows, coalesce(idx_scan, 0) AS idx
     FROM pg_stat_user_tables`,
  );
  const { rows: db } = await client.query(
    `SELECT xact_commit AS commits, tup_returned AS returned, tup_fetched AS fetched,
       pg_current_wal_lsn() AS lsn FROM pg_stat_database WHERE datname = current_database()`,
  );
  const { rows: idx } = await client.query(
    `SELECT indexrelname AS name, idx_scan AS scans, idx_tup_read AS read FROM pg_stat_user_indexes`,
  );
  return {
    tables: new Map(rows.map((r) => [r.relname, r])),
    indexes: new Map(idx.map((r) => [r.name, r])),
    db: db[0],
  };
}

/** Every node's statement counters, summed (the `at` of the first node's dump marks the profile). */
async function dump(n) {
  const parts = [];
  for (const [i, server] of servers.entries())
    parts.push(await dumpCounters(server.pid, `${statsFile}-${i}`, n));
  const totals = {};
  const byStatement = {};
  for (const part of parts) {
    for (const [key, value] of Object.entries(part.totals)) totals[key] = (totals[key] ?? 0) + value;
    for (const [label, counts] of Object.entries(part.byStatement)) {
      const sum = (byStatement[label] ??= {});
      for (const [key, value] of Object.entries(counts)) sum[key] = (sum[key] ?? 0) + value;
    }
  }
  return { ...parts[0], totals, byStatement };
}

const databaseUrl = await freshDatabase(DB);
const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();
if (explainLog) await logEveryPlan(admin, databaseName(DB));
// One server per node, each with its own counters file and, with --cpu-prof, its own directory.
const servers = [];
for (let i = 0; i < nodes; i++) {
  const nodeProfDir = profDir && nodes > 1 ? join(profDir, `node-${i + 1}`) : profDir;
  servers.push(
    await startBaton({
      databaseUrl,
      env: { BATON_PG_STATS_FILE: `${statsFile}-${i}` },
      nodeArgs: [
        '--import',
        join(HERE, 'lib/pg-statements-hook.mjs'),
        ...(nodeProfDir ? ['--cpu-prof', '--cpu-prof-dir', nodeProfDir] : []),
        // Only the first server is sampled, and only it may leave perf maps and V8 logs behind.
        ...(oncpu && i === 0 ? ONCPU_NODE_ARGS : []),
      ],
    }),
  );
}
const clients = servers.map((server) =>
  jsonClient(server.url, { sockets: Math.ceil(options.workers / nodes) + 24 }),
);
let result;
let before;
let after;
let sentBefore;
let sentAfter;
const recorder = oncpu ? new OnCpuRecorder(servers[0].pid) : undefined;
let logFrom;
let logTo;
let wal;
try {
  await register(clients[0], options.steps);
  // Stats are cumulative and updated by backends at transaction end; force the snapshot.
  await admin.query('SELECT pg_stat_clear_snapshot()');
  before = await tableStats(admin);
  sentBefore = await dump(1);
  if (explainLog) logFrom = logOffset(explainLog);
  const meter = new CpuMeter({
    processes: servers.map((server, i) => ({
      name: nodes > 1 ? `Baton server ${i + 1}` : 'Baton server',
      pid: server.pid,
    })),
    pgDatabase: databaseName(DB),
  });
  recorder?.start();
  result = await drive(clients, options, { protocol, meter });
  await recorder?.stop();
  sentAfter = await dump(2);
  if (explainLog) logTo = logOffset(explainLog);
  // The statistics collector lags by up to 500 ms (PostgreSQL 15 flushes at most that often).
  await new Promise((r) => setTimeout(r, 1500));
  await admin.query('SELECT pg_stat_clear_snapshot()');
  after = await tableStats(admin);
  if (walByRecord) wal = walRecords(await walSource(admin), before.db.lsn, after.db.lsn);
} finally {
  for (const client of clients) client.close();
  for (const server of servers) await server.stop();
  await admin.end();
  await dropDatabase(DB);
}

const steps = result.steps;
const per = (n) => (n / steps).toFixed(2);
const out = [];
out.push(
  `Baton on PostgreSQL${nodes > 1 ? `, ${nodes} nodes` : ''}, ${protocol}: ${options.runs} runs × ${options.steps} steps, ${options.workers} workers: ` +
    `${steps} steps in ${result.seconds.toFixed(1)} s (${(steps / result.seconds).toFixed(0)} steps/s)`,
);
out.push(cpuLine(result, 2));
const d = (key) => sentAfter.totals[key] - sentBefore.totals[key];
out.push(
  `Sent per step: ${per(d('roundTrips'))} round trips, ${per(d('statements'))} statements, ` +
    `${(d('bytesOut') / steps).toFixed(0)} bytes; ${per(d('rows'))} rows answered`,
);
const commits = Number(after.db.commits) - Number(before.db.commits);
const lsnBytes = (lsn) => {
  const [hi, lo] = lsn.split('/');
  return Number.parseInt(hi, 16) * 2 ** 32 + Number.parseInt(lo, 16);
};
out.push(
  `Database per step: ${per(commits)} commits, ${per(Number(after.db.returned) - Number(before.db.returned))} tuples returned, ` +
    `${per(Number(after.db.fetched) - Number(before.db.fetched))} fetched, ` +
    `${(lsnBytes(after.db.lsn) - lsnBytes(before.db.lsn)) / steps > 0 ? ((lsnBytes(after.db.lsn) - lsnBytes(before.db.lsn)) / steps).toFixed(0) : '?'} WAL bytes (whole server)`,
);
out.push(
  '',
  '| table | inserted / step | updated / step (HOT) | deleted / step | index scans / step | seq scans (rows read) / step |',
  '| --- | ---: | ---: | ---: | ---: | ---: |',
);
for (const [name, a] of after.tables) {
  const b = before.tables.get(name) ?? { ins: 0, upd: 0, hot: 0, del: 0, seq: 0, seqrows: 0, idx: 0 };
  const diff = (k) => Number(a[k]) - Number(b[k]);
  if (diff('ins') + diff('upd') + diff('del') + diff('idx') + diff('seq') === 0) continue;
  out.push(
    `| ${name} | ${per(diff('ins'))} | ${per(diff('upd'))} (${per(diff('hot'))}) | ${per(diff('del'))} | ` +
      `${per(diff('idx'))} | ${per(diff('seq'))} (${per(diff('seqrows'))}) |`,
  );
}
// Index entries read per step, by index: where "tuples returned" comes from.
out.push('', '| index | scans / step | entries read / step |', '| --- | ---: | ---: |');
for (const [name, a] of after.indexes) {
  const b = before.indexes.get(name) ?? { scans: 0, read: 0 };
  const scans = Number(a.scans) - Number(b.scans);
  if (scans === 0) continue;
  out.push(`| ${name} | ${per(scans)} | ${per(Number(a.read) - Number(b.read))} |`);
}
out.push('', '| statement | per step | bytes / step |', '| --- | ---: | ---: |');
const statements = Object.entries(sentAfter.byStatement)
  .map(([label, a]) => {
    const b = sentBefore.byStatement[label] ?? { statements: 0, bytesOut: 0 };
    return { label, n: a.statements - b.statements, bytes: a.bytesOut - b.bytesOut };
  })
  .filter((s) => s.n > 0)
  .sort((x, y) => y.n - x.n || y.bytes - x.bytes);
for (const s of statements)
  out.push(`| \`${s.label.replace(/\|/g, '\\|')}\` | ${per(s.n)} | ${(s.bytes / steps).toFixed(0)} |`);

if (explainLog) out.push(...executorSummary(explainLog, logFrom, logTo, databaseName(DB), steps));
if (wal) {
  out.push('', '| WAL record (whole server) | records / step | bytes / step |', '| --- | ---: | ---: |');
  for (const r of wal) out.push(`| ${r.type} | ${per(r.records)} | ${(r.bytes / steps).toFixed(0)} |`);
}
// With several nodes, the first node's profile (each node's is in its own directory).
out.push(
  ...profileSummary(profDir && nodes > 1 ? join(profDir, 'node-1') : profDir, top, sentBefore, sentAfter),
);
if (recorder) out.push('', ...(await recorder.summary(top)));
process.stdout.write(`${out.join('\n')}\n`);
