// DBOS Transact on a fresh PostgreSQL database: a run is one durable workflow whose steps are
// checkpointed with DBOS.runStep, in the process that starts them, as DBOS applications run.
import { performance } from 'node:perf_hooks';

import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';

import { DEFAULT_BRANCHES, branchingStepsBefore } from '../lib/branching-workflow.mjs';
import { withDeadline } from '../lib/deadline.mjs';
import { HandoffRecorder } from '../lib/handoff.mjs';
import { packageVersion } from '../lib/package-version.mjs';
import { stepPayload } from '../lib/payload.mjs';
import { CpuMeter } from '../lib/cpu-meter.mjs';
import { databaseName, dropDatabase, freshDatabase } from '../lib/pg-admin.mjs';
import { storedBytesMeter } from '../lib/stored-bytes.mjs';

// DBOS 5 keeps everything in its system database (steps here touch no application tables),
// so this one database is all it needs.
const DATABASE = 'bench_dbos';
const QUEUE = 'bench-runs';
const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
const CLEANUP_TIMEOUT_MS = 30 * 1000;

// Throughput mode runs workflows through a queue with workerConcurrency = workers, DBOS's
// own way to bound how many run at once. The queue is polled, by default once a second, which
// starts at most `workers` runs a second when a run takes a few ms; its documented
// minPollingIntervalMs is set low so that the poll does not stand in for the engine's speed
// (with it, the queue matches W callers awaiting runs directly: BENCH_DBOS_DISPATCH=direct).
const DISPATCH = process.env.BENCH_DBOS_DISPATCH ?? 'queue';
const QUEUE_POLL_MS = Number(process.env.BENCH_DBOS_QUEUE_POLL_MS ?? 10);

async function postgresMajor(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SHOW server_version');
    return rows[0].server_version.split('.')[0];
  } finally {
    await client.end();
  }
}

