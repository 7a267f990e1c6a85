#!/usr/bin/env node
// One worker completing steps strictly one after another: the wall time of each update-v2 (the
// result posted, the next task answered), on a fresh server, and the CPU each step cost the
// server and its PostgreSQL backends. What the light-load hand-off is made of, without the
// bench's other systems around it. `--warm N`: the first N runs are not measured (the server's
// code is compiled as it runs; a long-running server has done that long ago). `--timeline`: where
// the server's time on an update-v2 goes (lib/update-v2-timeline-hook.mjs), in ms per request, and
// how long its socket writes take (the reader's run included when the kernel switches to it).
// `--cpu-prof DIR`: the server's V8 CPU profile, written there when it stops. `--chunk N`: the
// pass cut into blocks of N runs in order (warm-up runs included), each block's p50 / p90 and the
// CPU a step of the server and of the database's backends: how a fresh node warms.
// `--slowest N`: the N slowest measured update-v2s, each with its run, its step in the run and when
// it began (ms since the first measured one), in the order they ran: whether the tail is a fresh
// node's first runs or spread over the pass.
// `--server-args="..."`: Node flags for the server, e.g. `--server-args=--trace-gc-nvp`, whose
// lines go to this command's output (its scavenges, their pauses and what each promoted).
//   node bench/update-v2-latency.mjs [--sqlite] [--runs 60] [--warm 0] [--timeline] [--cpu-prof DIR] [--chunk 25] [--slowest 20] [--server-args="--flag ..."]
// Run `npx tsc -b` first.
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import pg from 'pg';

import { register } from './lib/baton-system.mjs';
import { startBaton } from './lib/baton-server.mjs';
import { CpuMeter } from './lib/cpu-meter.mjs';
import { dumpCounters } from './lib/profile-run.mjs';
import { jsonClient } from './lib/http-json.mjs';
import { ADMIN_URL, databaseName, dropDatabase, freshDatabase } from './lib/pg-admin.mjs';
import { cpuBetween, cpuMsOf, snapshotCpu } from './lib/proc-cpu.mjs';

const { values } = parseArgs({
  options: {
    sqlite: { type: 'boolean', default: false },
    runs: { type: 'string', default: '60' },
    warm: { type: 'string', default: '0' },
    timeline: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    chunk: { type: 'string' },
    slowest: { type: 'string' },
    'server-args': { type: 'string' },
  },
});
const profArgs = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof']] : [];
if (values.timeline && values.sqlite)
  throw new Error('--timeline times PostgreSQL messages: not with --sqlite');
const timelineFile = join(tmpdir(), `baton-timeline-${process.pid}`);
const warm = Number(values.warm);
const chunk = values.chunk === undefined ? undefined : Number(values.chunk);
if (chunk !== undefined && !(Number.isInteger(chunk) && chunk > 0))
  throw new Error('--chunk takes a count of runs');
const STEPS = 10;
const DB = 'bench_update_v2_latency';
const databaseUrl = values.sqlite ? undefined : await freshDatabase(DB);
const server = await startBaton({
  databaseUrl,
  nodeArgs: [
    ...profArgs,
    ...(values['server-args'] ? values['server-args'].split(/\s+/).filter(Boolean) : []),
    ...(values.timeline
      ? ['--import', join(dirname(fileURLToPath(import.meta.url)), 'lib/update-v2-timeline-hook.mjs')]
      : []),
  ],
  ...(values.timeline && { env: { BATON_TIMELINE_FILE: timelineFile } }),
});
const client = jsonClient(server.url, { sockets: 4 });
const updates = [];
/** --slowest: every measured update-v2 with where and when it ran. */
const samples = [];
/** --chunk: one entry a block of runs: its update-v2 times and the CPU ms it cost. */
const blocks = [];
let meter;
let cpu = [];
let timelineBefore;
let timelineAfter;
try {
  await register(client, STEPS);
  const admin =
    chunk !== undefined && databaseUrl ? new pg.Client({ connectionString: ADMIN_URL }) : undefined;
  await admin?.connect();
  // CPU ms so far: the server's, and each backend's of the database (for cpuBetween).
  const cpuNow = async () => {
    const { rows } = admin
      ? await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [databaseName(DB)])
      : { rows: [] };
    return { server: cpuMsOf(server.pid) ?? 0, backends: snapshotCpu(rows.map((r) => r.pid)) };
  };
  for (let run = 0; run < warm + Number(values.runs); run++) {
    if (chunk !== undefined && run % chunk === 0) {
      const cpu = await cpuNow();
      const last = blocks.at(-1);
      if (last) last.cpuAfter = cpu;
      blocks.push({ first: run, times: [], cpuBefore: cpu });
    }
    if (run === warm) {
      if (values.timeline) timelineBefore = await dumpCounters(server.pid, timelineFile, 1);
      meter = await new CpuMeter({
        processes: [{ name: 'Baton server', pid: server.pid }],
        ...(databaseUrl && { pgDatabase: databaseName(DB) }),
      }).start();
    }
    await client.post('/api/workflow/bench_linear', { input: { run, data: 'x' } });
    const polled = await client.get('/api/tasks/poll/batch/bench_step?count=1&timeout=1000&workerid=w');
    let task = polled.body[0];
    for (let step = 0; task; step++) {
      const started = performance.now();
      const res = await client.post('/api/tasks/update-v2', {
        taskId: task.taskId,
        workflowInstanceId: task.workflowInstanceId,
        workerId: 'w',
        status: 'COMPLETED',
        outputData: { data: 'y' },
      });
      const ms = performance.now() - started;
      if (meter) updates.push(ms);
      if (meter && values.slowest !== undefined) samples.push({ ms, run: run - warm, step, at: started });
      blocks.at(-1)?.times.push(ms);
      task = res.status === 200 ? res.body : undefined;
    }
  }
  if (blocks.length > 0) blocks.at(-1).cpuAfter = await cpuNow();
  await admin?.end();
  cpu = (await meter?.stop()) ?? [];
  if (values.timeline) timelineAfter = await dumpCounters(server.pid, timelineFile, 2);
} finally {
  client.close();
  await server.stop();
  if (databaseUrl) await dropDatabase(DB);
}
const quantile = (sorted, p) =>
  (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN).toFixed(2);
