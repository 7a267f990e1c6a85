import { createHash } from 'node:crypto';

import amqp from 'amqplib';

import { coerceError } from '../errors.js';
import {
  type Broker,
  type BrokerHealth,
  type BrokerMessage,
  type DeliveryHandler,
  type Subscription,
  backoffMs,
} from './broker.js';

type Connection = Awaited<ReturnType<typeof amqp.connect>>;
type ConfirmChannel = Awaited<ReturnType<Connection['createConfirmChannel']>>;
type ConsumeMessage = NonNullable<Parameters<Parameters<ConfirmChannel['consume']>[1]>[0]>;

interface Consumer {
  readonly queue: string;
  readonly handler: DeliveryHandler;
  closed: boolean;
  channel?: ConfirmChannel;
}

export interface AmqpBrokerOptions {
  url: string;
  /** Unacknowledged messages one consumer holds at once. */
  prefetch?: number;
  onError?: (err: Error, what: string) => void;
}

/**
 * RabbitMQ through amqplib. Queues are durable and messages persistent; publishing waits for the
 * broker's confirm. A consumer acknowledges only when its handler says so, so a node that dies
 * holding a message gives it back to the queue (RabbitMQ redelivers it to another consumer). A
 * lost connection is re-opened with backoff and every consumer subscribed again.
 */
export class AmqpBroker implements Broker {
  readonly scheme = 'amqp';
  private connection: Connection | undefined;
  private publishChannel: ConfirmChannel | undefined;
  private connecting: Promise<Connection> | undefined;
  private readonly consumers = new Set<Consumer>();
  private attempt = 0;
  private reason: string | undefined = 'not connected yet';
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly asserted = new Set<string>();

  constructor(private readonly options: AmqpBrokerOptions) {}

  /** Connects now (the first subscribe or publish would anyway); never throws: it keeps retrying. */
  start(): void {
    void this.connect().catch(() => undefined);
  }

  health(): BrokerHealth {
    return this.connection ? { up: true } : { up: false, reason: this.reason ?? 'not connected' };
  }

  async publish(destination: string, message: BrokerMessage): Promise<void> {
    const connection = await this.connect();
    const channel = this.publishChannel ?? (await this.openPublishChannel(connection));
    await this.assertQueue(channel, destination);
    await new Promise<void>((resolve, reject) => {
      channel.sendToQueue(
        destination,
        Buffer.from(message.body),
        { persistent: true, messageId: message.id, contentType: 'application/json' },
        (err: unknown) => (err ? reject(coerceError(err)) : resolve()),
      );
    });
  }

