import {
  AckPolicy,
  DebugEvents,
  DeliverPolicy,
  Events,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
  connect,
  headers,
  nanos,
} from 'nats';

import { coerceError } from '../errors.js';
import {
  type Broker,
  type BrokerHealth,
  type BrokerMessage,
  type DeliveryHandler,
  type Subscription,
  backoffMs,
} from './broker.js';

export interface NatsBrokerOptions {
  url: string;
  /** How long JetStream waits for an ack before it redelivers to another consumer. */
  ackWaitMs?: number;
  onError?: (err: Error, what: string) => void;
}

/** A name JetStream accepts for streams and consumers (no dots, wildcards or spaces). */
function safeName(subject: string): string {
  return `baton_${subject.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/**
 * NATS JetStream with the official client. A subject is kept in a stream (an existing stream
 * that covers it, else `baton_<subject>` made on first use) and consumed through one durable
 * consumer per subject, shared by every node: JetStream hands each message to one of them and
 * redelivers it when no ack comes within the ack wait (a node that died). Publishing waits for
 * JetStream's ack and sets `Nats-Msg-Id`, so the stream drops a re-sent duplicate. The client
 * reconnects by itself; the first connection is retried here with backoff.
 */
export class NatsBroker implements Broker {
  readonly scheme = 'nats';
  private nc: NatsConnection | undefined;
  private js: JetStreamClient | undefined;
  private jsm: JetStreamManager | undefined;
  private connecting: Promise<NatsConnection> | undefined;
  private reason: string | undefined = 'not connected yet';
  private connected = false;
  private closed = false;
  private attempt = 0;
  private readonly streams = new Map<string, Promise<string>>();
  private readonly subscriptions = new Set<{ closed: boolean; stop?: () => void }>();

  constructor(private readonly options: NatsBrokerOptions) {}

  start(): void {
    void this.connect().catch(() => undefined);
  }

  health(): BrokerHealth {
    return this.connected ? { up: true } : { up: false, reason: this.reason ?? 'not connected' };
  }

  async publish(destination: string, message: BrokerMessage): Promise<void> {
    await this.connect();
    if (!this.connected || !this.js)
      throw new Error(`nats is not connected: ${this.reason ?? 'reconnecting'}`);
    await this.streamFor(destination);
    const h = headers();
    h.set('Nats-Msg-Id', message.id);
    await this.js.publish(destination, new TextEncoder().encode(message.body), {
      msgID: message.id,
      headers: h,
    });
  }

  subscribe(destination: string, handler: DeliveryHandler): Subscription {
    const sub: { closed: boolean; stop?: () => void } = { closed: false };
    this.subscriptions.add(sub);
    void this.consumeLoop(destination, handler, sub);
    return {
      close: () => {
        sub.closed = true;
        sub.stop?.();
        this.subscriptions.delete(sub);
        return Promise.resolve();
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const sub of this.subscriptions) {
      sub.closed = true;
      sub.stop?.();
    }
    this.subscriptions.clear();
    const nc = this.nc;
    this.nc = undefined;
    this.connected = false;
    await nc?.close().catch(() => undefined);
  }

  private async connect(): Promise<NatsConnection> {
    if (this.closed) throw new Error('nats broker closed');
    if (this.nc) return this.nc;
    this.connecting ??= (async () => {
      for (;;) {
        try {
          const nc = await connect({
            servers: this.options.url,
            reconnect: true,
            maxReconnectAttempts: -1,
            reconnectTimeWait: 500,
            name: 'baton',
          });
          this.nc = nc;
          this.js = nc.jetstream();
          this.jsm = await nc.jetstreamManager();
          this.connected = true;
          this.reason = undefined;
          this.attempt = 0;
          void this.watch(nc);
          return nc;
        } catch (raw) {
          this.reason = coerceError(raw).message || 'connection failed';
          if (this.closed) throw coerceError(raw);
          await sleep(backoffMs(this.attempt++));
        }
      }
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === Events.Disconnect || status.type === DebugEvents.Reconnecting) {
        this.connected = false;
        this.reason = `disconnected from ${typeof status.data === 'string' ? status.data : 'the server'}`;
      } else if (status.type === Events.Reconnect) {
        this.connected = true;
        this.reason = undefined;
      }
    }
    // The status iterator ends when the connection is closed for good.
    if (this.nc === nc) {
      this.nc = undefined;
      this.connected = false;
      this.reason = 'connection closed';
    }
  }

  /** The stream that holds `subject` (made on first use when none covers it). */
  private streamFor(subject: string): Promise<string> {
    let stream = this.streams.get(subject);
    if (!stream) {
      stream = (async () => {
        const jsm = this.jsm;
        if (!jsm) throw new Error('nats is not connected');
        try {
          return await jsm.streams.find(subject);
        } catch {
          const name = safeName(subject);
          await jsm.streams.add({ name, subjects: [subject] });
          return name;
        }
      })();
      stream.catch(() => this.streams.delete(subject));
      this.streams.set(subject, stream);
    }
    return stream;
  }

  private async consumeLoop(
    subject: string,
    handler: DeliveryHandler,
    sub: { closed: boolean; stop?: () => void },
  ): Promise<void> {
    let failures = 0;
    while (!sub.closed && !this.closed) {
      try {
        await this.connect();
        const jsm = this.jsm;
        const js = this.js;
        if (!jsm || !js) throw new Error('nats is not connected');
        const stream = await this.streamFor(subject);
        const durable = safeName(subject);
        try {
          await jsm.consumers.info(stream, durable);
        } catch {
          await jsm.consumers.add(stream, {
            durable_name: durable,
            ack_policy: AckPolicy.Explicit,
            deliver_policy: DeliverPolicy.All,
            filter_subject: subject,
            ack_wait: nanos(this.options.ackWaitMs ?? 30_000),
          });
        }
        const consumer = await js.consumers.get(stream, durable);
        const messages = await consumer.consume({ max_messages: 16 });
        sub.stop = () => void messages.close();
        if (sub.closed) void messages.close();
        failures = 0;
        for await (const m of messages) {
          if (sub.closed) {
            m.nak();
            continue;
          }
          await this.deliver(stream, m, handler);
        }
      } catch (raw) {
        if (sub.closed || this.closed) return;
        this.options.onError?.(coerceError(raw), `nats consume ${subject}`);
      }
      if (!sub.closed && !this.closed) await sleep(backoffMs(failures++));
    }
  }

  private async deliver(stream: string, m: JsMsg, handler: DeliveryHandler): Promise<void> {
    // The stream sequence is the message's own stable key when it was sent without an id.
    const id = m.headers?.get('Nats-Msg-Id') || `${stream}:${m.seq}`;
    let settled = false;
    const once = (fn: () => Promise<unknown>) => async (): Promise<void> => {
      if (settled) return;
      settled = true;
      await fn().catch(() => undefined);
    };
    try {
      await handler({
        id,
        body: new TextDecoder().decode(m.data),
        redelivered: m.info.redelivered,
        ack: once(() => m.ackAck()),
        nack: once(() => Promise.resolve(m.nak(1000))),
      });
    } catch (raw) {
      this.options.onError?.(coerceError(raw), `nats handler ${m.subject}`);
      await once(() => Promise.resolve(m.nak(1000)))();
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
