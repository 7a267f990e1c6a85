#!/usr/bin/env node
// The side-by-side benchmark: each system, one after another and each in a process of its own,
// runs a throughput pass (R runs, W workers) and a light-load pass (one run at a time, one
// worker); then the report is written to the output directory and printed. `npm run bench`
// builds first; `node bench/run.mjs --help` lists the flags.
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { branchingStepCount } from './lib/branching-workflow.mjs';
import { chartRows, handoffLatencySvg, stepsPerSecondSvg } from './lib/chart.mjs';
import { formatRate } from './lib/format.mjs';
import { machineFacts } from './lib/machine.mjs';
import { runPass, stopCurrentPass } from './lib/pass-runner.mjs';
import { compare, renderMarkdown, summarizePass, targets } from './lib/report.mjs';
import { SYSTEMS, kindOf, latencyRunsFor, runsShape, systemModule } from './lib/systems-catalog.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER_MAIN = join(HERE, '../packages/server/dist/src/main.js');

const USAGE = `Usage: node bench/run.mjs [flags]   (npm run bench -- [flags] builds first)

  --runs R           runs in the throughput pass (default 2000)
  --workers W        concurrent workers in the throughput pass (default 16)
  --steps S          steps of the linear workflow (default 10)
  --shape SHAPE      line (default) or branching: a step, a fork of 4 branches of
                     two steps and its join, a switch on the run's parity with a
                     step in each case, a last step (11 steps; --steps is not used);
                     run on Baton, DBOS and the ceiling, the job queues skipped
  --latency-runs L   runs in the light-load pass: one at a time, one worker (default 200)
  --skip-latency     no light-load pass
  --systems a,b,c    systems to run, in this order (default: all known:
                     ${SYSTEMS.map((s) => s.id).join(', ')});
                     Baton on N nodes: baton-postgres-N-nodes (N server processes
                     on one database) or baton-postgres-processes-N (BATON_PROCESSES=N),
                     e.g. --systems baton-postgres,baton-postgres-2-nodes,baton-postgres-4-nodes
  --skip-scale       do not run the stored-runs scenario (bench/scale.mjs) even if present
  --out DIR          where results go (default bench/results)
  --help             this text

Services: PostgreSQL (BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres) and
Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379).`;

const log = (message) => process.stderr.write(`bench: ${message}\n`);

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      runs: { type: 'string', default: '2000' },
      workers: { type: 'string', default: '16' },
      steps: { type: 'string', default: '10' },
      shape: { type: 'string', default: 'line' },
      'latency-runs': { type: 'string', default: '200' },
      'skip-latency': { type: 'boolean', default: false },
      'skip-scale': { type: 'boolean', default: false },
      systems: { type: 'string' },
      out: { type: 'string', default: join(HERE, 'results') },
      help: { type: 'boolean', default: false },
    },
  });
  const count = (flag) => {
    const n = Number(values[flag]);
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`--${flag} must be a whole number ≥ 1, not '${values[flag]}'`);
    return n;
  };
  const shape = values.shape;
  if (shape !== 'line' && shape !== 'branching')
    throw new Error(`--shape must be line or branching, not '${shape}'`);
  return {
    help: values.help,
    runs: count('runs'),
    workers: count('workers'),
    steps: shape === 'branching' ? branchingStepCount() : count('steps'),
    shape,
    latencyRuns: count('latency-runs'),
    skipLatency: values['skip-latency'],
    skipScale: values['skip-scale'],
    systems: values.systems
      ? values.systems
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : SYSTEMS.map((s) => s.id),
    out: resolve(values.out),
  };
}

const moduleOf = (id) => join(HERE, 'systems', `${systemModule(id).module}.mjs`);

/** The systems to run and those skipped because their module is not there (yet). */
function selectSystems(ids, shape) {
  const run = [];
  const skipped = [];
  for (const id of ids) {
    if (existsSync(moduleOf(id)) && !runsShape(id, shape))
      skipped.push({ id, reason: `no fork, join or switch of its own: the ${shape} shape is not run on it` });
    else if (existsSync(moduleOf(id))) run.push(id);
    else if (SYSTEMS.some((s) => s.id === id))
      skipped.push({ id, reason: `bench/systems/${id}.mjs does not exist yet` });
    else throw new Error(`unknown system '${id}' (no bench/systems/${id}.mjs)`);
  }
  return { run, skipped };
}

async function pass(id, name, options) {
  log(
    `${id}: ${name} pass (${options.runs} runs, ${options.workers} worker${options.workers === 1 ? '' : 's'}, ${options.steps} steps)…`,
  );
  try {
    const summary = summarizePass(await runPass(id, options));
    const p = summary.handoff;
    log(
      `${id}: ${name} pass done: ${formatRate(summary.stepsPerSecond)} steps/s in ${summary.seconds.toFixed(1)} s` +
        (p.count > 0 ? `, hand-off p50 ${p.p50.toFixed(2)} ms, p99 ${p.p99.toFixed(2)} ms` : ''),
    );
    if (summary.runsCompleted !== options.runs) {
      log(`${id}: warning: ${summary.runsCompleted} of ${options.runs} runs completed`);
    }
    return summary;
  } catch (error) {
    log(`${id}: ${name} pass FAILED: ${error.message}`);
    return { status: 'failed', error: error.message };
  }
}

