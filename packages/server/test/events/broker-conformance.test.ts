import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';

import { AmqpBroker } from '../../src/events/amqp-broker.js';
import { BatonBroker } from '../../src/events/baton-broker.js';
import type { Broker, Delivery } from '../../src/events/broker.js';
import { NatsBroker } from '../../src/events/nats-broker.js';
import { AMQP_URL, NATS_URL, amqpDelete, natsDeleteStream } from './broker-helpers.js';

/**
 * One suite over every broker implementation, against the real servers on this machine:
 * RabbitMQ on 127.0.0.1:5672 and NATS JetStream on 127.0.0.1:4222.
 */

interface BrokerCase {
  name: string;
  make: () => Broker;
  /** A queue or subject name this case may use. */
  destination: () => string;
  /** Whether a message published with no subscriber waits for one (the internal bus drops it: its outbox is the queue). */
  keepsUnconsumed: boolean;
}

const cases: BrokerCase[] = [
  {
    name: 'baton',
    make: () => new BatonBroker(),
    destination: () => `conf-${randomUUID()}`,
    keepsUnconsumed: false,
  },
  {
    name: 'amqp',
    make: () => new AmqpBroker({ url: AMQP_URL }),
    destination: () => `baton-conf-${randomUUID()}`,
    keepsUnconsumed: true,
  },
  {
    name: 'nats',
    make: () => new NatsBroker({ url: NATS_URL, ackWaitMs: 2000 }),
    destination: () => `baton.conf.${randomUUID().replaceAll('-', '')}`,
    keepsUnconsumed: true,
  },
];

/** Resolves when `check` holds, polling; fails after `ms` (the machine is loaded: bounds are generous). */
async function until(check: () => boolean, ms = 20_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

for (const c of cases) {
  void describe(`broker conformance (${c.name})`, () => {
    const brokers: Broker[] = [];
    const open = (): Broker => {
      const b = c.make();
      brokers.push(b);
      return b;
    };
    const used: string[] = [];
    after(async () => {
      for (const b of brokers) await b.close();
      // Leave no queues or streams behind on the shared servers.
      for (const dest of used) {
        if (c.name === 'amqp') await amqpDelete(dest).catch(() => undefined);
        if (c.name === 'nats') await natsDeleteStream(dest).catch(() => undefined);
      }
    });
    const destination = (): string => {
      const d = c.destination();
      used.push(d);
      return d;
    };

    void it('delivers a published message to a subscriber with its id and body, once acknowledged', async () => {
      const broker = open();
      const dest = destination();
      const got: Delivery[] = [];
      const sub = broker.subscribe(dest, async (d) => {
        got.push(d);
        await d.ack();
      });
      // The internal bus delivers during publish; the others may need the consumer to attach first.
      if (c.name !== 'baton') await new Promise((resolve) => setTimeout(resolve, 500));
      await broker.publish(dest, { id: 'msg-1', body: '{"a":1}' });
      await until(() => got.length === 1, 20_000, 'delivery');
      assert.equal(got[0]?.id, 'msg-1');
      assert.equal(got[0]?.body, '{"a":1}');
      assert.equal(got[0]?.redelivered, false);
      assert.deepEqual(broker.health(), { up: true });
      await sub.close();
    });

    void it('delivers a message that was not acknowledged again', async () => {
      const broker = open();
      const dest = destination();
      const got: Delivery[] = [];
      const sub = broker.subscribe(dest, async (d) => {
        got.push(d);
        if (got.length === 1) await d.nack();
        else await d.ack();
      });
      if (c.name !== 'baton') await new Promise((resolve) => setTimeout(resolve, 500));
      const published = broker.publish(dest, { id: 'msg-again', body: '{}' });
      if (c.name === 'baton') {
        // The internal bus answers the publisher: the outbox keeps the row and sends it again.
        await assert.rejects(published, /not acknowledged/);
        await broker.publish(dest, { id: 'msg-again', body: '{}' });
      } else await published;
      await until(() => got.length === 2, 30_000, 'redelivery');
      assert.equal(got[1]?.id, 'msg-again', 'the same id comes back');
      assert.equal(got[1]?.redelivered, true);
      await sub.close();
    });

    void it('shares a destination between subscribers: each message goes to one of them', async () => {
      const a = open();
      const b = c.name === 'baton' ? a : open();
      const dest = destination();
      const seen = new Map<string, number>();
      const handler = async (d: Delivery): Promise<void> => {
        seen.set(d.id, (seen.get(d.id) ?? 0) + 1);
        await d.ack();
      };
      const s1 = a.subscribe(dest, handler);
      const s2 = b.subscribe(dest, handler);
      if (c.name !== 'baton') await new Promise((resolve) => setTimeout(resolve, 800));
      for (let i = 0; i < 20; i++) await a.publish(dest, { id: `m${i}`, body: `{"i":${i}}` });
      await until(() => seen.size === 20, 30_000, 'all 20 messages');
      // Give a duplicate the chance to show.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.ok(
        [...seen.values()].every((n) => n === 1),
        `each message once: ${JSON.stringify([...seen])}`,
      );
      await s1.close();
      await s2.close();
    });

    void it(
      c.keepsUnconsumed
        ? 'keeps a message published before anyone subscribed'
        : 'drops a message nobody subscribed to (its outbox row is the durable copy)',
      async () => {
        const broker = open();
        const dest = destination();
        await broker.publish(dest, { id: 'early', body: '{}' });
        const got: string[] = [];
        const sub = broker.subscribe(dest, async (d) => {
          got.push(d.id);
          await d.ack();
        });
        if (c.keepsUnconsumed) await until(() => got.length === 1, 20_000, 'the early message');
        else {
          await new Promise((resolve) => setTimeout(resolve, 200));
          assert.deepEqual(got, []);
        }
        await sub.close();
      },
    );

    if (c.name !== 'baton') {
      void it('reports DOWN with the reason when the broker cannot be reached, and keeps trying', async () => {
        const broker =
          c.name === 'amqp'
            ? new AmqpBroker({ url: 'amqp://guest:guest@127.0.0.1:1' })
            : new NatsBroker({ url: 'nats://127.0.0.1:1' });
        brokers.push(broker);
        broker.start();
        await until(() => broker.health().reason !== 'not connected yet', 10_000, 'a failed attempt');
        const h = broker.health();
        assert.equal(h.up, false);
        assert.match(h.reason ?? '', /ECONNREFUSED|refused|CONNECTION_REFUSED|connect/i);
        await assert.rejects(
          Promise.race([
            broker.publish('x', { id: 'x', body: '{}' }),
            new Promise((_r, reject) => setTimeout(() => reject(new Error('still retrying')), 1000)),
          ]),
        );
      });
    }
  });
}
