// graphile-worker 0.17.3: a run is a chain of jobs of one task, each step's handler adding the
// next step's job through its helpers, as users chain jobs. Measured at the configuration of
// graphile-worker's own performance page (local queue, batched completion, LISTEN/NOTIFY).
import { performance } from 'node:perf_hooks';

import pg from 'pg';

import { Completions, bounded, checkOptions, driveChains } from '../lib/completions.mjs';
import { HandoffRecorder } from '../lib/handoff.mjs';
import { stepPayload } from '../lib/payload.mjs';
import { CpuMeter } from '../lib/cpu-meter.mjs';
import { databaseName, dropDatabase, freshDatabase } from '../lib/pg-admin.mjs';

const LABEL = 'graphile-worker 0.17.3';
const DATABASE = 'bench_graphile';
const TASK = 'bench_step';
/** The local queue size of graphile-worker's performance page. */
const LOCAL_QUEUE_SIZE = 500;
/** First steps are added in bulk calls of this many jobs, several at once. */
const ENQUEUE_CHUNK = 100;

export default async function run(options) {
  const { mode, runs, workers, steps } = checkOptions(options, LABEL);
  // Read once when graphile-worker loads: without it every job logs a line, which its own
  // performance test also turns off.
  process.env.NO_LOG_SUCCESS = '1';
  const { Logger, makeWorkerUtils, run: runWorker, runMigrations } = await import('graphile-worker');

  const completions = new Completions(LABEL, runs);
  const handoffs = new HandoffRecorder();
  const logger = new Logger(() => (level, message) => {
    // stdout carries only the result line; warnings and errors still reach the operator.
    if (level === 'error' || level === 'warning') console.error(`[${LABEL}] ${level}: ${message}`);
  });

  const url = await freshDatabase(DATABASE);
  // graphile-worker advises concurrency + 2 connections when handlers do not use the pool; these
  // add their next job through it, so it gets two more.
  const pool = new pg.Pool({ connectionString: url, max: workers + 4 });
  pool.on('error', (error) => completions.fail(error));
  pool.on('connect', (client) => client.on('error', (error) => completions.fail(error)));
  let runner;
  let utils;
  try {
    const preset = {
      worker: {
        localQueue: { size: LOCAL_QUEUE_SIZE },
        completeJobBatchDelay: 0,
        failJobBatchDelay: 0,
      },
    };
    const shared = { pgPool: pool, logger, preset };
    await runMigrations(shared);
    utils = await makeWorkerUtils(shared);

    const taskList = {
      [TASK]: async (payload, helpers) => {
        const { run: r, step } = payload;
        handoffs.started(r, step);
        // Done: from here on the hand-off is the system's (the add, the fetch, the next start).
        handoffs.ended(r, step);
        if (step + 1 < steps) await helpers.addJob(TASK, stepPayload(r, step + 1));
        completions.steps += 1;
        if (step + 1 === steps) completions.runDone(r);
      },
    };
    runner = await runWorker({ ...shared, concurrency: workers, noHandleSignals: true, taskList });
    // A failed step would otherwise be retried with backoff for hours.
    runner.events.on('job:error', ({ job, error }) =>
      completions.fail(new Error(`${LABEL}: job ${job.id} failed: ${error?.message ?? error}`)),
    );
    runner.events.on('pool:fatalError', ({ error }) =>
      completions.fail(new Error(`${LABEL}: worker pool failed: ${error?.message ?? error}`)),
    );
    runner.promise.catch((error) => completions.fail(error));

    // Completion is batched after the handler returns: the clock stops only when the last
    // completion is committed, i.e. when no job is left in the table.
    const drained = async () => {
      const { rows } = await pool.query('select count(*)::int as n from graphile_worker._private_jobs');
      return rows[0].n === 0;
    };

    const meter = await new CpuMeter({ pgDatabase: databaseName(DATABASE) }).start();
    const started = performance.now();
    await driveChains(completions, {
      mode,
      runs,
      chunk: ENQUEUE_CHUNK,
      addMany: (batch) => utils.addJobs(batch.map((r) => ({ identifier: TASK, payload: stepPayload(r, 0) }))),
      addOne: (r) => utils.addJob(TASK, stepPayload(r, 0)),
    });
    await completions.until(drained, 'the last completions to be committed');
    const seconds = (performance.now() - started) / 1000;
    const cpu = await meter.stop();

    if (completions.steps !== runs * steps)
      throw new Error(`${LABEL}: ${completions.steps} steps ran, expected ${runs * steps}`);
    return {
      label: LABEL,
      runsCompleted: completions.runsCompleted,
      steps: completions.steps,
      seconds,
      handoffMs: handoffs.samples,
      cpu,
      processes: [],
      notes: [
        `one task, each step's handler adds the next step's job with helpers.addJob; concurrency ${workers}, ` +
          `pool of ${workers + 4} connections, LISTEN/NOTIFY for new jobs`,
        `batching as on graphile-worker's performance page: localQueue.size ${LOCAL_QUEUE_SIZE}, ` +
          'completeJobBatchDelay 0, failJobBatchDelay 0; NO_LOG_SUCCESS set',
        mode === 'throughput'
          ? `first steps added with addJobs in batches of ${ENQUEUE_CHUNK}, all at once, after the workers started`
          : 'one run at a time, its first step added with addJob',
        'clock stops once the last completion is committed (no job left in the table)',
      ],
    };
  } finally {
    const errors = [];
    if (runner)
      await bounded(() => runner.stop(), 30_000, `${LABEL} runner stop`).catch((e) => errors.push(e));
    if (utils)
      await bounded(() => utils.release(), 10_000, `${LABEL} utils release`).catch((e) => errors.push(e));
    await bounded(() => pool.end(), 10_000, `${LABEL} pool end`).catch((e) => errors.push(e));
    await dropDatabase(DATABASE).catch((e) => errors.push(e));
    for (const error of errors) console.error(`[${LABEL}] cleanup: ${error.message}`);
  }
}
