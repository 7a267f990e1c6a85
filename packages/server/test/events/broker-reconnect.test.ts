import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type Server, type Socket, connect as tcpConnect, createServer } from 'node:net';
import { after, describe, it } from 'node:test';

import { AmqpBroker } from '../../src/events/amqp-broker.js';
import type { Broker } from '../../src/events/broker.js';
import { NatsBroker } from '../../src/events/nats-broker.js';
import { amqpDelete, natsDeleteStream } from './broker-helpers.js';

/**
 * A broker that goes away: the connection runs through a TCP proxy the test cuts and restores
 * (the real RabbitMQ and NATS stay up for everyone else). The broker must report DOWN with a
 * reason, reconnect by itself once the path is back, and its consumer must consume again.
 */

class CuttableProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly targetPort: number) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = tcpConnect(this.targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    this.server = server;
  }

  /** Stops accepting and drops every connection: the broker looks gone. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const cases = [
  {
    name: 'amqp',
    port: 5672,
    make: (port: number): Broker & { start(): void } =>
      new AmqpBroker({ url: `amqp://guest:guest@127.0.0.1:${port}` }),
    destination: () => `baton-reconnect-${randomUUID()}`,
    cleanup: amqpDelete,
  },
  {
    name: 'nats',
    port: 4222,
    make: (port: number): Broker & { start(): void } => new NatsBroker({ url: `nats://127.0.0.1:${port}` }),
    destination: () => `baton.reconnect.${randomUUID().replaceAll('-', '')}`,
    cleanup: natsDeleteStream,
  },
];

for (const c of cases) {
  void describe(`broker reconnects after it went away (${c.name})`, () => {
    const proxy = new CuttableProxy(c.port);
    let broker: (Broker & { start(): void }) | undefined;
    const dest = c.destination();
    after(async () => {
      await broker?.close();
      await proxy.cut();
      await c.cleanup(dest).catch(() => undefined);
    });

    void it(
      'reports DOWN with the reason, reconnects with backoff and consumes again',
      { timeout: 120_000 },
      async () => {
        await proxy.open();
        broker = c.make(proxy.port);
        const b = broker;
        const got: string[] = [];
        b.subscribe(dest, async (d) => {
          got.push(d.id);
          await d.ack();
        });
        b.start();
        await until(() => b.health().up, 20_000, 'first connection');
        await new Promise((resolve) => setTimeout(resolve, 500));
        await b.publish(dest, { id: 'before', body: '{}' });
        await until(() => got.includes('before'), 20_000, 'the message before the cut');

        await proxy.cut();
        await until(() => !b.health().up, 20_000, 'DOWN after the cut');
        assert.ok((b.health().reason ?? '') !== '', 'DOWN says why');

        await proxy.open();
        await until(() => b.health().up, 60_000, 'UP after the path is back');
        // Publishing and consuming work again on the new connection.
        let published = false;
        for (let i = 0; i < 100 && !published; i++) {
          try {
            await b.publish(dest, { id: 'after', body: '{}' });
            published = true;
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        }
        assert.ok(published, 'published after the reconnect');
        await until(() => got.includes('after'), 60_000, 'the message after the reconnect');
      },
    );
  });
}
