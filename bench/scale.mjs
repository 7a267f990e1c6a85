// The scale scenario: Baton's hot path does not slow down as finished history grows (part A),
// and open runs are cheap in memory, on PostgreSQL and on SQLite (part B). Needs the built server (`npx tsc -b`) and the
// PostgreSQL of pg-admin.mjs.
//   node bench/scale.mjs [--sizes 10000,100000,1000000] [--runs 300] [--warmup 150]
//                        [--open 100000] [--concurrency 32] [--skip-history] [--skip-open]
// Prints a Markdown table; writes bench/results/scale.json and scale.md.
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { WARMUP_RUNS, measureHistory } from './lib/scale-history.mjs';
import { measureOpenRuns } from './lib/scale-open-runs.mjs';
import { writeScaleResults } from './lib/scale-report.mjs';

export const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'results');

/**
 * Runs the scenario and writes its results. Options: sizes (finished runs, ascending), runs
 * (measured per size), warmupRuns, open (open runs; 0 skips part B), concurrency, history
 * (false skips part A), resultsDir, log. Answers the results object.
 */
export async function runScale({
  sizes = [10_000, 100_000, 1_000_000],
  runs = 300,
  warmupRuns = WARMUP_RUNS,
  open = 100_000,
  concurrency = 32,
  history = true,
  resultsDir = RESULTS_DIR,
  log = (line) => console.error(line),
} = {}) {
  const began = performance.now();
  const results = {
    scenario: 'scale',
    measuredAt: new Date().toISOString(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
  };
  if (history) results.history = await measureHistory({ sizes, runs, warmupRuns, log });
  if (open > 0) {
    results.openRuns = await measureOpenRuns({ open, concurrency, log });
    results.openRunsSqlite = await measureOpenRuns({ open, store: 'sqlite', concurrency, log });
  }
  results.seconds = (performance.now() - began) / 1000;
  results.markdown = writeScaleResults(results, resultsDir);
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '10000,100000,1000000' },
      runs: { type: 'string', default: '300' },
      warmup: { type: 'string', default: String(WARMUP_RUNS) },
      open: { type: 'string', default: '100000' },
      concurrency: { type: 'string', default: '32' },
      'skip-history': { type: 'boolean', default: false },
      'skip-open': { type: 'boolean', default: false },
    },
  });
  const results = await runScale({
    sizes: values.sizes.split(',').map(Number),
    runs: Number(values.runs),
    warmupRuns: Number(values.warmup),
    open: values['skip-open'] ? 0 : Number(values.open),
    concurrency: Number(values.concurrency),
    history: !values['skip-history'],
  });
  process.stdout.write(results.markdown);
}