  subscribe(destination: string, handler: DeliveryHandler): Subscription {
    const consumer: Consumer = { queue: destination, handler, closed: false };
    this.consumers.add(consumer);
    if (this.connection) void this.startConsumer(this.connection, consumer);
    else this.start();
    return {
      close: async () => {
        consumer.closed = true;
        this.consumers.delete(consumer);
        const channel = consumer.channel;
        consumer.channel = undefined;
        // Closing the channel gives its unacknowledged messages back to the queue.
        await channel?.close().catch(() => undefined);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    for (const c of this.consumers) c.closed = true;
    this.consumers.clear();
    const connection = this.connection;
    this.connection = undefined;
    await connection?.close().catch(() => undefined);
  }

  private connect(): Promise<Connection> {
    if (this.closed) return Promise.reject(new Error('amqp broker closed'));
    if (this.connection) return Promise.resolve(this.connection);
    this.connecting ??= (async () => {
      try {
        const connection = await amqp.connect(this.options.url);
        connection.on('error', (err: unknown) => {
          this.reason = coerceError(err).message;
        });
        connection.on('close', () => this.lost(connection));
        this.connection = connection;
        this.attempt = 0;
        this.reason = undefined;
        for (const consumer of this.consumers) void this.startConsumer(connection, consumer);
        return connection;
      } catch (raw) {
        const err = coerceError(raw);
        this.reason = err.message === '' ? 'connection failed' : err.message;
        this.scheduleReconnect();
        throw err;
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  /** A channel the broker closed (a refused queue declaration, say) is replaced on the next publish. */
  private async openPublishChannel(connection: Connection): Promise<ConfirmChannel> {
    const channel = await connection.createConfirmChannel();
    const forget = (): void => {
      if (this.publishChannel === channel) {
        this.publishChannel = undefined;
        this.asserted.clear();
      }
    };
    channel.on('close', forget);
    channel.on('error', (err: unknown) => {
      forget();
      this.options.onError?.(coerceError(err), 'amqp publish channel');
    });
    this.publishChannel = channel;
    return channel;
  }

  private lost(connection: Connection): void {
    if (this.connection !== connection) return;
    this.connection = undefined;
    this.publishChannel = undefined;
    this.asserted.clear();
    for (const consumer of this.consumers) consumer.channel = undefined;
    if (this.reason === undefined || this.reason === '') this.reason = 'connection closed';
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer) return;
    const delay = backoffMs(this.attempt++);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect().catch(() => undefined);
    }, delay);
    this.retryTimer.unref();
  }

  private async assertQueue(channel: ConfirmChannel, queue: string): Promise<void> {
    if (this.asserted.has(queue)) return;
    await channel.assertQueue(queue, { durable: true });
    this.asserted.add(queue);
  }

  private async startConsumer(connection: Connection, consumer: Consumer): Promise<void> {
    if (consumer.closed || consumer.channel) return;
    try {
      const channel = await connection.createConfirmChannel();
      consumer.channel = channel;
      channel.on('error', (err: unknown) =>
        this.options.onError?.(coerceError(err), `amqp channel ${consumer.queue}`),
      );
      await channel.prefetch(this.options.prefetch ?? 16);
      await channel.assertQueue(consumer.queue, { durable: true });
      if (consumer.closed) {
        await channel.close().catch(() => undefined);
        return;
      }
      await channel.consume(
        consumer.queue,
        (msg: ConsumeMessage | null) => {
          if (msg === null) {
            // The queue was deleted or the channel cancelled: subscribe again once it exists.
            consumer.channel = undefined;
            if (!consumer.closed && this.connection)
              setTimeout(() => void this.startConsumer(connection, consumer), 1000).unref();
            return;
          }
          void this.deliver(channel, consumer, msg);
        },
        { noAck: false },
      );
    } catch (raw) {
      consumer.channel = undefined;
      this.options.onError?.(coerceError(raw), `amqp consume ${consumer.queue}`);
      if (!consumer.closed && this.connection === connection) {
        setTimeout(() => void this.startConsumer(connection, consumer), backoffMs(3)).unref();
      }
    }
  }

  private async deliver(channel: ConfirmChannel, consumer: Consumer, msg: ConsumeMessage): Promise<void> {
    const body = msg.content.toString('utf8');
    const messageId: unknown = msg.properties.messageId;
    // Without a message id, the content is the identity (the same body twice is one message).
    const id =
      typeof messageId === 'string' && messageId !== ''
        ? messageId
        : `sha256:${createHash('sha256').update(msg.content).digest('hex')}`;
    let settled = false;
    const settle = (fn: () => void): Promise<void> => {
      if (settled || consumer.channel !== channel) return Promise.resolve();
      settled = true;
      try {
        fn();
      } catch {
        // The channel closed under us: the broker redelivers the message.
      }
      return Promise.resolve();
    };
    try {
      await consumer.handler({
        id,
        body,
        redelivered: msg.fields.redelivered,
        ack: () => settle(() => channel.ack(msg)),
        nack: () => settle(() => channel.nack(msg, false, true)),
      });
    } catch (raw) {
      this.options.onError?.(coerceError(raw), `amqp handler ${consumer.queue}`);
      await settle(() => channel.nack(msg, false, true));
    }
  }
}
