// CPU time processes have used, from /proc (Linux). A busy machine stretches wall time far more
// than it stretches the CPU time a piece of work needs, so CPU time is the steadier cost figure.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond;

/** User + system CPU ms of process `pid`, or undefined once it is gone. */
export function cpuMsOf(pid) {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  try {
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return undefined;
  }
}

/** Process ids of the children of `pid` (Linux: the children file of each of its threads in /proc); [] once it is gone. */
export function childPidsOf(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** CPU ms of each of `pids` now (Map pid → ms), for cpuBetween. */
export function snapshotCpu(pids) {
  const snap = new Map();
  for (const pid of pids) {
    const ms = cpuMsOf(pid);
    if (ms !== undefined) snap.set(pid, ms);
  }
  return snap;
}

/**
 * CPU ms a changing set of processes used between two snapshots: processes in both count their
 * difference, processes started in between their whole time, processes gone are not counted.
 */
export function cpuBetween(before, after) {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