/**
 * The stored-runs scaling scenario, when bench/scale.mjs exists: `runScale(options)` answers a
 * JSON-able object kept as `scale` in results.json; a `markdown` string in it becomes a section
 * of results.md.
 */
async function runScalePhase(options) {
  const path = join(HERE, 'scale.mjs');
  if (options.skipScale || !existsSync(path)) return undefined;
  log('stored-runs scenario (bench/scale.mjs)…');
  try {
    const { runScale } = await import(path);
    // Its own defaults (sizes, runs per size, open runs): the throughput pass's R and W are not its.
    return await runScale({ resultsDir: options.out, log });
  } catch (error) {
    log(`stored-runs scenario FAILED: ${error.message}`);
    return { status: 'failed', error: error.message };
  }
}

/** Writes through a temporary file so that an interrupted run never leaves half a result. */
function writeAtomically(path, content) {
  writeFileSync(`${path}.tmp`, content);
  renameSync(`${path}.tmp`, path);
}

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let selection;
  try {
    selection = selectSystems(options.systems, options.shape);
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  for (const { id, reason } of selection.skipped) log(`WARNING: skipping ${id}: ${reason}`);
  if (selection.run.some((id) => kindOf(id) === 'baton') && !existsSync(SERVER_MAIN)) {
    process.stderr.write('the Baton server is not built: run `npx tsc -b` (or use `npm run bench`)\n');
    return 2;
  }

  const startedAt = new Date().toISOString();
  const machine = await machineFacts();
  log(
    `${machine.cpuCount} × ${machine.cpuModel}, Node ${machine.node}, PostgreSQL ${machine.postgres}, Redis ${machine.redis}`,
  );
  const systems = [];
  for (const id of selection.run) {
    const { runs, workers, steps, shape, latencyRuns, skipLatency } = options;
    const throughput = await pass(id, 'throughput', { mode: 'throughput', runs, workers, steps, shape });
    if (interrupted) return 130;
    const latency = skipLatency
      ? { status: 'skipped', reason: '--skip-latency' }
      : await pass(id, 'light-load', {
          mode: 'latency',
          runs: latencyRunsFor(id, latencyRuns),
          workers: 1,
          steps,
          shape,
        });
    if (interrupted) return 130;
    systems.push({ id, kind: kindOf(id), throughput, latency });
  }
  const scale = await runScalePhase(options);
  if (interrupted) return 130;

  // An output directory inside the repository is recorded relative to it, so that a committed
  // results.json names no machine's paths.
  const inRepo = relative(join(HERE, '..'), options.out);
  const out = inRepo.startsWith('..') ? options.out : inRepo || '.';
  const { help: _help, ...recorded } = { ...options, out };
  const results = {
    options: recorded,
    machine,
    startedAt,
    finishedAt: new Date().toISOString(),
    systems,
    skipped: selection.skipped,
    comparison: compare(systems),
    targets: targets(systems),
    ...(scale === undefined ? {} : { scale }),
  };
  const markdown = renderMarkdown(results);
  const subtitle = `${options.runs} runs × ${options.steps} steps${options.shape === 'branching' ? ' (branching)' : ''}, ${options.workers} workers; ${machine.cpuCount} × ${machine.cpuModel}; ${startedAt.slice(0, 10)}`;
  const rows = chartRows(systems);
  mkdirSync(options.out, { recursive: true });
  writeAtomically(join(options.out, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeAtomically(join(options.out, 'results.md'), markdown);
  writeAtomically(join(options.out, 'steps-per-second.svg'), stepsPerSecondSvg(rows, { subtitle }));
  writeAtomically(
    join(options.out, 'handoff-latency.svg'),
    handoffLatencySvg(rows, {
      subtitle: `${options.latencyRuns} runs one at a time, one worker; ${startedAt.slice(0, 10)}`,
    }),
  );
  log(`results written to ${options.out}`);
  process.stdout.write(markdown);

  const failed = systems.filter((s) => s.throughput.status === 'failed' || s.latency.status === 'failed');
  if (failed.length > 0 || scale?.status === 'failed') {
    log(
      `FAILED: ${[...failed.map((s) => s.id), ...(scale?.status === 'failed' ? ['stored-runs scenario'] : [])].join(', ')}`,
    );
    return 1;
  }
  return 0;
}

// A detached child does not see the terminal's Ctrl-C: pass it on, and start no further pass.
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping the running pass; no results are written`);
    stopCurrentPass('SIGTERM');
    setTimeout(() => {
      stopCurrentPass('SIGKILL');
      process.exit(130);
    }, 15_000).unref();
  });
}
process.exitCode = await main();
