// What the two step profilers (profile-step.mjs on PostgreSQL, profile-step-sqlite.mjs) share:
// their flags, the statement counters' dumps from the server, the CPU line and the summary of
// the server's CPU profile.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { summarizeProfile } from './cpu-profile.mjs';
import { checkPerf } from './oncpu-profile.mjs';

/** The profilers' flags: the throughput pass to run, the worker protocol, where profiles go. */
export function profileFlags(defaultRuns) {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: defaultRuns },
      workers: { type: 'string', default: '16' },
      steps: { type: 'string', default: '10' },
      protocol: { type: 'string', default: 'update-v2' },
      'cpu-prof': { type: 'string' },
      // The server's time on the CPU, sampled by Linux perf over the pass (oncpu-profile.mjs).
      oncpu: { type: 'boolean', default: false },
      top: { type: 'string', default: '25' },
      // PostgreSQL only: the server's log file, for auto_explain's executor times.
      'explain-log': { type: 'string' },
      // PostgreSQL only: the WAL the pass wrote, by record type (wal-records.mjs).
      'wal-records': { type: 'boolean', default: false },
      // PostgreSQL only: this many server processes on the one database, the workers and the
      // starts spread over them (as the bench's baton-postgres-2-nodes); counts are summed.
      nodes: { type: 'string', default: '1' },
    },
  });
  const protocol = values.protocol;
  if (protocol !== 'update-v2' && protocol !== 'legacy') throw new Error('--protocol is update-v2 or legacy');
  const profDir = values['cpu-prof'];
  if (profDir) mkdirSync(profDir, { recursive: true });
  if (values.oncpu) checkPerf();
  return {
    options: {
      mode: 'throughput',
      runs: Number(values.runs),
      workers: Number(values.workers),
      steps: Number(values.steps),
    },
    protocol,
    profDir,
    oncpu: values.oncpu,
    top: Number(values.top),
    explainLog: values['explain-log'],
    walByRecord: values['wal-records'],
    nodes: Number(values.nodes),
  };
}

/**
 * Asks a hook loaded into the server (the statement hooks, the update-v2 timeline) for its
 * counters: SIGUSR2, answered in `<file>.<n>`; `n` names this dump.
 */
export async function dumpCounters(pid, statsFile, n) {
  process.kill(pid, 'SIGUSR2');
  const path = `${statsFile}.${n}`;
  for (let i = 0; i < 100 && !existsSync(path); i++) await new Promise((r) => setTimeout(r, 50));
  const stats = JSON.parse(readFileSync(path, 'utf8'));
  rmSync(path);
  return stats;
}

/** "CPU per step: …" of every process the meter followed. */
export function cpuLine(result, digits = 2) {
  const steps = result.steps;
  const total = result.cpu.reduce((n, p) => n + p.ms, 0);
  const parts = result.cpu.map((p) => `${p.name} ${(p.ms / steps).toFixed(digits)}`).join(', ');
  return `CPU per step: ${(total / steps).toFixed(digits)} ms (${parts})`;
}

/** The summary of the main thread's profile in `profDir`, over the samples between two dumps. */
export function profileSummary(profDir, top, before, after) {
  if (!profDir) return [];
  const file = readdirSync(profDir)
    // The main thread's (thread 0), not a worker thread's.
    .filter((f) => /\.0\.\d+\.cpuprofile$/.test(f))
    .map((f) => join(profDir, f))
    .sort()
    .pop();
  if (!file) return [];
  return ['', ...summarizeProfile(JSON.parse(readFileSync(file, 'utf8')), top, file, [before.at, after.at])];
}
