/**
 * A message broker behind one interface: the internal `baton:` bus, RabbitMQ (`amqp:`) and NATS
 * JetStream (`nats:`). One conformance suite (`test/events/broker-conformance.test.ts`) runs over
 * every implementation against the real servers.
 *
 * Delivery is at least once: a message stays with the broker until `ack`; `nack` (or a consumer
 * that dies) makes it come again. Exactly-once *effect* is the consumer's job (the inbox table).
 */

export interface BrokerMessage {
  /** Stable id: the same message sent twice carries the same id. */
  readonly id: string;
  /** JSON text. */
  readonly body: string;
}

export interface Delivery {
  /** The message id, stable across redeliveries (the broker's message id, else the broker's own stable key). */
  readonly id: string;
  readonly body: string;
  /** The broker says it delivered this message before. */
  readonly redelivered: boolean;
  ack(): Promise<void>;
  /** Give the message back: it is delivered again later (to any consumer). */
  nack(): Promise<void>;
}

export type DeliveryHandler = (delivery: Delivery) => Promise<void>;

export interface Subscription {
  close(): Promise<void>;
}

export interface BrokerHealth {
  readonly up: boolean;
  /** Why it is down (connection refused, closed by the server, …). */
  readonly reason?: string;
}

export interface Broker {
  /** `baton`, `amqp` or `nats`: the prefix of event names and sinks it serves. */
  readonly scheme: string;
  /** Sends one message; resolves once the broker has it durably (publisher confirm, JetStream ack). */
  publish(destination: string, message: BrokerMessage): Promise<void>;
  /**
   * Consumes `destination` as one of its competing consumers: each message goes to one
   * subscriber of all nodes. Keeps consuming across reconnects until closed.
   */
  subscribe(destination: string, handler: DeliveryHandler): Subscription;
  health(): BrokerHealth;
  close(): Promise<void>;
}

/** Splits `amqp:orders` into `{scheme: 'amqp', destination: 'orders'}`; undefined when malformed. */
export function parseAddress(address: string): { scheme: string; destination: string } | undefined {
  const colon = address.indexOf(':');
  if (colon <= 0 || colon === address.length - 1) return undefined;
  return { scheme: address.slice(0, colon), destination: address.slice(colon + 1) };
}

/** Reconnect delay after `attempt` failures: 0.2 s doubling to 15 s. */
export function backoffMs(attempt: number): number {
  return Math.min(15_000, 200 * 2 ** Math.min(attempt, 7));
}
