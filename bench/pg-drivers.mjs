#!/usr/bin/env node
// node-postgres (`pg`) as Baton's store drives it, against postgres.js (`postgres`, which
// pipelines), on the statements of one step: a run locked, its decide set read, the ended task
// updated and the next one inserted, the ended task's queue message deleted and the next one's
// enqueued, in one transaction. Measured per step: CPU of this process (the client) and of the
// database's backends, and each step's latency, with one client (light load) and with sixteen
// concurrent transactions on sixteen connections (throughput).
//   node bench/pg-drivers.mjs [--runs 300] [--rounds 2]
// The drivers:
//   - pg, as Baton sends it: prepared once per connection, then two simple-protocol messages per
//     step ([BEGIN; lock; decide set], [the four writes; COMMIT]) with literals inlined;
//   - pg, statement by statement: each prepared statement awaited in turn (eight round trips);
//   - postgres.js: prepared statements pipelined (the lock and the decide set sent together, the
//     four writes together), inside sql.begin.
import { parseArgs } from 'node:util';

import pg from 'pg';
import postgres from 'postgres';

import { CpuMeter } from './lib/cpu-meter.mjs';
import { databaseName, dropDatabase, freshDatabase } from './lib/pg-admin.mjs';
import { stepPayload } from './lib/payload.mjs';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '300' }, rounds: { type: 'string', default: '2' } },
});
const RUNS = Number(values.runs);
const ROUNDS = Number(values.rounds);
const STEPS = 10;
const CONCURRENCY = 16;
const DB = 'bench_pg_drivers';

const SCHEMA = `
CREATE TABLE runs (workflow_id text PRIMARY KEY, record jsonb NOT NULL);
CREATE TABLE tasks (task_id text PRIMARY KEY, workflow_id text NOT NULL, seq int NOT NULL,
  status text NOT NULL, update_time bigint NOT NULL, record jsonb NOT NULL);
CREATE INDEX tasks_workflow_seq ON tasks (workflow_id, seq);
CREATE INDEX tasks_status ON tasks (status, update_time);
CREATE TABLE queue_messages (task_id text PRIMARY KEY, queue_name text NOT NULL, visible_at bigint NOT NULL,
  locked_until bigint);
CREATE INDEX queue_messages_locked ON queue_messages (locked_until) WHERE locked_until IS NOT NULL;`;

const SQL = {
  lock: 'SELECT record FROM runs WHERE workflow_id = $1 FOR UPDATE',
  decide: 'SELECT record FROM tasks WHERE workflow_id = $1 ORDER BY seq',
  update: 'UPDATE tasks SET status = $2, update_time = $3, record = $4::jsonb WHERE task_id = $1',
  insert: `INSERT INTO tasks (task_id, workflow_id, seq, status, update_time, record)
    VALUES ($1, $2, $3, 'IN_PROGRESS', $4, $5::jsonb)`,
  remove: 'DELETE FROM queue_messages WHERE task_id = $1',
  enqueue:
    'INSERT INTO queue_messages (task_id, queue_name, visible_at, locked_until) VALUES ($1, $2, $3, $4)',
};

const taskId = (run, seq) => `t-${run}-${seq}`;
const record = (run, seq, status) =>
  JSON.stringify({
    taskId: taskId(run, seq),
    workflowInstanceId: `r-${run}`,
    seq,
    status,
    inputData: { data: stepPayload(run, seq) },
  });
/** The parameters of step `seq` of run `run`: the task `seq` ends, task `seq + 1` starts. */
function step(run, seq) {
  const now = Date.now();
  return {
    wf: `r-${run}`,
    update: [taskId(run, seq), 'COMPLETED', now, record(run, seq, 'COMPLETED')],
    insert: [taskId(run, seq + 1), `r-${run}`, seq + 1, now, record(run, seq + 1, 'IN_PROGRESS')],
    remove: [taskId(run, seq)],
    enqueue: [taskId(run, seq + 1), 'bench_step', now + 60_000, now + 60_000],
  };
}

async function reset(url) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('TRUNCATE runs, tasks, queue_messages');
  const runs = Array.from({ length: RUNS }, (_, r) => r);
  await c.query(
    `INSERT INTO runs SELECT 'r-' || r, '{"status":"RUNNING"}'::jsonb FROM unnest($1::int[]) AS r`,
    [runs],
  );
  for (const r of runs) {
    await c.query(`INSERT INTO tasks VALUES ($1, $2, 0, 'IN_PROGRESS', 0, $3::jsonb)`, [
      taskId(r, 0),
      `r-${r}`,
      record(r, 0, 'IN_PROGRESS'),
    ]);
    await c.query('INSERT INTO queue_messages VALUES ($1, $2, 0, 1)', [taskId(r, 0), 'bench_step']);
  }
  await c.query('VACUUM ANALYZE');
  await c.end();
}