export default async function run({
  mode,
  runs,
  workers,
  steps,
  shape = 'line',
  timeoutMs = DEFAULT_TIMEOUT_MS,
}) {
  const latency = mode === 'latency';
  const url = await freshDatabase(DATABASE);
  const handoffs = new HandoffRecorder();
  let stepsDone = 0;
  let launched = false;
  try {
    const pgMajor = await postgresMajor(url);

    // A step is done when its function returns: the hand-off then includes DBOS's checkpoint of
    // its output, as every other system's includes telling the system the step is done.
    const branching = shape === 'branching';
    const step = async (run, k) => {
      handoffs.started(run, k, branching ? branchingStepsBefore(k) : undefined);
      const output = stepPayload(run, k);
      handoffs.ended(run, k);
      return output;
    };
    const checkpointed = async (run, k, name) => {
      const output = await DBOS.runStep(() => step(run, k), { name });
      stepsDone += 1;
      return output;
    };
    const linearRun = async (run) => {
      let output;
      for (let k = 0; k < steps; k++) output = await checkpointed(run, k, `step-${k}`);
      return output;
    };
    // The branching shape (branching-workflow.mjs) as DBOS code: the fork is Promise.all over
    // the branches, the switch an if. Steps that run at once must start in the same order on every
    // execution of the workflow (DBOS's rule for concurrent steps), so the branches go in two
    // rounds, every first step and then every second one, each round started in branch order.
    const branchingRun = async (run) => {
      const branches = Array.from({ length: DEFAULT_BRANCHES }, (_, b) => b);
      const caseStep = 1 + 2 * DEFAULT_BRANCHES;
      await checkpointed(run, 0, 'first');
      await Promise.all(branches.map((b) => checkpointed(run, 1 + 2 * b, `b${b}a`)));
      await Promise.all(branches.map((b) => checkpointed(run, 2 + 2 * b, `b${b}b`)));
      await checkpointed(run, caseStep, run % 2 === 0 ? 'even' : 'odd');
      const output = await checkpointed(run, caseStep + 1, 'last');
      handoffs.forget(run, steps);
      return output;
    };
    const benchRun = DBOS.registerWorkflow(branching ? branchingRun : linearRun, { name: 'benchRun' });

    DBOS.setConfig({ name: 'baton-bench', systemDatabaseUrl: url, logLevel: 'error' });
    await DBOS.launch();
    launched = true;
    if (DISPATCH !== 'queue' && DISPATCH !== 'direct') {
      throw new Error(`BENCH_DBOS_DISPATCH must be 'queue' or 'direct', not '${DISPATCH}'`);
    }
    if (!latency && DISPATCH === 'queue') {
      await DBOS.registerQueue(QUEUE, { workerConcurrency: workers, minPollingIntervalMs: QUEUE_POLL_MS });
    }

    const check = (run, output) => {
      if (output?.run !== run || output?.step !== steps - 1) {
        throw new Error(`DBOS run ${run} answered ${JSON.stringify(output)}, not its last step's output`);
      }
    };
    let runsDone = 0;
    const measured = async () => {
      if (latency) {
        for (let r = 0; r < runs; r++) {
          check(r, await benchRun(r));
          runsDone += 1;
        }
      } else if (DISPATCH === 'queue') {
        const handles = await Promise.all(
          Array.from({ length: runs }, (_, r) => DBOS.startWorkflow(benchRun, { queueName: QUEUE })(r)),
        );
        for (let r = 0; r < runs; r++) {
          check(r, await handles[r].getResult({ pollingIntervalMs: QUEUE_POLL_MS }));
          runsDone += 1;
        }
      } else {
        let next = 0;
        const lane = async () => {
          while (next < runs) {
            const r = next++;
            check(r, await benchRun(r));
            runsDone += 1;
          }
        };
        await Promise.all(Array.from({ length: workers }, lane));
      }
    };
    const stored = storedBytesMeter({ databaseUrl: url });
    await stored.before();
    const meter = await new CpuMeter({ pgDatabase: databaseName(DATABASE) }).start();
    const started = performance.now();
    await withDeadline(measured(), timeoutMs, `DBOS ${mode} (${runs} runs)`);
    const seconds = (performance.now() - started) / 1000;
    const cpu = await meter.stop();
    const storage = await stored.after(stepsDone);

    return {
      label: `DBOS Transact ${packageVersion('@dbos-inc/dbos-sdk')} (PostgreSQL ${pgMajor})`,
      runsCompleted: runsDone,
      steps: stepsDone,
      seconds,
      handoffMs: handoffs.samples,
      cpu,
      storage,
      processes: [],
      notes: [
        latency
          ? 'one workflow at a time, called directly (a queue would only add its poll before each run)'
          : DISPATCH === 'queue'
            ? `runs enqueued on a WorkflowQueue with workerConcurrency ${workers} and minPollingIntervalMs ${QUEUE_POLL_MS} (default 1000 ms: about ${workers} runs/s, one batch per poll); results awaited with getResult polling every ${QUEUE_POLL_MS} ms`
            : `${workers} callers each awaiting one workflow at a time, no queue`,
        branching
          ? `a run is one workflow of ${steps} DBOS.runStep steps, each checkpointed in the system database (default pool of 10 connections): a step, ${DEFAULT_BRANCHES} branches of two steps under Promise.all (every branch's first step, then every second one), an if on the run's parity choosing one of two steps, a last step`
          : `a run is one workflow of ${steps} DBOS.runStep steps, each checkpointed in the system database (default pool of 10 connections)`,
        'hand-off: from DBOS.runStep returning (step checkpointed) to the next step function starting',
      ],
    };
  } finally {
    await withDeadline(
      (async () => {
        if (launched) await DBOS.shutdown();
        await dropDatabase(DATABASE);
      })(),
      CLEANUP_TIMEOUT_MS,
      `DBOS shutdown and drop of ${DATABASE}`,
    );
  }
}
