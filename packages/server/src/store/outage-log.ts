import { coerceError } from '../errors.js';
import { storeFault } from './store-faults.js';

/** What an outage log writes to: a pino logger or anything shaped like one. */
export interface OutageLogger {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/** How often a loop that keeps failing for the same outage says it is still waiting. */
const REMINDER_MS = 60_000;

/**
 * How a background loop (timers, outbox relay, archiver) reports failed rounds. While the database
 * is away every round fails the same way, once a second or faster: logging each with its stack
 * buries the one line an operator needs. So an outage is logged once when it starts (the reason,
 * no stack), then once a minute while it lasts, and once when a round succeeds again (how long
 * and how many rounds). Any other error is a fault of its own and is logged every time, in full.
 */
export class OutageLog {
  private failedRounds = 0;
  private since = 0;
  private lastReminder = 0;

  constructor(
    private readonly logger: OutageLogger,
    /** The loop's name as the log line says it: "timer loop", "outbox relay"… */
    private readonly loop: string,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A round failed with `raw`. */
  failed(raw: unknown): void {
    const reason = storeFault(raw);
    if (reason === undefined) {
      this.logger.warn({ err: coerceError(raw) }, `${this.loop} round failed; trying again`);
      return;
    }
    const at = this.now();
    this.failedRounds++;
    if (this.failedRounds === 1) {
      this.since = at;
      this.lastReminder = at;
      this.logger.warn({ reason }, `${this.loop}: database unavailable; waiting for it`);
    } else if (at - this.lastReminder >= REMINDER_MS) {
      this.lastReminder = at;
      this.logger.warn(
        { reason, failedRounds: this.failedRounds, awayMs: Math.round(at - this.since) },
        `${this.loop}: database still unavailable`,
      );
    }
  }

  /** A round succeeded: ends an outage if one was being waited out. */
  succeeded(): void {
    if (this.failedRounds === 0) return;
    this.logger.info(
      { failedRounds: this.failedRounds, awayMs: Math.round(this.now() - this.since) },
      `${this.loop}: database back`,
    );
    this.failedRounds = 0;
  }
}
