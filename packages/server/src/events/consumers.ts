import type { EventHandler } from '@baton/protocol';
import type { Logger } from 'pino';

import type { Clock } from '../clock.js';
import { coerceError } from '../errors.js';
import type { Store } from '../store/store.js';
import { type Broker, type Subscription, parseAddress } from './broker.js';
import type { EventProcessor } from './event-processor.js';

export interface ConsumersOptions {
  /** How often the handlers' change counter is read (changes made on any node). */
  refreshMs: number;
  /** Executions and inbox rows older than this are pruned. */
  retentionMs: number;
}

const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * Keeps this node subscribed to exactly the events that active handlers name. Every node runs
 * one; they share each source as competing consumers. A handler change on any node bumps a
 * change counter in the database, which every node reads every `refreshMs` and then re-reads
 * its handlers: no restart, no message between nodes needed.
 */
export class EventConsumers {
  private readonly subscriptions = new Map<string, Subscription>();
  private handlersByEvent = new Map<string, EventHandler[]>();
  private version = -1;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private lastPrune = 0;
  private stopped = false;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly store: Store,
    private readonly brokers: ReadonlyMap<string, Broker>,
    private readonly processor: EventProcessor,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: ConsumersOptions,
  ) {}

  async start(): Promise<void> {
    await this.refresh().catch((err: unknown) =>
      this.logger.warn({ err: coerceError(err) }, 'event handlers not loaded yet'),
    );
    const tick = (): void => {
      if (this.stopped) return;
      void this.refresh()
        .catch((err: unknown) => this.logger.warn({ err: coerceError(err) }, 'event handler refresh failed'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.options.refreshMs);
        });
    };
    this.timer = setTimeout(tick, this.options.refreshMs);
  }

  /** Re-reads the handlers when the change counter moved (also called after a change on this node). */
  refresh(force = false): Promise<void> {
    // A forced refresh (a change on this node) must read after the change: one already under way
    // may have read before it, so go again once it is done.
    if (force && this.refreshing) return this.refreshing.then(() => this.refresh(true));
    this.refreshing ??= (async () => {
      try {
        const version = await this.store.read((tx) => tx.events.eventHandlersVersion());
        if (force || version !== this.version) {
          const stored = await this.store.read((tx) => tx.events.listEventHandlers());
          this.version = version;
          await this.apply(stored.filter((s) => s.active).map((s) => s.handler as unknown as EventHandler));
        }
        await this.prune();
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /** The events this node consumes now (for tests and the health view). */
  consumed(): string[] {
    return [...this.subscriptions.keys()].sort();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.refreshing?.catch(() => undefined);
    const subs = [...this.subscriptions.values()];
    this.subscriptions.clear();
    await Promise.all(subs.map((s) => s.close().catch(() => undefined)));
    await Promise.all([...this.inFlight].map((p) => p.catch(() => undefined)));
  }

  /** Subscribes to the events of active handlers and unsubscribes from the rest (closes awaited). */
  private async apply(active: EventHandler[]): Promise<void> {
    const byEvent = new Map<string, EventHandler[]>();
    for (const handler of active) {
      const list = byEvent.get(handler.event) ?? [];
      list.push(handler);
      byEvent.set(handler.event, list);
    }
    this.handlersByEvent = byEvent;
    const closing: Array<Promise<void>> = [];
    for (const [event, sub] of this.subscriptions) {
      if (!byEvent.has(event)) {
        this.subscriptions.delete(event);
        closing.push(sub.close().catch(() => undefined));
      }
    }
    for (const event of byEvent.keys()) {
      if (this.subscriptions.has(event) || this.stopped) continue;
      const address = parseAddress(event);
      const broker = address && this.brokers.get(address.scheme);
      if (!address || !broker) {
        this.logger.warn(
          { event },
          `event handler source ${address?.scheme ?? event} is not configured on this node`,
        );
        continue;
      }
      this.subscriptions.set(
        event,
        broker.subscribe(address.destination, async (delivery) => {
          const handlers = this.handlersByEvent.get(event) ?? [];
          // Deactivated since the message was taken: give it back, an inactive handler consumes nothing.
          if (handlers.length === 0 || this.stopped) return delivery.nack();
          const work = this.processor.process(event, handlers, delivery);
          this.inFlight.add(work);
          try {
            await work;
          } finally {
            this.inFlight.delete(work);
          }
        }),
      );
    }
    await Promise.all(closing);
  }

  private async prune(): Promise<void> {
    const now = this.clock.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    const before = now - this.options.retentionMs;
    await this.store.transaction(async (tx) => {
      await tx.events.pruneEventExecutions(before);
      await tx.events.pruneInbox(before);
    });
  }
}
