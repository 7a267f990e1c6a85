import { type OutageLogger, OutageLog } from './outage-log.js';

/**
 * A pass a node runs in the background every `intervalMs` (the first one `firstAfterMs` after
 * `start`, by default an interval too: a node that starts has other work first), one at a time;
 * a pass that answers `'again'` found more to do than it took and runs again at once. A pass that
 * fails is reported as every background loop reports its failures (an outage once, then
 * reminders; any other error in full), and the next pass starts over. `stop` waits for a pass
 * under way, which should look at `halted` between its transactions and end early.
 */
export class PeriodicPass {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private stopping = false;
  private readonly outage: OutageLog;

  constructor(
    /** How the log names the loop: "definition pruner"… */
    loop: string,
    logger: OutageLogger,
    private readonly intervalMs: number,
    private readonly pass: () => Promise<'again' | void>,
    private readonly firstAfterMs = intervalMs,
  ) {
    this.outage = new OutageLog(logger, loop);
  }

  /** Set by `stop`: a pass under way should end after its current transaction. */
  get halted(): boolean {
    return this.stopping;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopping = false;
    this.schedule(this.firstAfterMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.once().finally(() => {
        this.running = undefined;
      });
    }, delayMs);
    this.timer.unref();
  }

  private async once(): Promise<void> {
    let again = false;
    try {
      again = (await this.pass()) === 'again';
      this.outage.succeeded();
    } catch (raw) {
      this.outage.failed(raw);
    }
    this.schedule(again ? 0 : this.intervalMs);
  }
}
