import type { Logger } from 'pino';

import type { Clock } from '../clock.js';
import { coerceError } from '../errors.js';
import { newId } from '../ids.js';
import type { WakeBus } from '../queue/wake-bus.js';
import { OUTBOX_WAKE, type StoredOutboxEntry } from '../store/ports/events.js';
import type { Store } from '../store/store.js';
import { type Broker, backoffMs, parseAddress } from './broker.js';
import { OutageLog } from '../store/outage-log.js';

const BATCH = 100;
const LEASE_MS = 15_000;
const IDLE_MS = 1000;

/**
 * Sends outbox rows to their sinks after the transactions that wrote them committed, oldest
 * first. One node relays at a time (a lease in `outbox_relay`), so events leave in the order
 * they were written; a row is deleted only after its broker confirmed it, so a crash re-sends
 * (at least once, with the same message id: consumers recognise it, Baton's own by its inbox).
 * A broker that is down stops the relay at that row (order is kept) until it answers again.
 */
export class OutboxRelay {
  private readonly holder = newId();
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private failures = 0;
  private lastError: string | undefined;
  private readonly outage: OutageLog;

  constructor(
    private readonly store: Store,
    private readonly brokers: ReadonlyMap<string, Broker>,
    private readonly wake: WakeBus,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.outage = new OutageLog(logger, 'outbox relay');
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
    await this.store.transaction((tx) => tx.events.releaseRelayLease(this.holder)).catch(() => undefined);
  }

  /** Relays until the outbox is empty or a sink fails; answers how many rows were sent. */
  async relayOnce(): Promise<number> {
    // A read first: an idle node must not write (take the lease) every round.
    if ((await this.store.read((tx) => tx.events.readOutbox(1))).length === 0) return 0;
    const now = this.clock.now();
    const rows = await this.store.transaction(async (tx) =>
      (await tx.events.takeRelayLease(this.holder, now, LEASE_MS)) ? tx.events.readOutbox(BATCH) : undefined,
    );
    if (!rows || rows.length === 0) return 0;
    const sent: number[] = [];
    try {
      for (const row of rows) {
        if (this.abort.signal.aborted) break;
        await this.send(row);
        sent.push(row.seq);
      }
      this.failures = 0;
      this.lastError = undefined;
    } catch (raw) {
      const err = coerceError(raw);
      if (this.lastError !== err.message)
        this.logger.warn({ err }, 'outbox relay: a sink did not take an event; retrying');
      this.lastError = err.message;
      this.failures++;
    } finally {
      if (sent.length > 0) await this.store.transaction((tx) => tx.events.deleteOutbox(sent));
    }
    return sent.length;
  }

  private async send(row: StoredOutboxEntry): Promise<void> {
    const address = parseAddress(row.sink);
    const broker = address && this.brokers.get(address.scheme);
    if (!address || !broker) {
      // Kept rows would stop every later event behind them: a sink this node cannot reach is
      // reported and the event dropped (the definition named a broker that is not configured).
      this.logger.error(
        { sink: row.sink, messageId: row.messageId },
        `outbox: sink ${row.sink} is not configured; event dropped`,
      );
      return;
    }
    await broker.publish(address.destination, { id: row.messageId, body: JSON.stringify(row.payload) });
  }

  private async loop(): Promise<void> {
    while (!this.abort.signal.aborted) {
      const generation = this.wake.generation([OUTBOX_WAKE]);
      let sent = 0;
      try {
        sent = await this.relayOnce();
        this.outage.succeeded();
      } catch (raw) {
        this.outage.failed(raw);
        this.failures++;
      }
      if (this.abort.signal.aborted) return;
      if (sent === BATCH) continue;
      const wait = this.failures > 0 ? backoffMs(this.failures) : IDLE_MS;
      await this.wake.wait(
        [OUTBOX_WAKE],
        wait,
        this.abort.signal,
        this.failures > 0 ? undefined : generation,
      );
    }
  }
}
