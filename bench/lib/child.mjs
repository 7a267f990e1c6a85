// Runs one system's benchmark in a process of its own, so that each system's memory is its own
// and no system warms up another's JIT or pools. Prints one line: BENCH_RESULT <json>, or
// BENCH_ERROR {"message"} (and exits 1) when the system fails.
//   node bench/lib/child.mjs <system> '<options json>'
// Options: { mode: 'throughput' | 'latency', runs, workers, steps }.
// A system module `bench/systems/<system>.mjs` (or the module of a counted id such as
// baton-postgres-4-nodes, see systems-catalog.mjs, given the count among its options) exports `default async function run(options)`
// answering { label, runsCompleted, steps, seconds, handoffMs, processes, notes? }:
//   steps       steps (handler calls that completed) in the measured interval
//   seconds     the measured interval: from the first start to the last run's last step
//   handoffMs   hand-off latencies (see handoff.mjs), every one seen
//   processes   [{ name, peakRssBytes }] for processes the system started (servers); the
//               harness process (this one) is added here
import { ownPeakRss } from './rss.mjs';
import { systemModule } from './systems-catalog.mjs';

const [system, json] = process.argv.slice(2);
if (!system || !json) {
  console.error("usage: node bench/lib/child.mjs <system> '<options json>'");
  process.exit(2);
}
// Libraries may keep timers or sockets alive after their own shutdown, so the process exits
// itself, but only once the line is written: a write to a pipe is asynchronous, and exiting
// at once cuts a result with many samples off at the pipe's buffer (64 KiB).
const answer = (tag, body, code) =>
  process.stdout.write(`\n${tag} ${JSON.stringify(body)}\n`, () => process.exit(code));
try {
  const { module, options } = systemModule(system);
  const { default: run } = await import(`../systems/${module}.mjs`);
  const result = await run({ ...JSON.parse(json), ...options });
  result.processes = [...(result.processes ?? []), { name: 'harness (workers)', peakRssBytes: ownPeakRss() }];
  answer('BENCH_RESULT', result, 0);
} catch (error) {
  // The stack goes to stderr for whoever reads the log; the message, on a line of its own, is
  // what the orchestrator shows as the system's failure.
  console.error(error);
  answer('BENCH_ERROR', { message: error instanceof Error ? error.message : String(error) }, 1);
}
