// Baton in the benchmark: a real server process and workers that talk to it over HTTP exactly as
// Conductor's SDK workers do: one poller per task type asks for as many tasks as it has free
// slots (batch poll, long-polling), each slot runs its task and posts the result with update-v2,
// whose answer is the next task of the same type, run at once without another poll. The legacy
// protocol is what most existing workers do: each result goes to `POST /api/tasks`, whose answer
// carries no task, and the slot goes back to the poller.
import { performance } from 'node:perf_hooks';

import { startBaton } from './baton-server.mjs';
import { CpuMeter } from './cpu-meter.mjs';
import { HandoffRecorder } from './handoff.mjs';
import { linearWorkflow, stepTaskDef } from './linear-workflow.mjs';
import { jsonClient } from './http-json.mjs';
import { stepPayload } from './payload.mjs';

const TASK_TYPE = 'bench_step';
const WORKFLOW = 'bench_linear';
const OVERALL_TIMEOUT_MS = 10 * 60_000;

/** The main benchmark's workflow: each step is fed the run number and the previous step's output. */
function benchWorkflow(steps) {
  return linearWorkflow({
    name: WORKFLOW,
    taskType: TASK_TYPE,
    steps,
    inputsOf: (k) => ({
      run: '${workflow.input.run}',
      step: k,
      data: k === 0 ? '${workflow.input.data}' : `\${s${k - 1}.output.data}`,
    }),
  });
}

export async function register(client, steps) {
  await client.post('/api/metadata/taskdefs', [stepTaskDef(TASK_TYPE)]);
  await client.post('/api/metadata/workflow?overwrite=true', benchWorkflow(steps));
}

/**
 * Worker slots for one task type. `onRunDone(run)` is called when a run's last step has been
 * acknowledged.
 */
function startWorkers(client, { slots, steps, handoffs, onRunDone, onError, protocol }) {
  let busy = 0;
  let stopped = false;
  let wakePoller;
  const workerId = `bench-${process.pid}`;

  async function execute(task) {
    // One slot carries a chain of tasks: update-v2 answers the next one.
    for (let current = task; current && !stopped;) {
      const { run, step } = current.inputData;
      handoffs.started(run, step);
      const outputData = { data: stepPayload(run, step) };
      handoffs.ended(run, step);
      const result = {
        taskId: current.taskId,
        workflowInstanceId: current.workflowInstanceId,
        workerId,
        status: 'COMPLETED',
        outputData,
      };
      const res = await client.post(protocol === 'legacy' ? '/api/tasks' : '/api/tasks/update-v2', result);
      if (step === steps - 1) onRunDone(run);
      current = protocol !== 'legacy' && res.status === 200 ? res.body : undefined;
    }
  }

  async function pollLoop() {
    while (!stopped) {
      const free = slots - busy;
      if (free <= 0) {
        await new Promise((resolve) => (wakePoller = resolve));
        continue;
      }
      const res = await client.get(
        `/api/tasks/poll/batch/${TASK_TYPE}?count=${free}&timeout=200&workerid=${workerId}`,
      );
      for (const task of res.body) {
        busy++;
        execute(task)
          .catch(onError)
          .finally(() => {
            busy--;
            wakePoller?.();
            wakePoller = undefined;
          });
      }
    }
  }
  const done = pollLoop().catch(onError);
  return {
    async stop() {
      stopped = true;
      wakePoller?.();
      await done;
    },
  };
}

/** Runs the benchmark against a server at `url`, already registered (bench/profile-step.mjs uses it too). */
export async function drive(client, { mode, runs, workers, steps }, { protocol, meter }) {
  const handoffs = new HandoffRecorder();
  let completed = 0;
  let failure;
  let finished;
  let runDone = () => {};
  const allDone = new Promise((resolve, reject) => {
    finished = resolve;
    failure = reject;
  });
  const pool = startWorkers(client, {
    slots: workers,
    steps,
    protocol,
    handoffs,
    onRunDone: (run) => {
      completed++;
      runDone(run);
      if (completed === runs) finished();
    },
    onError: (e) => failure(e),
  });
  const timeout = setTimeout(
    () => failure(new Error(`Baton did not finish ${runs} runs in time`)),
    OVERALL_TIMEOUT_MS,
  );
  const start = (run) =>
    client.post(`/api/workflow/${WORKFLOW}`, { input: { run, data: stepPayload(run, -1) } });
  await meter.start();
  const t0 = performance.now();
  if (mode === 'latency') {
    for (let run = 0; run < runs; run++) {
      const done = new Promise((resolve) => (runDone = resolve));
      await start(run);
      await Promise.race([done, allDone]);
    }
  } else {
    // Starts go in with bounded concurrency while the workers already run, as in production.
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < runs) await start(next++);
      }),
    );
  }
  await allDone;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = await meter.stop();
  clearTimeout(timeout);
  await pool.stop();
  return { runsCompleted: completed, steps: completed * steps, seconds, handoffMs: handoffs.samples, cpu };
}

/**
 * One benchmark of Baton: a fresh server on `databaseUrl` (or SQLite without it), whose
 * backends are those connected to `pgDatabase`; `protocol` 'update-v2' (default) or 'legacy'.
 */
export async function runBaton(
  options,
  { label, databaseUrl, pgDatabase, env, notes = [], protocol = 'update-v2' },
) {
  const server = await startBaton({ databaseUrl, env });
  const client = jsonClient(server.url, { sockets: options.workers + 24 });
  try {
    await register(client, options.steps);
    const meter = new CpuMeter({ processes: [{ name: 'Baton server', pid: server.pid }], pgDatabase });
    const result = await drive(client, options, { protocol, meter });
    return {
      label,
      ...result,
      processes: [{ name: 'Baton server', peakRssBytes: server.peakRss() }],
      notes: [
        protocol === 'legacy'
          ? `workers poll over HTTP (batch poll, ${options.workers} slots) and post results with POST /api/tasks (the legacy path: no next task in the answer, every task comes from a poll)`
          : `workers poll over HTTP (batch poll, ${options.workers} slots) and post results with update-v2`,
        ...notes,
      ],
    };
  } finally {
    client.close();
    await server.stop();
  }
}
