#!/usr/bin/env node
// Baton under a workflow that branches: each run is a SIMPLE step, a FORK_JOIN of `branches`
// branches of two SIMPLE steps each and its JOIN, a SWITCH on the run number (odd and even runs
// take different cases, each one SIMPLE step) and a last SIMPLE step; the same workers as the
// main bench (batch poll, update-v2, 16 slots) serve every task. Beside it, the linear workflow
// of the same number of worker steps, in the same server, so the two shapes compare in one run.
//   node bench/shapes.mjs [--store sqlite|postgres] [--runs 1000] [--branches 4] [--workers 16]
//     [--only shape_branching|shape_linear] [--cpu-prof DIR] [--nodes N] [--node-domains]
//     [--switch expression|function|calls]
// (--cpu-prof: the server's V8 CPU profile, summarised over each pass, as profile-step.mjs does;
// --nodes: PostgreSQL only, N servers on the one database, the worker slots and the starts spread
// over them as in the main bench's baton-postgres-N-nodes, so one run's branches reach several;
// --node-domains: each node's runs started in a task domain of their own that only that node's
// workers poll, so every step of a run reaches the node that started it: what a hand-out that kept
// a run on one node could gain at most)
// --switch function: the switch's script written as Conductor's INLINE tasks usually are, a
// function called at once (`(function () { if (…) return 'even'; return 'odd'; })()`); --switch
// calls: such a function that calls built-ins (`Math.abs`, a string's `toLowerCase`).
// Prints steps/s, CPU per step of the server (and PostgreSQL's backends), and checks that every
// run ended COMPLETED with the outputs its tasks gave. Run `npx tsc -b` first.
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { startBaton } from './lib/baton-server.mjs';
import { branchingStepCount, branchingWorkflow } from './lib/branching-workflow.mjs';
import { CpuMeter } from './lib/cpu-meter.mjs';
import { spreadSlots } from './lib/baton-system.mjs';
import { jsonClient } from './lib/http-json.mjs';
import { dumpCounters, profileSummary } from './lib/profile-run.mjs';
import { databaseName, dropDatabase, freshDatabase } from './lib/pg-admin.mjs';
import { stepPayload } from './lib/payload.mjs';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    runs: { type: 'string', default: '1000' },
    branches: { type: 'string', default: '4' },
    workers: { type: 'string', default: '16' },
    only: { type: 'string' },
    'cpu-prof': { type: 'string' },
    nodes: { type: 'string', default: '1' },
    'node-domains': { type: 'boolean', default: false },
    switch: { type: 'string', default: 'expression' },
    fanout: { type: 'string' },
  },
});
const PROF_DIR = values['cpu-prof'];
const STATS_FILE = join(tmpdir(), `baton-shapes-stats-${process.pid}`);
const RUNS = Number(values.runs);
const BRANCHES = Number(values.branches);
const WORKERS = Number(values.workers);
const NODES = Number(values.nodes);
const FANOUT = values.fanout === undefined ? undefined : Number(values.fanout);
if (NODES > 1 && values.store !== 'postgres') throw new Error('--nodes above 1 needs --store postgres');
const NODE_DOMAINS = values['node-domains'];
if (NODE_DOMAINS && NODES < 2) throw new Error('--node-domains needs --nodes 2 or more');
if (NODES > 1 && values['cpu-prof']) throw new Error('--cpu-prof profiles one node: leave out --nodes');
const TASK_TYPE = 'shape_step';
const SWITCH_SCRIPTS = {
  expression: '$.run % 2 === 0 ? "even" : "odd"',
  function: "(function () { if ($.run % 2 === 0) { return 'even'; } return 'odd'; })()",
  calls:
    "(function () { var parity = Math.abs($.run % 2) === 0 ? 'EVEN' : 'ODD'; return parity.toLowerCase(); })()",
};
const SWITCH_SCRIPT = SWITCH_SCRIPTS[values.switch];
if (SWITCH_SCRIPT === undefined) throw new Error('--switch is expression, function or calls');
const simple = (ref) => ({
  name: TASK_TYPE,
  taskReferenceName: ref,
  type: 'SIMPLE',
  inputParameters: { run: '${workflow.input.run}', data: '${workflow.input.data}' },
});

/** The branching workflow (branching-workflow.mjs) and how many worker steps each of its runs takes. */
function branching() {
  return {
    steps: branchingStepCount(BRANCHES),
    definition: branchingWorkflow({
      name: 'shape_branching',
      taskType: TASK_TYPE,
      switchScript: SWITCH_SCRIPT,
      branches: BRANCHES,
      inputsOf: (_k, ref) => ({ ...simple(ref).inputParameters, ...(ref === 'last' && { last: true }) }),
    }),
  };
}

/**
 * A dynamic fork of `FANOUT` one-step branches (the list comes with the run's input), its JOIN
 * and a last step: what a wide fan-out costs each branch as the fork grows.
 */
