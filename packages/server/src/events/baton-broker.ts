import type {
  Broker,
  BrokerHealth,
  BrokerMessage,
  Delivery,
  DeliveryHandler,
  Subscription,
} from './broker.js';

/**
 * The internal bus (`baton:`): EVENT tasks and lifecycle events published to `baton:<queue>`
 * reach this node's handlers of that queue. It keeps nothing itself: the outbox is its durable
 * queue. The outbox relay (one node at a time) publishes each row here and deletes it only when
 * `publish` resolves, which is when a subscriber has acknowledged it (its effects committed). A
 * nack makes `publish` reject, so the row stays and is sent again. Subscribers of one queue take
 * turns (competing consumers); with none, the message is acknowledged and dropped, as a queue
 * with no active handler consumes nothing.
 */
export class BatonBroker implements Broker {
  readonly scheme = 'baton';
  private readonly subscribers = new Map<string, DeliveryHandler[]>();
  private readonly turn = new Map<string, number>();
  private readonly delivered = new Set<string>();

  health(): BrokerHealth {
    return { up: true };
  }

  async publish(destination: string, message: BrokerMessage): Promise<void> {
    const handlers = this.subscribers.get(destination) ?? [];
    if (handlers.length === 0) return;
    const index = (this.turn.get(destination) ?? 0) % handlers.length;
    this.turn.set(destination, index + 1);
    const handler = handlers[index];
    if (!handler) return;
    const key = `${destination}\u0000${message.id}`;
    const outcome = await new Promise<'ack' | 'nack'>((resolve, reject) => {
      const delivery: Delivery = {
        id: message.id,
        body: message.body,
        redelivered: this.delivered.has(key),
        ack: () => {
          resolve('ack');
          return Promise.resolve();
        },
        nack: () => {
          resolve('nack');
          return Promise.resolve();
        },
      };
      this.delivered.add(key);
      // A handler that returns without settling has not taken the message.
      handler(delivery).then(() => resolve('nack'), reject);
    });
    if (outcome === 'nack')
      throw new Error(`baton:${destination}: message ${message.id} was not acknowledged`);
    this.delivered.delete(key);
  }

  subscribe(destination: string, handler: DeliveryHandler): Subscription {
    const list = this.subscribers.get(destination) ?? [];
    list.push(handler);
    this.subscribers.set(destination, list);
    return {
      close: () => {
        const now = (this.subscribers.get(destination) ?? []).filter((h) => h !== handler);
        if (now.length === 0) this.subscribers.delete(destination);
        else this.subscribers.set(destination, now);
        return Promise.resolve();
      },
    };
  }

  close(): Promise<void> {
    this.subscribers.clear();
    return Promise.resolve();
  }
}
