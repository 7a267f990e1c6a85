// BullMQ on the local Redis: a run is a chain of jobs on one queue, each step's processor adding
// the next step, which is how BullMQ users build a sequence when they do not need a flow's
// parent/child results (a FlowProducer runs children before their parent, so a chain is the
// natural shape of a linear run).
import { performance } from 'node:perf_hooks';

import { Queue, Worker } from 'bullmq';

import { CpuMeter, redisServerPid } from '../lib/cpu-meter.mjs';
import { withDeadline } from '../lib/deadline.mjs';
import { HandoffRecorder } from '../lib/handoff.mjs';
import { packageVersion } from '../lib/package-version.mjs';
import { stepPayload } from '../lib/payload.mjs';
import { REDIS_URL } from '../lib/pg-admin.mjs';

const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
// Closing must not be able to hang the benchmark either, nor leave the queue's keys behind
// unnoticed.
const CLEANUP_TIMEOUT_MS = 30 * 1000;

function connectionOptions() {
  const url = new URL(REDIS_URL);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.pathname.length > 1 ? { db: Number(url.pathname.slice(1)) } : {}),
    // BullMQ requires this of a Worker's connections: a blocking fetch must not be cut short.
    maxRetriesPerRequest: null,
  };
}

export default async function run({ mode, runs, workers, steps, timeoutMs = DEFAULT_TIMEOUT_MS }) {
  const latency = mode === 'latency';
  const queueName = `bench-steps-${Date.now()}`;
  const connection = connectionOptions();
  const handoffs = new HandoffRecorder();
  let stepsDone = 0;
  let runsDone = 0;
  let lastRunDoneAt = 0;

  // Completion is watched through the Worker's own events; a failed job or a worker error
  // ends the benchmark with that error rather than waiting for a run that will never finish.
  let waiter;
  let failure;
  const fail = (error) => {
    failure ??= error;
    waiter?.reject(failure);
  };
  const untilRuns = (count) =>
    new Promise((resolve, reject) => {
      if (failure) return reject(failure);
      if (runsDone >= count) return resolve();
      waiter = { count, resolve, reject };
    });

  // Completed jobs are removed, as BullMQ's production guide advises, so that Redis does not
  // grow by one hash per step.
  const queue = new Queue(queueName, {
    connection,
    defaultJobOptions: { removeOnComplete: true },
  });
  let worker;
  try {
    await queue.waitUntilReady();
    const redisMajor = String(queue.backend.redisVersion ?? '').split('.')[0] || '?';

    worker = new Worker(
      queueName,
      async (job) => {
        const { run, step } = job.data;
        handoffs.started(run, step);
        const output = stepPayload(run, step);
        // Done: from here on the hand-off is the system's (the add, the fetch, the next start).
        handoffs.ended(run, step);
        if (step < steps - 1) {
          await queue.add('step', { run, step: step + 1, payload: output });
        }
        return output;
      },
      { connection, concurrency: latency ? 1 : workers },
    );
    worker.on('completed', (job) => {
      stepsDone += 1;
      if (job.data.step !== steps - 1) return;
      runsDone += 1;
      lastRunDoneAt = performance.now();
      if (waiter && runsDone >= waiter.count) {
        const { resolve } = waiter;
        waiter = undefined;
        resolve();
      }
    });
    worker.on('failed', (job, error) =>
      fail(
        new Error(
          `BullMQ job ${job?.id} (run ${job?.data?.run}, step ${job?.data?.step}) failed: ${error?.message}`,
        ),
      ),
    );
    worker.on('error', (error) => fail(new Error(`BullMQ worker error: ${error?.message}`)));
    await worker.waitUntilReady();

    const firstStep = (run) => ({ name: 'step', data: { run, step: 0, payload: stepPayload(run, 0) } });
    const meter = await new CpuMeter({ redisPid: await redisServerPid(REDIS_URL) }).start();
    const started = performance.now();
    const measured = async () => {
      if (latency) {
        for (let r = 0; r < runs; r++) {
          await queue.add(firstStep(r).name, firstStep(r).data);
          await untilRuns(r + 1);
        }
      } else {
        await queue.addBulk(Array.from({ length: runs }, (_, r) => firstStep(r)));
        await untilRuns(runs);
      }
    };
    await withDeadline(measured(), timeoutMs, `BullMQ ${mode} (${runs} runs)`);
    const cpu = await meter.stop();

    return {
      label: `BullMQ ${packageVersion('bullmq')} (Redis ${redisMajor})`,
      runsCompleted: runsDone,
      steps: stepsDone,
      seconds: (lastRunDoneAt - started) / 1000,
      handoffMs: handoffs.samples,
      cpu,
      processes: [],
      notes: [
        latency
          ? 'one Worker, concurrency 1, one run at a time'
          : `one Worker with concurrency ${workers} (BullMQ's documented way to run jobs concurrently in one process; more Worker instances are for more processes or machines)`,
        "a run is a chain on one queue: step k's processor adds step k+1, then returns",
        latency
          ? 'each first step added with queue.add once the previous run has completed'
          : `all ${runs} first steps added with one addBulk once the clock starts`,
        'completed jobs removed (removeOnComplete), as BullMQ advises for production',
        'hand-off: from the next step added (queue.add resolved) to its processor starting',
      ],
    };
  } finally {
    await withDeadline(
      (async () => {
        await worker?.close();
        await queue.obliterate({ force: true });
        await queue.close();
      })(),
      CLEANUP_TIMEOUT_MS,
      `BullMQ cleanup of queue ${queueName}`,
    );
  }
}
