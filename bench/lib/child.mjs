// Runs one system's benchmark in a process of its own, so that each system's memory is its own
// and no system warms up another's JIT or pools. Prints one line: BENCH_RESULT <json>.
//   node bench/lib/child.mjs <system> '<options json>'
// Options: { mode: 'throughput' | 'latency', runs, workers, steps }.
// A system module `bench/systems/<system>.mjs` exports `default async function run(options)`
// answering { label, runsCompleted, steps, seconds, handoffMs, processes, notes? }:
//   steps       steps (handler calls that completed) in the measured interval
//   seconds     the measured interval: from the first start to the last run's last step
//   handoffMs   hand-off latencies (see handoff.mjs), every one seen
//   processes   [{ name, peakRssBytes }] for processes the system started (servers); the
//               harness process (this one) is added here
import { ownPeakRss } from './rss.mjs';

const [system, json] = process.argv.slice(2);
if (!system || !json) {
  console.error("usage: node bench/lib/child.mjs <system> '<options json>'");
  process.exit(2);
}
const { default: run } = await import(`../systems/${system}.mjs`);
const result = await run(JSON.parse(json));
result.processes = [...(result.processes ?? []), { name: 'harness (workers)', peakRssBytes: ownPeakRss() }];
// Libraries may keep timers or sockets alive after their own shutdown, so the process exits
// itself, but only once the line is out: into a pipe, a result larger than the pipe's buffer
// (hand-off samples of thousands of steps) is written in the background and exit would cut it.
process.stdout.write(`\nBENCH_RESULT ${JSON.stringify(result)}\n`, () => process.exit(0));
