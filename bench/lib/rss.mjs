// Peak resident set size of processes, in bytes.
import { readFileSync } from 'node:fs';

/** This process's peak RSS. */
export function ownPeakRss() {
  return process.resourceUsage().maxRSS * 1024;
}

/** Another process's peak RSS (Linux: VmHWM), or undefined once it is gone. */
export function peakRssOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmHWM:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** Current RSS of a process (Linux: VmRSS), or undefined once it is gone. */
export function rssOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}
