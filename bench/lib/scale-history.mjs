// Part A of the scale scenario: the cost of a poll + complete step on Baton/PostgreSQL with
// ever more finished runs stored. The history is grown in SQL (history-seed.mjs) between
// measurements; each measurement uses a fresh server process, warmed up first.
import os from 'node:os';
import { performance } from 'node:perf_hooks';

import pg from 'pg';

import { batonApi } from './baton-api.mjs';
import { startBaton } from './baton-server.mjs';
import { openHistorySeeder } from './history-seed.mjs';
import { databaseName, dropDatabase, freshDatabase } from './pg-admin.mjs';
import { cpuBetween, snapshotCpu } from './proc-cpu.mjs';
import {
  driveSequentially,
  driveSteps,
  registerLinearWorkflow,
  startSequentially,
} from './sequential-worker.mjs';
import { quantile } from './stats.mjs';

export const WORKFLOW = 'scale_linear';
export const TASK_TYPE = 'scale_step';
export const STEPS = 10;
// Clones start this far apart, all before the scenario began.
export const CLONE_SPACING_MS = 50;
/**
 * Runs each fresh server is driven through before a size is measured. A fresh node spends its
 * first hundred or so runs at one step at a time optimizing its code (its CPU a step falls from
 * about 4 ms in its first 50 runs to about 1.1 from run 150 on, `bench/update-v2-latency.mjs
 * --chunk 50`), and with 30 runs of warm-up the measured 300 still held part of that descent,
 * which moved the per-size figure, and the ratio between sizes, more than history did.
 */
export const WARMUP_RUNS = 150;
/**
 * A size's measured steps go in this many blocks, each with its own CPU, and the size's CPU a step
 * is the median block's (by server plus PostgreSQL). This shared machine's other work comes and
 * goes within seconds, and one pass over a size once took twice the CPU a step of the pass before
 * over the same store: a disturbance that lasts less than two blocks does not move the median.
 */
const BLOCKS = 5;

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const summary = (xs) => ({
  mean: mean(xs),
  p50: quantile(xs, 0.5),
  p99: quantile(xs, 0.99),
  count: xs.length,
});
const seconds = (since) => (performance.now() - since) / 1000;

/** The database backends serving Baton (the scenario's own connections name themselves bench-*). */
async function serverBackends(admin, database) {
  const { rows } = await admin.query(
    `SELECT pid FROM pg_stat_activity
     WHERE datname = $1 AND backend_type = 'client backend' AND application_name NOT LIKE 'bench-%'`,
    [databaseName(database)],
  );
  return rows.map((r) => r.pid);
}

async function storeCounts(admin) {
  const { rows } = await admin.query(
    `SELECT (SELECT count(*) FROM runs WHERE end_time > 0) AS finished,
            (SELECT count(*) FROM runs WHERE end_time = 0) AS open,
            (SELECT count(*) FROM tasks) AS tasks,
            pg_database_size(current_database()) AS bytes`,
  );
  const r = rows[0];
  return {
    finished: Number(r.finished),
    open: Number(r.open),
    tasks: Number(r.tasks),
    bytes: Number(r.bytes),
  };
}

/** A fresh server on the store as it is: warm-up, then `runs` runs started and driven one step at a time. */
export async function measureStep(databaseUrl, admin, database, { runs, warmupRuns, log, env = {} }) {
  const server = await startBaton({ databaseUrl, env: { BATON_LOG_LEVEL: 'error', ...env } });
  try {
    const api = batonApi(server.url);
    // Warm-up (WARMUP_RUNS): the JIT, the pool's connections and their prepared statements.
    await startSequentially(api, WORKFLOW, warmupRuns);
    await driveSequentially(api, TASK_TYPE, warmupRuns * STEPS);

    const starts = await startSequentially(api, WORKFLOW, runs, warmupRuns);
    const loadAverage = os.loadavg()[0];
    const cpuNow = async () => ({
      server: snapshotCpu([server.pid]),
      db: snapshotCpu(await serverBackends(admin, database)),
    });
    // The steps in BLOCKS blocks, each with its CPU: a size's CPU a step is its median block's.
    const samples = [];
    const blocks = [];
    let held;
    const driven = performance.now();
    for (let b = 0; b < BLOCKS; b++) {
      const want = Math.round(((b + 1) * runs * STEPS) / BLOCKS) - samples.length;
      const before = await cpuNow();
      const got = await driveSteps(api, TASK_TYPE, want, held);
      const after = await cpuNow();
      held = got.task;
      samples.push(...got.samples);
      blocks.push({
        steps: got.samples.length,
        serverCpuMsPerStep: cpuBetween(before.server, after.server) / got.samples.length,
        postgresCpuMsPerStep: cpuBetween(before.db, after.db) / got.samples.length,
      });
    }
    if (held) throw new Error(`a ${TASK_TYPE} task was left over after ${samples.length} steps`);
    const wallSeconds = seconds(driven);
    const steps = samples.length;
    const byCpu = [...blocks].sort(
      (a, b) =>
        a.serverCpuMsPerStep + a.postgresCpuMsPerStep - (b.serverCpuMsPerStep + b.postgresCpuMsPerStep),
    );
    const median = byCpu[Math.floor(byCpu.length / 2)];
    const { rows } = await admin.query(
      `SELECT count(*) AS n FROM runs WHERE workflow_id = ANY($1::text[]) AND status = 'COMPLETED'`,
      [starts.ids],
    );
    if (Number(rows[0].n) !== runs) throw new Error(`${rows[0].n} of ${runs} measured runs completed`);
    const result = {
      step: summary(samples),
      serverCpuMsPerStep: median.serverCpuMsPerStep,
      postgresCpuMsPerStep: median.postgresCpuMsPerStep,
      blocks,
      stepsPerSecond: steps / wallSeconds,
      start: summary(starts.samples),
      loadAverage,
    };
    log(
      `  ${steps} steps: mean ${result.step.mean.toFixed(2)} ms, p99 ${result.step.p99.toFixed(2)} ms, ` +
        `server CPU ${result.serverCpuMsPerStep.toFixed(2)} ms, PostgreSQL CPU ${result.postgresCpuMsPerStep.toFixed(2)} ms per step`,
    );
    return result;
  } finally {
    await server.stop();
  }
}

