#!/usr/bin/env node
// The floor under any HTTP-driven, PostgreSQL-backed step on this machine: a bare node:http
// server (no framework, no engine) that answers each POSTed result with one durable single-row
// INSERT commit and a next-task-sized JSON answer. A worker's update-v2 cannot cost less than
// this exchange, so its CPU per step, beside Baton's (`node bench/update-v2-latency.mjs` at
// light load, `node bench/profile-step.mjs` under load), shows how much of a Baton step is the
// machine's and how much is Baton's.
//   node bench/http-commit-floor.mjs [--steps 3000] [--workers 1,16] [--warm 300]
// Measured per step: CPU of the server process, its PostgreSQL backends and the workers (this
// process), and each exchange's latency as the worker sees it.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import pg from 'pg';

import { CpuMeter } from './lib/cpu-meter.mjs';
import { jsonClient } from './lib/http-json.mjs';
import { databaseName, dropDatabase, freshDatabase } from './lib/pg-admin.mjs';

const DB = 'bench_http_floor';

/** The server side, in a process of its own so that its CPU is counted apart from the workers'. */
async function serve() {
  const pool = new pg.Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: 10 });
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const result = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      pool
        .query({ name: 'insert_step', text: 'INSERT INTO step (payload) VALUES ($1)', values: [result] })
        .then(() => {
          // About the size of the task update-v2 answers with.
          const next = JSON.stringify({
            taskId: result.taskId,
            status: 'IN_PROGRESS',
            inputData: result.outputData,
          });
          res.writeHead(200, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(next),
          });
          res.end(next);
        })
        .catch((error) => {
          res.writeHead(500).end(String(error.message));
        });
    });
  });
  server.listen(0, '127.0.0.1', () => process.send?.(server.address().port));
}

/** The result a worker posts: about the size of an update-v2 body. */
const RESULT = {
  taskId: '01a2188d-381c-73dd-82bb-c8254453a49e',
  workflowInstanceId: '01a2188d-381c-73dd-82bb-c8254453a49f',
  workerId: 'w',
  status: 'COMPLETED',
  outputData: { data: 'y'.repeat(64) },
};

async function timed(client, result, steps, workers) {
  const latencies = [];
  let sent = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (sent < steps) {
        sent++;
        const at = performance.now();
        await client.post('/step', result);
        latencies.push(performance.now() - at);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

async function main() {
  const { values } = parseArgs({
    options: {
      steps: { type: 'string', default: '3000' },
      workers: { type: 'string', default: '1,16' },
      warm: { type: 'string', default: '300' },
    },
  });
  const steps = Number(values.steps);
  const warm = Number(values.warm);
  const databaseUrl = await freshDatabase(DB);
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query('CREATE TABLE step (id bigserial PRIMARY KEY, payload jsonb NOT NULL)');
  await admin.end();
  const child = fork(new URL(import.meta.url).pathname, ['--serve'], {
    env: { ...process.env, FLOOR_DATABASE_URL: databaseUrl },
  });
  try {
    const port = await new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`the floor server exited with ${code}`)));
    });
    const url = `http://127.0.0.1:${port}`;
    for (const workers of values.workers.split(',').map(Number)) {
      const client = jsonClient(url, { sockets: workers });
      let measured;
      try {
        // Warm: the server's code compiled, its pool's connections open.
        for (let i = 0; i < warm; i++) await client.post('/step', RESULT);
        const meter = await new CpuMeter({
          processes: [{ name: 'server', pid: child.pid }],
          pgDatabase: databaseName(DB),
        }).start();
        const run = await timed(client, RESULT, steps, workers);
        measured = { ...run, cpu: await meter.stop() };
      } finally {
        client.close();
      }
      const { latencies, seconds, cpu } = measured;
      latencies.sort((a, b) => a - b);
      const at = (p) =>
        latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))].toFixed(2);
      console.log(
        `${workers} worker${workers === 1 ? '' : 's'}: ${(steps / seconds).toFixed(0)} steps/s, p50 ${at(0.5)} ms, ` +
          `p99 ${at(0.99)} ms; CPU ms per step: ${cpu.map(({ name, ms }) => `${name} ${(ms / steps).toFixed(3)}`).join(', ')}`,
      );
    }
  } finally {
    child.kill();
    await dropDatabase(DB);
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
