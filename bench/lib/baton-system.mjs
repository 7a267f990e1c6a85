// Baton in the benchmark: a real server process and workers that talk to it over HTTP exactly as
// Conductor's SDK workers do: one poller per task type asks for as many tasks as it has free
// slots (batch poll, long-polling), each slot runs its task and posts the result with update-v2,
// whose answer is the next task of the same type, run at once without another poll. The legacy
// protocol is what most existing workers do: each result goes to `POST /api/tasks`, whose answer
// carries no task, and the slot goes back to the poller.
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { startBaton } from './baton-server.mjs';
import { CpuMeter } from './cpu-meter.mjs';
import { HandoffRecorder } from './handoff.mjs';
import {
  DEFAULT_BRANCHES,
  PARITY_EXPRESSION,
  branchingRefOf,
  branchingStepsBefore,
  branchingWorkflow,
} from './branching-workflow.mjs';
import { linearWorkflow, stepTaskDef } from './linear-workflow.mjs';
import { jsonClient } from './http-json.mjs';
import { stepPayload } from './payload.mjs';
import { storedBytesMeter } from './stored-bytes.mjs';

const TASK_TYPE = 'bench_step';
const WORKFLOW = 'bench_linear';
const BRANCHING_WORKFLOW = 'bench_branching';
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

/**
 * The branching shape (branching-workflow.mjs) with the main workflow's inputs: each step is fed
 * the run number, its own number and the output of the step before it (the first branch's end
 * for the switch's case, the run's input for the last step, which follows either case).
 */
function benchBranchingWorkflow() {
  return branchingWorkflow({
    name: BRANCHING_WORKFLOW,
    taskType: TASK_TYPE,
    switchScript: PARITY_EXPRESSION,
    inputsOf: (k) => {
      const [before] = branchingStepsBefore(k);
      const from = before === undefined ? undefined : branchingRefOf(before);
      return {
        run: '${workflow.input.run}',
        step: k,
        data: from === undefined ? '${workflow.input.data}' : `\${${from}.output.data}`,
      };
    },
  });
}

/** The workflow a shape runs: 'line' (`steps` in a row, the default) or 'branching'. */
function workflowOf(shape) {
  return shape === 'branching' ? BRANCHING_WORKFLOW : WORKFLOW;
}

export async function register(client, steps, shape = 'line') {
  await client.post('/api/metadata/taskdefs', [stepTaskDef(TASK_TYPE)]);
  await client.post(
    '/api/metadata/workflow?overwrite=true',
    shape === 'branching' ? benchBranchingWorkflow() : benchWorkflow(steps),
  );
}

/**
 * Worker slots for one task type. `onRunDone(run)` is called when a run's last step has been
 * acknowledged.
 */
