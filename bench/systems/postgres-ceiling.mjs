// The ceiling every PostgreSQL-backed system sits under: how many single-row INSERT commits per
// second this server takes from `workers` clients, each one connection in autocommit, with
// nothing else to do. A durable step needs at least one such commit, so no system on this
// server can complete steps faster than this.
import { performance } from 'node:perf_hooks';

import pg from 'pg';

import { bounded, checkOptions } from '../lib/completions.mjs';
import { stepPayload } from '../lib/payload.mjs';
import { CpuMeter } from '../lib/cpu-meter.mjs';
import { databaseName, dropDatabase, freshDatabase } from '../lib/pg-admin.mjs';

const LABEL = 'PostgreSQL INSERT ceiling';
const DATABASE = 'bench_ceiling';
const DEFAULT_SECONDS = 10;
/** Latency mode makes runs × steps inserts one after another; it must still end. */
const LATENCY_LIMIT_MS = 10 * 60_000;

export default async function run(options) {
  const { mode, runs, workers, steps } = checkOptions(options, LABEL);
  const duration = options.seconds ?? DEFAULT_SECONDS;
  if (!(duration > 0)) throw new Error(`${LABEL}: seconds must be positive, got ${options.seconds}`);
  const clients = mode === 'throughput' ? workers : 1;

  const url = await freshDatabase(DATABASE);
  const connected = [];
  try {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('create table step (id bigserial primary key, payload jsonb not null)');
    } finally {
      await admin.end();
    }
    for (let c = 0; c < clients; c++) {
      const client = new pg.Client({ connectionString: url });
      client.on('error', (error) => console.error(`[${LABEL}] client ${c}: ${error.message}`));
      await client.connect();
      connected.push(client);
    }

    // A prepared statement, as a queue's hot path would use; every row carries its own payload.
    const insert = (n) => ({
      name: 'insert_step',
      text: 'insert into step (payload) values ($1)',
      values: [JSON.stringify(stepPayload(Math.floor(n / steps), n % steps))],
    });
    const latencies = [];
    let next = 0;

    const meter = await new CpuMeter({ pgDatabase: databaseName(DATABASE) }).start();
    const started = performance.now();
    if (mode === 'throughput') {
      const end = started + duration * 1000;
      await Promise.all(
        connected.map(async (client) => {
          while (performance.now() < end) {
            const n = next++;
            const at = performance.now();
            await client.query(insert(n));
            latencies.push(performance.now() - at);
          }
        }),
      );
    } else {
      const [client] = connected;
      const limit = started + LATENCY_LIMIT_MS;
      for (let n = 0; n < runs * steps; n++) {
        if (performance.now() > limit)
          throw new Error(`${LABEL}: ${n} inserts in ${LATENCY_LIMIT_MS} ms, giving up`);
        const at = performance.now();
        await client.query(insert(n));
        latencies.push(performance.now() - at);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = await meter.stop();

    const commits = latencies.length;
    const { rows } = await connected[0].query('select count(*)::int as n from step');
    if (rows[0].n !== commits)
      throw new Error(`${LABEL}: ${commits} inserts answered but ${rows[0].n} rows found`);
    return {
      label: LABEL,
      runsCompleted: commits / steps,
      steps: commits,
      seconds,
      handoffMs: latencies,
      cpu,
      processes: [],
      notes: [
        mode === 'throughput'
          ? `${clients} clients (node-postgres, one connection each, autocommit) inserting for ${duration} s`
          : `one client inserting ${runs * steps} rows one after another`,
        'each commit one row (bigserial id, jsonb step payload) by a prepared INSERT; steps = commits, ' +
          `runs = commits / ${steps}: the most durable steps per second any system on this server could reach`,
        "hand-off figures here are each INSERT's round trip as the client sees it (commit included)",
      ],
    };
  } finally {
    const errors = [];
    for (const client of connected)
      await bounded(() => client.end(), 10_000, `${LABEL} client end`).catch((e) => errors.push(e));
    await dropDatabase(DATABASE).catch((e) => errors.push(e));
    for (const error of errors) console.error(`[${LABEL}] cleanup: ${error.message}`);
  }
}
