#!/usr/bin/env node
// HTTP tasks under load: does a slow call target delay the rest of the engine? Starts a real
// Baton process (SQLite, or PostgreSQL with --pg), an HTTP target in this process that answers
// after 1 s, and a probe worker that measures worker-task hand-off latency: the time from
// starting a one-SIMPLE-task run to the worker's waiting long poll receiving the task.
// It measures that latency idle, then while R runs (default 500) each make one HTTP call to
// the 1 s target, and prints both with their ratio (the goal: loaded p50 within 2× idle).
//
//   npx tsc -b && node bench/http-tasks.mjs [--runs 500] [--probes 200] [--pg] [--out DIR]
//
// The figures are printed and written to DIR/http-tasks-<store>.json (default bench/results).
// --pg uses a fresh database on BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { startBaton } from './lib/baton-server.mjs';
import { jsonClient } from './lib/http-json.mjs';
import { dropDatabase, freshDatabase } from './lib/pg-admin.mjs';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '500' },
    probes: { type: 'string', default: '200' },
    'delay-ms': { type: 'string', default: '1000' },
    pg: { type: 'boolean', default: false },
    out: { type: 'string', default: join(dirname(fileURLToPath(import.meta.url)), 'results') },
  },
});
const RUNS = Number(values.runs);
const PROBES = Number(values.probes);
const DELAY_MS = Number(values['delay-ms']);
const log = (m) => process.stderr.write(`http-tasks: ${m}\n`);

// The call target: answers every request after DELAY_MS, counting them.
let calls = 0;
const target = createServer((req, res) => {
  req.resume();
  req.on('end', () =>
    setTimeout(() => {
      calls++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }, DELAY_MS),
  );
});
target.keepAliveTimeout = 30_000;
await new Promise((r) => target.listen(0, '127.0.0.1', r));
const targetUrl = `http://127.0.0.1:${target.address().port}/slow`;

const dbName = values.pg ? `baton_bench_http_${Date.now().toString(36)}` : undefined;
const databaseUrl = dbName ? await freshDatabase(dbName) : undefined;
const baton = await startBaton({ databaseUrl });
const api = jsonClient(baton.url, { sockets: 64 });
const poller = jsonClient(baton.url, { sockets: 2 });

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return { count: s.length, p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99) };
}

try {
  await api.post('/api/metadata/taskdefs', [{ name: 'probe', retryCount: 0, responseTimeoutSeconds: 60 }]);
  await api.post('/api/metadata/workflow?overwrite=true', {
    name: 'bench_probe',
    version: 1,
    tasks: [{ name: 'probe', taskReferenceName: 'probe', type: 'SIMPLE' }],
  });
  await api.post('/api/metadata/workflow?overwrite=true', {
    name: 'bench_http',
    version: 1,
    tasks: [
      {
        name: 'call',
        taskReferenceName: 'call',
        type: 'HTTP',
        inputParameters: { http_request: { uri: targetUrl, method: 'GET', readTimeOut: 30_000 } },
      },
    ],
  });

  /** One hand-off: a long poll is waiting; a run starts; the poll answers with its task. */
  async function probeOnce() {
    const poll = poller.get('/api/tasks/poll/batch/probe?count=1&timeout=5000&workerid=probe');
    await new Promise((r) => setTimeout(r, 5)); // the poll is parked before the run starts
    const t0 = performance.now();
    await api.post('/api/workflow/bench_probe', {});
    const { body } = await poll;
    const t1 = performance.now();
    const task = body[0];
    if (!task) throw new Error('the probe poll answered no task');
    await api.post('/api/tasks', {
      taskId: task.taskId,
      workflowInstanceId: task.workflowInstanceId,
      status: 'COMPLETED',
      outputData: {},
    });
    return t1 - t0;
  }

  for (let i = 0; i < 20; i++) await probeOnce(); // warm-up
  const idle = [];
  for (let i = 0; i < PROBES; i++) idle.push(await probeOnce());
  const idleSummary = summary(idle);
  log(`idle hand-off: p50 ${idleSummary.p50.toFixed(2)} ms, p95 ${idleSummary.p95.toFixed(2)} ms`);

  // The load: RUNS runs, each one HTTP call to the 1 s target, started together.
  const started = performance.now();
  const ids = [];
  for (let i = 0; i < RUNS; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, RUNS - i) }, () => api.post('/api/workflow/bench_http', {})),
    );
    ids.push(...batch.map((r) => r.body));
  }
  const startSeconds = (performance.now() - started) / 1000;
  const loaded = [];
  let completed = 0;
  let checkedAt = 0;
  while (completed < RUNS) {
    loaded.push(await probeOnce());
    if (performance.now() - checkedAt > 1000) {
      checkedAt = performance.now();
      const { body } = await api.get(`/api/workflow/search?name=bench_http&status=COMPLETED&size=1`);
      completed = body.totalHits;
      if ((performance.now() - started) / 1000 > 600)
        throw new Error('the HTTP runs did not complete in 10 minutes');
    }
  }
  const drainSeconds = (performance.now() - started) / 1000;
  const loadedSummary = summary(loaded);
  const ratio = loadedSummary.p50 / idleSummary.p50;
  const { body: failed } = await api.get(`/api/workflow/search?name=bench_http&status=FAILED&size=1`);
  const { body: metrics } = await api.get('/metrics');
  const result = {
    store: values.pg ? 'postgres' : 'sqlite',
    runs: RUNS,
    targetDelayMs: DELAY_MS,
    callsReceived: calls,
    runsFailed: failed.totalHits,
    startSeconds: Number(startSeconds.toFixed(2)),
    drainSeconds: Number(drainSeconds.toFixed(2)),
    idleHandoffMs: idleSummary,
    loadedHandoffMs: loadedSummary,
    p50Ratio: Number(ratio.toFixed(2)),
    systemCalls: metrics.split('\n').filter((l) => l.startsWith('baton_system_calls_total')),
  };
  const text = `${JSON.stringify({ ...result, measuredAt: new Date().toISOString() }, null, 2)}\n`;
  process.stdout.write(text);
  writeFileSync(join(values.out, `http-tasks-${result.store}.json`), text);
  log(
    `${RUNS} HTTP runs against a ${DELAY_MS} ms target drained in ${drainSeconds.toFixed(1)} s; ` +
      `hand-off p50 idle ${idleSummary.p50.toFixed(2)} ms, loaded ${loadedSummary.p50.toFixed(2)} ms (${ratio.toFixed(2)}×), ` +
      `p95 idle ${idleSummary.p95.toFixed(2)} ms, loaded ${loadedSummary.p95.toFixed(2)} ms`,
  );
} finally {
  api.close();
  poller.close();
  await baton.stop();
  target.closeAllConnections();
  target.close();
  if (dbName) await dropDatabase(dbName);
}