/**
 * Measures the step cost at each of `sizes` finished runs stored (ascending), growing one
 * store from size to size. Answers { sizes: [...], ratio, ... }.
 */
export async function measureHistory({
  sizes,
  runs = 300,
  warmupRuns = WARMUP_RUNS,
  templates = 10,
  parallel = 2,
  database = 'bench_scale',
  log = () => {},
}) {
  const began = performance.now();
  const databaseUrl = await freshDatabase(database);
  const admin = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-admin' });
  await admin.connect();
  let seeder;
  try {
    // The templates: real runs, finished through the API.
    const server = await startBaton({ databaseUrl, env: { BATON_LOG_LEVEL: 'error' } });
    let templateIds;
    try {
      const api = batonApi(server.url);
      await registerLinearWorkflow(api, { name: WORKFLOW, taskType: TASK_TYPE, steps: STEPS });
      ({ ids: templateIds } = await startSequentially(api, WORKFLOW, templates));
      await driveSequentially(api, TASK_TYPE, templates * STEPS);
    } finally {
      await server.stop();
    }
    const largest = Math.max(...sizes);
    seeder = await openHistorySeeder(databaseUrl, {
      templateIds,
      firstStart: Date.now() - 86_400_000 - (largest + 1) * CLONE_SPACING_MS,
      spacingMs: CLONE_SPACING_MS,
      parallel,
      applicationName: 'bench-seed',
    });

    const results = [];
    let nextClone = 0;
    for (const size of [...sizes].sort((a, b) => a - b)) {
      const missing = size - (await storeCounts(admin)).finished;
      let seedSeconds = 0;
      if (missing > 0) {
        log(`growing the history to ${size} finished runs (+${missing})`);
        const seeding = performance.now();
        await seeder.grow(nextClone, nextClone + missing, (added) => {
          if (added < missing) log(`  ${added} runs cloned and vacuumed, ${seconds(seeding).toFixed(0)} s`);
        });
        nextClone += missing;
        seedSeconds = seconds(seeding);
      }
      const analyzing = performance.now();
      await seeder.settle();
      const analyzeSeconds = seconds(analyzing);
      const store = await storeCounts(admin);
      log(
        `${store.finished} finished runs, ${store.tasks} tasks, ${(store.bytes / 2 ** 30).toFixed(2)} GiB ` +
          `(seeded and vacuumed in ${seedSeconds.toFixed(1)} s, analyzed in ${analyzeSeconds.toFixed(1)} s)`,
      );
      const measured = await measureStep(databaseUrl, admin, database, { runs, warmupRuns, log });
      results.push({
        size,
        finishedRuns: store.finished,
        taskRows: store.tasks,
        databaseBytes: store.bytes,
        seedSeconds,
        analyzeSeconds,
        ...measured,
      });
    }
    const [smallest, largestResult] = [results[0], results.at(-1)];
    const ratio = (pick) => pick(largestResult) / pick(smallest);
    return {
      workflow: { steps: STEPS, payload: 'bench/lib/payload.mjs' },
      templates,
      runsPerSize: runs,
      warmupRunsPerSize: warmupRuns,
      sizes: results,
      ratio: {
        stepMean: ratio((r) => r.step.mean),
        stepP50: ratio((r) => r.step.p50),
        serverCpu: ratio((r) => r.serverCpuMsPerStep),
        postgresCpu: ratio((r) => r.postgresCpuMsPerStep),
        cpu: ratio((r) => r.serverCpuMsPerStep + r.postgresCpuMsPerStep),
      },
      seconds: seconds(began),
    };
  } finally {
    await seeder?.close();
    await admin.end();
    await dropDatabase(database);
  }
}
