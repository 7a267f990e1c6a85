import cluster, { type Worker } from 'node:cluster';

import type { Logger } from 'pino';

/**
 * The primary of `BATON_PROCESSES=N`: forks N node processes that share the listening port
 * (node:cluster hands each accepted connection to one of them), restarts one that dies, and
 * stops them all on request. Each process is a whole node (its own pool, group commit, timer
 * loop, script threads); they coordinate through PostgreSQL exactly as nodes on separate hosts
 * do, so this class knows nothing of the engine.
 */
export interface ProcessGroupOptions {
  count: number;
  logger: Logger;
  /** Environment added for the process forked as number `index` (1…count). */
  envFor: (index: number) => Record<string, string>;
  /** How long processes may take to stop after SIGTERM before they are killed. */
  stopGraceMs: number;
  /** A process that dies before it listens this many times in a row ends the group (default 5). */
  maxStartFailures?: number;
  /** First restart delay, doubled for each recent failure of the same process (default 100 ms). */
  restartDelayMs?: number;
  /** Longest restart delay (default 10 s). */
  maxRestartDelayMs?: number;
  /** Crashes of a listening process this long ago no longer lengthen the delay (default 60 s). */
  crashWindowMs?: number;
}

interface Slot {
  readonly index: number;
  worker: Worker | undefined;
  listening: boolean;
  /** Deaths before listening, in a row; reset once the process listens. */
  startFailures: number;
  /** When a listening process of this slot died (within the crash window). */
  crashes: number[];
  restartTimer: NodeJS.Timeout | undefined;
}

export class ProcessGroup {
  private readonly slots: Slot[];
  private stopping = false;
  private exitCode = 0;
  private forceTimer: NodeJS.Timeout | undefined;
  private resolveDone: ((code: number) => void) | undefined;
  private readonly done: Promise<number>;

  constructor(private readonly options: ProcessGroupOptions) {
    this.slots = Array.from({ length: options.count }, (_, i) => ({
      index: i + 1,
      worker: undefined,
      listening: false,
      startFailures: 0,
      crashes: [],
      restartTimer: undefined,
    }));
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  /** Forks every process; answers the exit code for the primary once all have stopped. */
  run(): Promise<number> {
    this.options.logger.info({ processes: this.options.count }, 'starting node processes');
    for (const slot of this.slots) this.fork(slot);
    return this.done;
  }

  /**
   * Graceful stop: SIGTERM to every process (each stops as a single node does), SIGKILL to
   * those still running after the grace. `exitCode` is what the primary exits with.
   */
  stop(exitCode = 0): void {
    if (exitCode !== 0) this.exitCode = exitCode;
    if (this.stopping) return;
    this.stopping = true;
    for (const slot of this.slots) {
      clearTimeout(slot.restartTimer);
      slot.restartTimer = undefined;
      slot.worker?.process.kill('SIGTERM');
    }
    // A little past the processes' own grace: each forces itself out first, this is the backstop.
    this.forceTimer = setTimeout(() => this.kill(), this.options.stopGraceMs + 2_000);
    this.forceTimer.unref();
    this.settleIfAllStopped();
  }

  /** SIGKILL to every process now (a second signal, or a stop that took too long). */
  kill(reason = 'the stop took too long'): void {
    this.stopping = true;
    this.exitCode = 1;
    for (const slot of this.slots) {
      clearTimeout(slot.restartTimer);
      slot.restartTimer = undefined;
      if (slot.worker !== undefined) {
        this.options.logger.error(
          { process: slot.index, nodePid: slot.worker.process.pid },
          `killing node process ${slot.index}: ${reason}`,
        );
        slot.worker.process.kill('SIGKILL');
      }
    }
    this.settleIfAllStopped();
  }

  private fork(slot: Slot): void {
    slot.restartTimer = undefined;
    slot.listening = false;
    const worker = cluster.fork(this.options.envFor(slot.index));
    slot.worker = worker;
    const pid = worker.process.pid;
    worker.on('listening', () => {
      if (slot.worker !== worker) return;
      slot.listening = true;
      slot.startFailures = 0;
      this.options.logger.info({ process: slot.index, nodePid: pid }, 'node process is listening');
    });
    worker.on('exit', (code: number | null, signal: string | null) =>
      this.exited(slot, worker, code, signal),
    );
  }

  private exited(slot: Slot, worker: Worker, code: number | null, signal: string | null): void {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    const pid = worker.process.pid;
    const how = signal !== null ? `signal ${signal}` : `code ${code ?? 'unknown'}`;
    if (this.stopping) {
      // Ended by the SIGTERM it was sent (still starting, no handler yet) is a clean stop too.
      if (code !== 0 && signal !== 'SIGTERM') this.exitCode = 1;
      this.options.logger.info(
        { process: slot.index, nodePid: pid, code, signal },
        `node process stopped (${how})`,
      );
      this.settleIfAllStopped();
      return;
    }
    const now = Date.now();
    const window = this.options.crashWindowMs ?? 60_000;
    let failures: number;
    if (slot.listening) {
      slot.crashes = [...slot.crashes.filter((at) => now - at < window), now];
      failures = slot.crashes.length;
    } else {
      slot.startFailures += 1;
      failures = slot.startFailures;
      const max = this.options.maxStartFailures ?? 5;
      if (slot.startFailures >= max) {
        this.options.logger.fatal(
          { process: slot.index, nodePid: pid, code, signal, failures: slot.startFailures },
          `node process ${slot.index} died before it listened ${slot.startFailures} times in a row (last: ${how}); giving up and stopping the others`,
        );
        this.stop(1);
        return;
      }
    }
    const initial = this.options.restartDelayMs ?? 100;
    const delayMs = Math.min(initial * 2 ** (failures - 1), this.options.maxRestartDelayMs ?? 10_000);
    this.options.logger.error(
      { process: slot.index, nodePid: pid, code, signal, restartInMs: delayMs },
      `node process ${slot.index} ${slot.listening ? 'died' : 'died while starting'} (${how}); restarting it in ${delayMs} ms`,
    );
    slot.restartTimer = setTimeout(() => this.fork(slot), delayMs);
  }

  private settleIfAllStopped(): void {
    if (!this.stopping || this.slots.some((s) => s.worker !== undefined)) return;
    clearTimeout(this.forceTimer);
    this.resolveDone?.(this.exitCode);
    this.resolveDone = undefined;
  }
}
