import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';

import type { Clock } from '../clock.js';
import type { Options } from '../config/options.js';
import type { AsyncScriptRunner } from '../scripting/async-scripts.js';
import { coerceError } from '../errors.js';
import type { WakeBus } from '../queue/wake-bus.js';
import type { HandOffAttempts } from '../decisions/after-commit.js';
import type { DecisionApplier } from '../decisions/decision-applier.js';
import type { Store } from '../store/store.js';
import type { AmqpBroker } from './amqp-broker.js';
import { BatonBroker } from './baton-broker.js';
import type { Broker } from './broker.js';
import { EventConsumers } from './consumers.js';
import { EventProcessor } from './event-processor.js';
import { EventHandlerService } from './handler-service.js';
import type { NatsBroker } from './nats-broker.js';
import { OutboxRelay } from './outbox-relay.js';
import { RunActions } from './run-actions.js';

export interface EventsModule {
  readonly handlers: EventHandlerService;
  readonly consumers: EventConsumers;
  readonly relay: OutboxRelay;
  readonly actions: RunActions;
  /** `/health` components: one per configured external broker, UP or DOWN with the reason. */
  readonly healthChecks: Record<string, () => Promise<Record<string, unknown>>>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Wires the brokers the settings name, the consumers of active handlers and the outbox relay.
 * A broker's client library is loaded only when its URL is set: a node without AMQP or NATS
 * does not carry them (about 20 MB between the two).
 */
export async function createEvents(input: {
  options: Options;
  store: Store;
  executor: DecisionApplier;
  scripts: AsyncScriptRunner;
  wake: WakeBus;
  clock: Clock;
  logger: Logger;
  /** Where `baton_event_messages_total{event, outcome}` is registered (`/metrics`). */
  registry?: Registry;
  /** This node's waiting polls, handed the tasks the handlers' actions queue. */
  parkedAttempt?: HandOffAttempts;
}): Promise<EventsModule> {
  const { options, store, executor, scripts, wake, clock, logger } = input;
  const messages = new Counter({
    name: 'baton_event_messages_total',
    help: 'Messages taken by event handlers: processed, duplicate (already acted on: acknowledged, nothing done) or retry (given back)',
    labelNames: ['event', 'outcome'] as const,
    registers: input.registry ? [input.registry] : [],
  });
  const onError = (err: Error, what: string): void => logger.warn({ err }, `${what}: ${err.message}`);
  const brokers = new Map<string, Broker>([['baton', new BatonBroker()]]);
  const external: Array<{ name: string; broker: AmqpBroker | NatsBroker }> = [];
  if (options.amqpUrl !== undefined) {
    const { AmqpBroker } = await import('./amqp-broker.js');
    const broker = new AmqpBroker({ url: options.amqpUrl, onError });
    brokers.set('amqp', broker);
    external.push({ name: 'amqp', broker });
  }
  if (options.natsUrl !== undefined) {
    const { NatsBroker } = await import('./nats-broker.js');
    const broker = new NatsBroker({ url: options.natsUrl, ackWaitMs: options.natsAckWaitMs, onError });
    brokers.set('nats', broker);
    external.push({ name: 'nats', broker });
  }
  const actions = new RunActions(executor);
  const processor = new EventProcessor(
    store,
    executor,
    actions,
    scripts,
    wake,
    clock,
    logger,
    (event, outcome) => messages.inc({ event, outcome }),
    input.parkedAttempt,
  );
  const consumers = new EventConsumers(store, brokers, processor, clock, logger, {
    refreshMs: options.eventHandlerRefreshMs,
    retentionMs: options.eventExecutionRetentionDays * 24 * 3600 * 1000,
  });
  const handlers = new EventHandlerService(store, scripts, clock, () =>
    consumers
      .refresh(true)
      .catch((err: unknown) => logger.warn({ err: coerceError(err) }, 'event handler refresh failed')),
  );
  const relay = new OutboxRelay(store, brokers, wake, clock, logger);
  const healthChecks: Record<string, () => Promise<Record<string, unknown>>> = {};
  for (const { name, broker } of external) {
    healthChecks[`broker-${name}`] = () => {
      const h = broker.health();
      return h.up
        ? Promise.resolve({
            broker: name,
            consuming: consumers.consumed().filter((e) => e.startsWith(`${name}:`)),
          })
        : Promise.reject(new Error(`${name} broker is down: ${h.reason ?? 'unknown'}`));
    };
  }
  return {
    handlers,
    consumers,
    relay,
    actions,
    healthChecks,
    start: async () => {
      for (const { broker } of external) broker.start();
      await consumers.start();
      relay.start();
    },
    stop: async () => {
      await consumers.stop();
      await relay.stop();
      for (const broker of brokers.values()) await broker.close().catch(() => undefined);
    },
  };
}
