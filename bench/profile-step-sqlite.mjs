#!/usr/bin/env node
// What one step of Baton on SQLite costs: a throughput run (as `npm run bench`'s baton-sqlite)
// in a fresh data directory, measuring per step
//   - CPU of the server and the workers (cpu-meter.mjs);
//   - the statements the server runs on SQLite and the time spent inside them, by statement
//     (sqlite-statements-hook.mjs, loaded into the server);
// and, with --cpu-prof DIR, the server's V8 CPU profile (open it in Chrome DevTools, or read the
// summary printed here: self time by function and by package, and time with callees of the
// server's functions); with --oncpu, its time on the CPU as Linux perf samples it
// (oncpu-profile.mjs).
//   node bench/profile-step-sqlite.mjs --runs 400 [--cpu-prof /tmp/prof] [--oncpu]
// Run `npx tsc -b` first.
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { drive, register } from './lib/baton-system.mjs';
import { startBaton } from './lib/baton-server.mjs';
import { CpuMeter } from './lib/cpu-meter.mjs';
import { jsonClient } from './lib/http-json.mjs';
import { ONCPU_NODE_ARGS, OnCpuRecorder } from './lib/oncpu-profile.mjs';
import { cpuLine, dumpCounters, profileFlags, profileSummary } from './lib/profile-run.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const { options, protocol, profDir, oncpu, top, nodes } = profileFlags('400');
if (nodes !== 1) throw new Error('--nodes is for PostgreSQL: SQLite is one node');
const statsFile = join(tmpdir(), `baton-sqlite-stats-${process.pid}`);

const dump = (pid, n) => dumpCounters(pid, statsFile, n);

const server = await startBaton({
  env: { BATON_SQLITE_STATS_FILE: statsFile },
  nodeArgs: [
    '--import',
    join(HERE, 'lib/sqlite-statements-hook.mjs'),
    ...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []),
    ...(oncpu ? ONCPU_NODE_ARGS : []),
  ],
});
const recorder = oncpu ? new OnCpuRecorder(server.pid) : undefined;
const client = jsonClient(server.url, { sockets: options.workers + 24 });
let result;
let sentBefore;
let sentAfter;
try {
  await register(client, options.steps);
  sentBefore = await dump(server.pid, 1);
  const meter = new CpuMeter({ processes: [{ name: 'Baton server', pid: server.pid }] });
  recorder?.start();
  result = await drive(client, options, { protocol, meter });
  await recorder?.stop();
  sentAfter = await dump(server.pid, 2);
} finally {
  client.close();
  await server.stop();
}

const steps = result.steps;
const seconds = result.seconds;
const per = (n) => (n / steps).toFixed(2);
const out = [];
out.push(
  `Baton on SQLite, ${protocol}: ${options.runs} runs × ${options.steps} steps, ${options.workers} workers: ` +
    `${steps} steps in ${seconds.toFixed(1)} s (${(steps / seconds).toFixed(0)} steps/s)`,
);
out.push(cpuLine(result, 3));
const d = (key) => sentAfter.totals[key] - sentBefore.totals[key];
out.push(
  `SQLite per step: ${per(d('statements'))} statements, ${(d('us') / steps / 1000).toFixed(3)} ms inside them ` +
    `(wall time, fsyncs included)`,
);
out.push('', '| statement | per step | µs / step | µs each |', '| --- | ---: | ---: | ---: |');
const statements = Object.entries(sentAfter.byStatement)
  .map(([label, a]) => {
    const b = sentBefore.byStatement[label] ?? { statements: 0, us: 0 };
    return { label, n: a.statements - b.statements, us: a.us - b.us };
  })
  .filter((s) => s.n > 0)
  .sort((x, y) => y.us - x.us);
for (const s of statements)
  out.push(
    `| \`${s.label.replace(/\|/g, '\\|')}\` | ${per(s.n)} | ${(s.us / steps).toFixed(1)} | ${(s.us / s.n).toFixed(1)} |`,
  );

out.push(...profileSummary(profDir, top, sentBefore, sentAfter));
if (recorder) out.push('', ...(await recorder.summary(top)));
process.stdout.write(`${out.join('\n')}\n`);