function fanout() {
  return {
    steps: FANOUT + 1,
    input: (run) => ({ items: Array.from({ length: FANOUT }, (_, i) => ({ run, i })) }),
    definition: {
      name: 'shape_fanout',
      version: 1,
      schemaVersion: 2,
      ownerEmail: 'bench@example.com',
      tasks: [
        {
          name: 'fanout',
          taskReferenceName: 'fanout',
          type: 'FORK_JOIN_DYNAMIC',
          inputParameters: { forkTaskName: TASK_TYPE, forkTaskInputs: '${workflow.input.items}' },
        },
        { name: 'fanout_join', taskReferenceName: 'fanout_join', type: 'JOIN' },
        { ...simple('last'), inputParameters: { ...simple('last').inputParameters, last: true } },
      ],
      outputParameters: { last: '${last.output.data}' },
    },
  };
}

/** The group commit's counters (PostgreSQL) from the servers' `/metrics`, summed: none on SQLite. */
async function groupCommitCounts(servers) {
  const counts = new Map();
  for (const { url } of servers) {
    const text = await (await fetch(`${url}/metrics`)).text();
    for (const m of text.matchAll(/^baton_db_group_commit_total\{count="(\w+)"\} (\d+)$/gm))
      counts.set(m[1], (counts.get(m[1]) ?? 0) + Number(m[2]));
  }
  return counts;
}

/** The linear workflow of `steps` worker steps, the last one marked. */
function linear(steps) {
  return {
    steps,
    definition: {
      name: 'shape_linear',
      version: 1,
      schemaVersion: 2,
      ownerEmail: 'bench@example.com',
      tasks: Array.from({ length: steps }, (_, k) => {
        const t = simple(`s${k}`);
        return k === steps - 1 ? { ...t, inputParameters: { ...t.inputParameters, last: true } } : t;
      }),
      outputParameters: { last: `\${s${steps - 1}.output.data}` },
    },
  };
}

/** The task domain of node `i`'s runs and workers under --node-domains. */
const nodeDomain = (i) => `node${i}`;

/**
 * Runs `RUNS` runs of `definition` through `WORKERS` update-v2 slots, spread over the nodes'
 * clients (each slot polls and posts to one node); answers the pass's figures.
 */