function startWorkers(client, { slots, steps, before, handoffs, onRunDone, onError, protocol, name }) {
  let busy = 0;
  let stopped = false;
  let wakePoller;
  const workerId = `bench-${process.pid}${name}`;

  async function execute(task) {
    // One slot carries a chain of tasks: update-v2 answers the next one.
    for (let current = task; current && !stopped;) {
      const { run, step } = current.inputData;
      handoffs.started(run, step, before?.(step));
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
      if (step === steps - 1) {
        if (before) handoffs.forget(run, steps);
        onRunDone(run);
      }
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

/** `total` worker slots spread over `nodes`: as even as whole slots allow, the first nodes first. */
export function spreadSlots(total, nodes) {
  return Array.from({ length: nodes }, (_, i) => Math.floor(total / nodes) + (i < total % nodes ? 1 : 0));
}

/**
 * Runs the benchmark against a server, already registered (bench/profile-step.mjs uses it too).
 * `client` may be a list, one client per node of a cluster: the worker slots are spread over
 * them and the starts go to each in turn.
 */
export async function drive(client, { mode, runs, workers, steps, shape = 'line' }, { protocol, meter }) {
  const clients = Array.isArray(client) ? client : [client];
  const handoffs = new HandoffRecorder();
  let completed = 0;
  let failure;
  let finished;
  let runDone = () => {};
  const allDone = new Promise((resolve, reject) => {
    finished = resolve;
    failure = reject;
  });
  const pools = spreadSlots(workers, clients.length).flatMap((slots, i) =>
    slots === 0
      ? []
      : [
          startWorkers(clients[i], {
            slots,
            steps,
            ...(shape === 'branching' && { before: (k) => branchingStepsBefore(k) }),
            protocol,
            handoffs,
            name: clients.length > 1 ? `-${i + 1}` : '',
            onRunDone: (run) => {
              completed++;
              runDone(run);
              if (completed === runs) finished();
            },
            onError: (e) => failure(e),
          }),
        ],
  );
  const timeout = setTimeout(
    () => failure(new Error(`Baton did not finish ${runs} runs in time`)),
    OVERALL_TIMEOUT_MS,
  );
  const start = (run) =>
    clients[run % clients.length].post(`/api/workflow/${workflowOf(shape)}`, {
      input: { run, data: stepPayload(run, -1) },
    });
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
  await Promise.all(pools.map((pool) => pool.stop()));
  return { runsCompleted: completed, steps: completed * steps, seconds, handoffMs: handoffs.samples, cpu };
}

/**
 * One benchmark of Baton: fresh servers on `databaseUrl` (or one on SQLite without it), whose
 * backends are those connected to `pgDatabase`; `protocol` 'update-v2' (default) or 'legacy'.
 * `nodes` servers (default 1, PostgreSQL only) share the database, each its own process, with the
 * workers and starts spread over them; `processes` sets BATON_PROCESSES on each. After the pass,
 * what its runs added to the database is reported per finished step (stored-bytes.mjs).
 */
export async function runBaton(
  options,
  { label, databaseUrl, pgDatabase, env = {}, notes = [], protocol = 'update-v2', nodes = 1, processes = 1 },
) {
  const serverEnv = processes > 1 ? { ...env, BATON_PROCESSES: String(processes) } : env;
  const servers = [];
  const clients = [];
  try {
    // One after another: each migrates on start, and the first creates the schema.
    for (let i = 0; i < nodes; i++) servers.push(await startBaton({ databaseUrl, env: serverEnv }));
    if (processes > 1) await allProcessesListening(servers, processes);
    for (const server of servers)
      clients.push(jsonClient(server.url, { sockets: Math.ceil(options.workers / nodes) + 24 }));
    await register(clients[0], options.steps, options.shape);
    const stored = storedBytesMeter(
      databaseUrl !== undefined ? { databaseUrl } : { sqliteFile: join(servers[0].dataDir, 'baton.db') },
    );
    await stored.before();
    const meter = new CpuMeter({
      processes: servers.map((server) => ({
        name: 'Baton server',
        pid: server.pid,
        children: processes > 1,
      })),
      pgDatabase,
    });
    const result = await drive(clients, options, { protocol, meter });
    const storage = await stored.after(result.steps);
    return {
      label,
      ...result,
      storage,
      processes: serverProcesses(servers, processes),
      notes: [
        ...(options.shape === 'branching'
          ? [
              `each run: a step, a FORK_JOIN of ${DEFAULT_BRANCHES} branches of two steps and its JOIN, a SWITCH on the run's parity (a JavaScript expression) with one step in each case, a last step: ${options.steps} worker steps`,
            ]
          : []),
        protocol === 'legacy'
          ? `workers poll over HTTP (batch poll, ${options.workers} slots) and post results with POST /api/tasks (the legacy path: no next task in the answer, every task comes from a poll)`
          : `workers poll over HTTP (batch poll, ${options.workers} slots) and post results with update-v2`,
        ...(nodes > 1
          ? [
              `${nodes} Baton server processes on one database, the worker slots (${spreadSlots(options.workers, nodes).join(' + ')}) and the starts spread over them`,
            ]
          : []),
        ...(processes > 1
          ? [`BATON_PROCESSES=${processes}: a primary and ${processes} node processes sharing one port`]
          : []),
        ...notes,
      ],
    };
  } finally {
    for (const c of clients) c.close();
    await Promise.all(servers.map((server) => server.stop()));
  }
}

/** Waits until every server's primary has forked its node processes (the first may answer alone). */
async function allProcessesListening(servers, processes) {
  const deadline = Date.now() + 60_000;
  for (const server of servers) {
    while (server.childPids().length < processes) {
      if (Date.now() > deadline)
        throw new Error(`Baton did not fork ${processes} node processes within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  // Forked is not yet listening: ask until every process has answered /health.
  for (const server of servers) {
    const seen = new Set();
    while (seen.size < processes) {
      if (Date.now() > deadline) throw new Error(`not all ${processes} node processes answered within 60 s`);
      const body = await healthOnNewConnection(server.url);
      if (body?.components?.node?.process !== undefined) seen.add(body.components.node.process);
    }
  }
}

/** GET /health on a connection of its own, so the port may hand it to another process. */
function healthOnNewConnection(url) {
  return new Promise((resolve) => {
    const req = http.get(`${url}/health`, { agent: false, timeout: 5_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        try {
          resolve(JSON.parse(text));
        } catch {
          resolve(undefined);
        }
      });
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
  });
}

/** Peak RSS of each server process (and of each node process a primary forked). */
function serverProcesses(servers, processes) {
  const out = [];
  for (const [i, server] of servers.entries()) {
    const name = servers.length > 1 ? `Baton server ${i + 1}` : 'Baton server';
    if (processes > 1) {
      server.childPids(); // refreshes the node processes' peaks
      out.push({ name: `${name} (primary)`, peakRssBytes: server.peakRss() });
      let k = 0;
      for (const peak of server.childPeaks.values())
        out.push({ name: `${name} process ${++k}`, peakRssBytes: peak });
    } else out.push({ name, peakRssBytes: server.peakRss() });
  }
  return out;
}