/** Runs `fn` in a transaction on a client of `pool` (BEGIN is `fn`'s to send, COMMIT too). */
async function onClient(pool, fn) {
  const client = await pool.connect();
  try {
    await fn(client);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** pg as Baton's store sends a step: two messages of several statements, literals inlined. */
function pgBaton(url) {
  const pool = new pg.Pool({ connectionString: url, max: CONCURRENCY });
  const prepared = new WeakSet();
  const lit = (v) => (typeof v === 'number' ? String(v) : pg.Client.prototype.escapeLiteral(String(v)));
  const exec = (name, params) => `EXECUTE ${name}(${params.map(lit).join(', ')})`;
  return {
    step: (run, seq) =>
      onClient(pool, async (client) => {
        const p = step(run, seq);
        if (!prepared.has(client)) {
          await client.query(
            Object.entries(SQL)
              .map(([name, text]) => `PREPARE ${name} AS ${text}`)
              .join(';\n'),
          );
          prepared.add(client);
        }
        const answer = await client.query(`BEGIN; ${exec('lock', [p.wf])}; ${exec('decide', [p.wf])}`);
        if (answer[2].rows.length !== seq + 1)
          throw new Error(`decide set of ${p.wf}: ${answer[2].rows.length}`);
        await client.query(
          [
            exec('update', p.update),
            exec('insert', p.insert),
            exec('remove', p.remove),
            exec('enqueue', p.enqueue),
            'COMMIT',
          ].join(';\n'),
        );
      }),
    end: () => pool.end(),
  };
}

/** pg the common way: each prepared statement awaited in turn. */
function pgEach(url) {
  const pool = new pg.Pool({ connectionString: url, max: CONCURRENCY });
  const q = (client, name, values) => client.query({ name, text: SQL[name], values });
  return {
    step: (run, seq) =>
      onClient(pool, async (client) => {
        const p = step(run, seq);
        await client.query('BEGIN');
        await q(client, 'lock', [p.wf]);
        const decide = await q(client, 'decide', [p.wf]);
        if (decide.rows.length !== seq + 1) throw new Error(`decide set of ${p.wf}`);
        await q(client, 'update', p.update);
        await q(client, 'insert', p.insert);
        await q(client, 'remove', p.remove);
        await q(client, 'enqueue', p.enqueue);
        await client.query('COMMIT');
      }),
    end: () => pool.end(),
  };
}

/** postgres.js: prepared statements, the reads pipelined together, then the writes. */
function postgresJs(url) {
  const sql = postgres(url, { max: CONCURRENCY, prepare: true, onnotice: () => {} });
  return {
    async step(run, seq) {
      const p = step(run, seq);
      await sql.begin(async (tx) => {
        const [, decide] = await Promise.all([
          tx.unsafe(SQL.lock, [p.wf], { prepare: true }),
          tx.unsafe(SQL.decide, [p.wf], { prepare: true }),
        ]);
        if (decide.length !== seq + 1) throw new Error(`decide set of ${p.wf}`);
        await Promise.all([
          tx.unsafe(SQL.update, p.update, { prepare: true }),
          tx.unsafe(SQL.insert, p.insert, { prepare: true }),
          tx.unsafe(SQL.remove, p.remove, { prepare: true }),
          tx.unsafe(SQL.enqueue, p.enqueue, { prepare: true }),
        ]);
      });
    },
    end: () => sql.end(),
  };
}

const DRIVERS = {
  'pg, as Baton sends it (2 messages)': pgBaton,
  'pg, statement by statement': pgEach,
  'postgres.js 3.4, pipelined': postgresJs,
};

async function measure(url, make, concurrency) {
  await reset(url);
  const driver = make(url);
  // Connections opened and statements prepared before the clock starts.
  await Promise.all(Array.from({ length: concurrency }, () => driver.step(RUNS - 1, 0).catch(() => {})));
  await reset(url);
  const meter = await new CpuMeter({ pgDatabase: databaseName(DB) }).start();
  const latencies = [];
  const t0 = performance.now();
  let next = 0;
  const lanes = Array.from({ length: concurrency }, async () => {
    for (;;) {
      const run = next++;
      if (run >= RUNS) return;
      for (let seq = 0; seq < STEPS; seq++) {
        const s = performance.now();
        await driver.step(run, seq);
        latencies.push(performance.now() - s);
      }
    }
  });
  await Promise.all(lanes);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = await meter.stop();
  await driver.end();
  const steps = RUNS * STEPS;
  latencies.sort((a, b) => a - b);
  const ms = (name) => (cpu.find((c) => c.name === name)?.ms ?? 0) / steps;
  return {
    stepsPerSecond: steps / seconds,
    client: ms('harness (workers)'),
    backends: ms('PostgreSQL backends'),
    p50: latencies[Math.floor(latencies.length / 2)],
    p99: latencies[Math.floor(latencies.length * 0.99)],
  };
}

const url = await freshDatabase(DB);
try {
  const schema = new pg.Client({ connectionString: url });
  await schema.connect();
  await schema.query(SCHEMA);
  await schema.end();
  const rows = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, make] of Object.entries(DRIVERS)) {
      for (const [pass, concurrency] of [
        ['light load', 1],
        ['throughput', CONCURRENCY],
      ]) {
        const r = await measure(url, make, concurrency);
        rows.push(
          `| ${name} | ${pass} | ${round + 1} | ${r.stepsPerSecond.toFixed(0)} | ${(r.client + r.backends).toFixed(3)} | ` +
            `${r.client.toFixed(3)} | ${r.backends.toFixed(3)} | ${r.p50.toFixed(2)} / ${r.p99.toFixed(2)} |`,
        );
        process.stderr.write(`${rows.at(-1)}\n`);
      }
    }
  }
  process.stdout.write(
    [
      `${RUNS} runs × ${STEPS} steps per pass; throughput: ${CONCURRENCY} transactions at once on ${CONCURRENCY} connections.`,
      '',
      '| driver | pass | round | steps/s | CPU ms / step | client | PostgreSQL | step p50 / p99 (ms) |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows,
      '',
    ].join('\n'),
  );
} finally {
  await dropDatabase(DB);
}