async function pass(clients, meter, shape) {
  let done = 0;
  let stopped = false;
  let finish;
  let fail;
  const allDone = new Promise((resolve, reject) => ((finish = resolve), (fail = reject)));
  const execute = async (client, first) => {
    for (let task = first; task && !stopped;) {
      const res = await client.post('/api/tasks/update-v2', {
        taskId: task.taskId,
        workflowInstanceId: task.workflowInstanceId,
        workerId: 'shape-worker',
        status: 'COMPLETED',
        outputData: {
          data: stepPayload(task.inputData.run ?? task.inputData.input?.run, task.referenceTaskName),
        },
      });
      if (res.status !== 200 && res.status !== 204) throw new Error(`update-v2 answered ${res.status}`);
      if (task.inputData.last === true && ++done === RUNS) finish();
      task = res.status === 200 ? res.body : undefined;
    }
  };
  const wakes = [];
  const pollers = spreadSlots(WORKERS, clients.length).map(async (slots, i) => {
    const client = clients[i];
    let busy = 0;
    while (!stopped) {
      if (busy >= slots) {
        await new Promise((resolve) => (wakes[i] = resolve));
        continue;
      }
      const res = await client.get(
        `/api/tasks/poll/batch/${TASK_TYPE}?count=${slots - busy}&timeout=200&workerid=shape-worker` +
          (NODE_DOMAINS ? `&domain=${nodeDomain(i)}` : ''),
      );
      for (const task of res.body) {
        busy++;
        execute(client, task)
          .catch(fail)
          .finally(() => {
            busy--;
            wakes[i]?.();
          });
      }
    }
  });
  const poller = Promise.all(pollers).catch(fail);
  await meter.start();
  const t0 = performance.now();
  const ids = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < RUNS) {
        const run = next++;
        const node = run % clients.length;
        const input = { run, data: stepPayload(run, -1), ...shape.input?.(run) };
        const res = await clients[node].post(`/api/workflow/${shape.definition.name}`, {
          input,
          ...(NODE_DOMAINS && { taskToDomain: { '*': nodeDomain(node) } }),
        });
        ids.push(res.body);
      }
    }),
  );
  const timer = setTimeout(() => fail(new Error(`${RUNS} runs did not end within 10 minutes`)), 600_000);
  await allDone;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = await meter.stop();
  clearTimeout(timer);
  stopped = true;
  for (const wake of wakes) wake?.();
  await poller;
  // Every run must have ended COMPLETED (the last step may be acknowledged a moment before the
  // run's own end is written, so wait for it, bounded).
  const deadline = Date.now() + 60_000;
  for (const id of ids) {
    for (;;) {
      const run = (await clients[0].get(`/api/workflow/${id}?includeTasks=false`)).body;
      if (run.status === 'COMPLETED' && run.output?.last?.run !== undefined) break;
      if (run.status !== 'RUNNING' || Date.now() > deadline)
        throw new Error(`run ${id} is ${run.status}: ${run.reasonForIncompletion ?? 'no output'}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const steps = RUNS * shape.steps;
  return { steps, seconds, cpu };
}

const databaseUrl = values.store === 'postgres' ? await freshDatabase('bench_shapes') : undefined;
const HOOK = join(
  dirname(fileURLToPath(import.meta.url)),
  databaseUrl === undefined ? 'lib/sqlite-statements-hook.mjs' : 'lib/pg-statements-hook.mjs',
);
const servers = [];
for (let i = 0; i < NODES; i++)
  servers.push(
    await startBaton({
      databaseUrl,
      env: PROF_DIR ? { BATON_SQLITE_STATS_FILE: STATS_FILE, BATON_PG_STATS_FILE: STATS_FILE } : {},
      nodeArgs: PROF_DIR ? ['--import', HOOK, '--cpu-prof', '--cpu-prof-dir', PROF_DIR] : [],
    }),
  );
const server = servers[0];
const clients = servers.map((s) => jsonClient(s.url, { sockets: Math.ceil(WORKERS / NODES) + 24 }));
const client = clients[0];
const pendingSummaries = [];
try {
  await client.post('/api/metadata/taskdefs', [
    {
      name: TASK_TYPE,
      retryCount: 0,
      responseTimeoutSeconds: 300,
      timeoutSeconds: 0,
      ownerEmail: 'bench@example.com',
    },
  ]);
  const shapes = FANOUT === undefined ? [branching()] : [fanout()];
  if (FANOUT === undefined) shapes.push(linear(shapes[0].steps));
  for (const shape of shapes) await client.post('/api/metadata/workflow?overwrite=true', shape.definition);
  let dumps = 0;
  for (const shape of shapes.filter((s) => values.only === undefined || s.definition.name === values.only)) {
    const before = PROF_DIR ? await dumpCounters(server.pid, STATS_FILE, ++dumps) : undefined;
    const meter = new CpuMeter({
      processes: servers.map((s, i) => ({
        name: NODES > 1 ? `Baton server ${i + 1}` : 'Baton server',
        pid: s.pid,
      })),
      pgDatabase: databaseUrl === undefined ? undefined : databaseName('bench_shapes'),
    });
    const grouped = await groupCommitCounts(servers);
    const { steps, seconds, cpu } = await pass(clients, meter, shape);
    const cpuMs = cpu.map(({ name, ms }) => `${name} ${(ms / steps).toFixed(3)}`).join(', ');
    console.log(
      `${values.store}${NODES > 1 ? ` (${NODES} nodes${NODE_DOMAINS ? ', a domain each' : ''})` : ''} ${shape.definition.name} (${shape.steps} worker steps a run): ${RUNS} runs, ` +
        `${Math.round(steps / seconds)} steps/s in ${seconds.toFixed(1)} s; CPU ms per step: ${cpuMs}`,
    );
    if (grouped.size > 0) {
      const now = await groupCommitCounts(servers);
      const per = [...now].map(([k, v]) => `${k} ${((v - (grouped.get(k) ?? 0)) / steps).toFixed(2)}`);
      console.log(`group commit per step: ${per.join(', ')}`);
    }
    if (PROF_DIR) {
      const after = await dumpCounters(server.pid, STATS_FILE, ++dumps);
      const d = (key) => after.totals[key] - before.totals[key];
      console.log(
        `statements per step: ${(d('statements') / steps).toFixed(2)}, round trips ${(d('roundTrips') / steps).toFixed(2)}`.replace(
          ', round trips NaN',
          '',
        ),
      );
      const rows = Object.entries(after.byStatement)
        .map(([label, a]) => ({
          label,
          n: a.statements - (before.byStatement[label]?.statements ?? 0),
          us: a.us === undefined ? undefined : a.us - (before.byStatement[label]?.us ?? 0),
        }))
        .filter((r) => r.n > 0)
        // SQLite's hook also times each statement (wall time, in the server's thread): by time there.
        .sort((x, y) => (y.us ?? y.n) - (x.us ?? x.n))
        .slice(0, 25);
      for (const r of rows)
        console.log(
          `  ${(r.n / steps).toFixed(2)}  ${r.us === undefined ? '' : `${(r.us / steps).toFixed(1).padStart(6)} µs  `}${r.label}`,
        );
      pendingSummaries.push({ before, after });
    }
  }
} finally {
  for (const c of clients) c.close();
  for (const s of servers) await s.stop();
  for (const { before, after } of pendingSummaries)
    console.log(profileSummary(PROF_DIR, 30, before, after).join('\n'));
  if (databaseUrl !== undefined) await dropDatabase('bench_shapes');
}