for (const { first, times, cpuBefore, cpuAfter } of blocks) {
  times.sort((a, b) => a - b);
  const backendMs = cpuBetween(cpuBefore.backends, cpuAfter.backends);
  const perStep = (ms) => (ms / times.length).toFixed(2);
  const last = Math.min(first + chunk, warm + Number(values.runs)) - 1;
  console.log(
    `runs ${first}–${last}: p50 ${quantile(times, 0.5)} ms, p90 ${quantile(times, 0.9)} ms; ` +
      `CPU ms per step: server ${perStep(cpuAfter.server - cpuBefore.server)}` +
      (databaseUrl ? `, PostgreSQL backends ${perStep(backendMs)}` : ''),
  );
}
updates.sort((a, b) => a - b);
if (values.slowest !== undefined) {
  const t0 = samples[0]?.at ?? 0;
  const slowest = [...samples].sort((a, b) => b.ms - a.ms).slice(0, Number(values.slowest));
  slowest.sort((a, b) => a.at - b.at);
  console.log(
    `slowest ${slowest.length} (ms at run.step, begun at ms since the first): ` +
      slowest.map((s) => `${s.ms.toFixed(1)} at ${s.run}.${s.step} (${Math.round(s.at - t0)})`).join(', '),
  );
}
const at = (p) => quantile(updates, p);
// Per step, the run's start and first poll included (one of each per ten steps).
const perStep = cpu.map(({ name, ms }) => `${name} ${(ms / updates.length).toFixed(3)}`).join(', ');
console.log(
  `update-v2 on ${values.sqlite ? 'SQLite' : 'PostgreSQL'}, one worker, ${updates.length} steps` +
    `${warm > 0 ? ` after ${warm} runs unmeasured` : ''}: ` +
    `p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms; CPU ms per step: ${perStep}`,
);
if (timelineBefore && timelineAfter) {
  const n = timelineAfter.requests - timelineBefore.requests;
  const part = (key) => ((timelineAfter[key] - timelineBefore[key]) / n).toFixed(3);
  console.log(
    `server ms per update-v2 (${n} requests): total ${part('total')} = before the first message ${part('beforeFirst')}` +
      ` + waiting for the first ${part('first')}, the second ${part('second')}, the rest ${part('rest')}` +
      ` + between messages ${part('between')} + after the last ${part('afterLast')}`,
  );
  const writes = (count, ms) => {
    const k = timelineAfter[count] - timelineBefore[count];
    const us = k === 0 ? 0 : ((timelineAfter[ms] - timelineBefore[ms]) * 1000) / k;
    return `${(k / n).toFixed(2)} a request, ${us.toFixed(1)} µs each`;
  };
  console.log(
    `socket writes (time inside the call, the reader's run included when the kernel switches to it): ` +
      `HTTP answers ${writes('httpWrites', 'httpWriteMs')}; PostgreSQL messages ${writes('pgWrites', 'pgWriteMs')}`,
  );
}
