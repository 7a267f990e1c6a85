// pg-boss 10.4.2: a run is a chain of jobs in one queue, each step's handler sending the next
// step's job. pg-boss 10 has no LISTEN/NOTIFY: a worker that finds nothing, or finishes its batch
// early, sleeps until its next poll, so hand-offs are bound by the polling interval (at its
// minimum here). That is the peer as it ships, and it is measured as such.
import { performance } from 'node:perf_hooks';

import { Completions, bounded, checkOptions, driveChains } from '../lib/completions.mjs';
import { HandoffRecorder } from '../lib/handoff.mjs';
import { stepPayload } from '../lib/payload.mjs';
import { CpuMeter } from '../lib/cpu-meter.mjs';
import { databaseName, dropDatabase, freshDatabase } from '../lib/pg-admin.mjs';
import { storedBytesMeter } from '../lib/stored-bytes.mjs';

const LABEL = 'pg-boss 10.4.2';
const DATABASE = 'bench_pgboss';
const QUEUE = 'bench_step';
/** pg-boss's minimum: it refuses anything shorter. */
const POLLING_INTERVAL_SECONDS = 0.5;
/**
 * Jobs one worker fetches per poll. Each worker sleeps out the rest of its polling interval
 * after a batch, so a batch must hold enough work to keep it busy that long.
 */
const BATCH_SIZE = 100;
/** First steps are inserted in bulk calls of this many jobs, several at once. */
const ENQUEUE_CHUNK = 100;

export default async function run(options) {
  const { mode, runs, workers, steps } = checkOptions(options, LABEL);
  const { default: PgBoss } = await import('pg-boss');

  const completions = new Completions(LABEL, runs);
  const handoffs = new HandoffRecorder();
  const url = await freshDatabase(DATABASE);
  // One connection per worker for the sends its handler makes, and room for pg-boss's own
  // fetches, completions and maintenance.
  const boss = new PgBoss({ connectionString: url, max: workers + 4 });
  boss.on('error', (error) =>
    completions.fail(
      new Error(`${LABEL}: ${error?.message ?? error}${error?.queue ? ` (queue ${error.queue})` : ''}`),
    ),
  );
  let started = false;
  let measured = false;
  try {
    // Installs pg-boss's schema: before the clock.
    await boss.start();
    started = true;
    await boss.createQueue(QUEUE);

    // pg-boss hands a worker a batch; the worker's handler takes its jobs one at a time, so
    // `workers` workers run at most `workers` steps at once, like every other system.
    const runStep = async ({ run: r, step }) => {
      handoffs.started(r, step);
      // Done: from here on the hand-off is the system's (the send, the fetch, the next start).
      handoffs.ended(r, step);
      if (step + 1 < steps) await boss.send(QUEUE, stepPayload(r, step + 1));
      completions.steps += 1;
      if (step + 1 === steps) completions.runDone(r);
    };
    const handler = async (jobs) => {
      for (const job of jobs) {
        try {
          await runStep(job.data);
        } catch (error) {
          // pg-boss would retry the batch later: the benchmark stops at once instead.
          completions.fail(
            new Error(
              `${LABEL}: job ${job.id} (run ${job.data.run}, step ${job.data.step}) failed: ${error.message}`,
            ),
          );
          throw error;
        }
      }
    };
    for (let w = 0; w < workers; w++)
      await boss.work(
        QUEUE,
        { batchSize: BATCH_SIZE, pollingIntervalSeconds: POLLING_INTERVAL_SECONDS },
        handler,
      );

    // pg-boss marks a batch completed after its handler returns, without waiting: the clock
    // stops only when every job is recorded as completed.
    const db = boss.getDb();
    const drained = async () => {
      const { rows } = await db.executeSql(
        `select count(*)::int as n from pgboss.job where name = $1 and state = 'completed'`,
        [QUEUE],
      );
      return rows[0].n === runs * steps;
    };

    const stored = storedBytesMeter({ databaseUrl: url });
    await stored.before();
    const meter = await new CpuMeter({ pgDatabase: databaseName(DATABASE) }).start();
    const clock = performance.now();
    await driveChains(completions, {
      mode,
      runs,
      chunk: ENQUEUE_CHUNK,
      addMany: (batch) => boss.insert(batch.map((r) => ({ name: QUEUE, data: stepPayload(r, 0) }))),
      addOne: (r) => boss.send(QUEUE, stepPayload(r, 0)),
    });
    await completions.until(drained, 'every job to be recorded completed');
    const seconds = (performance.now() - clock) / 1000;
    const cpu = await meter.stop();
    // Completed jobs stay in pgboss.job until its retention ends: that is its history.
    const storage = await stored.after(completions.steps);
    measured = true;

    if (completions.steps !== runs * steps)
      throw new Error(`${LABEL}: ${completions.steps} steps ran, expected ${runs * steps}`);
    return {
      label: LABEL,
      runsCompleted: completions.runsCompleted,
      steps: completions.steps,
      seconds,
      handoffMs: handoffs.samples,
      cpu,
      storage,
      processes: [],
      notes: [
        `one queue (standard policy), each step's handler sends the next step's job; ${workers} work() workers, ` +
          `each handling its batch one job at a time; pool of ${workers + 4} connections`,
        `polling every ${POLLING_INTERVAL_SECONDS} s (pg-boss's minimum), batchSize ${BATCH_SIZE}; ` +
          'pg-boss 10 has no LISTEN/NOTIFY, so an idle worker finds a new job only at its next poll',
        mode === 'throughput'
          ? `first steps inserted with insert() in batches of ${ENQUEUE_CHUNK}, all at once, after the workers started`
          : 'one run at a time, its first step sent with send()',
        'clock stops once every job is recorded completed',
      ],
    };
  } finally {
    // After a failure there is nothing worth waiting for in the other workers' batches.
    const errors = [];
    if (started)
      await bounded(
        () => boss.stop({ graceful: measured, wait: true, timeout: 10_000 }),
        30_000,
        `${LABEL} stop`,
      ).catch((e) => errors.push(e));
    await dropDatabase(DATABASE).catch((e) => errors.push(e));
    for (const error of errors) console.error(`[${LABEL}] cleanup: ${error.message}`);
  }
}
