import assert from 'node:assert/strict';

import amqp from 'amqplib';
import { connect, headers } from 'nats';

/** The real brokers on this machine. */
export const AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';
export const NATS_URL = 'nats://127.0.0.1:4222';

/** Publishes JSON to a RabbitMQ queue (durable, persistent), with a message id when given. */
export async function amqpPublish(queue: string, body: unknown, messageId?: string): Promise<void> {
  const connection = await amqp.connect(AMQP_URL);
  try {
    const channel = await connection.createConfirmChannel();
    await channel.assertQueue(queue, { durable: true });
    channel.sendToQueue(queue, Buffer.from(JSON.stringify(body)), {
      persistent: true,
      ...(messageId !== undefined && { messageId }),
    });
    await channel.waitForConfirms();
  } finally {
    await connection.close();
  }
}

/** Takes every message now in a RabbitMQ queue (acknowledged), as parsed JSON. */
export async function amqpDrain(queue: string): Promise<unknown[]> {
  const connection = await amqp.connect(AMQP_URL);
  try {
    const channel = await connection.createChannel();
    await channel.assertQueue(queue, { durable: true });
    const out: unknown[] = [];
    for (;;) {
      const msg = await channel.get(queue, { noAck: true });
      if (msg === false) break;
      out.push(JSON.parse(msg.content.toString('utf8')));
    }
    return out;
  } finally {
    await connection.close();
  }
}

/** How many messages wait in a RabbitMQ queue. */
export async function amqpDepth(queue: string): Promise<number> {
  const connection = await amqp.connect(AMQP_URL);
  try {
    const channel = await connection.createChannel();
    return (await channel.assertQueue(queue, { durable: true })).messageCount;
  } finally {
    await connection.close();
  }
}

export async function amqpDelete(queue: string): Promise<void> {
  const connection = await amqp.connect(AMQP_URL);
  try {
    const channel = await connection.createChannel();
    await channel.deleteQueue(queue);
  } finally {
    await connection.close();
  }
}

/** Publishes JSON to a NATS JetStream subject (its stream made when none covers it). */
export async function natsPublish(subject: string, body: unknown, messageId?: string): Promise<void> {
  const nc = await connect({ servers: NATS_URL });
  try {
    const jsm = await nc.jetstreamManager();
    try {
      await jsm.streams.find(subject);
    } catch {
      await jsm.streams.add({
        name: `baton_${subject.replace(/[^A-Za-z0-9_-]/g, '_')}`,
        subjects: [subject],
      });
    }
    const h = headers();
    if (messageId !== undefined) h.set('Nats-Msg-Id', messageId);
    await nc.jetstream().publish(subject, new TextEncoder().encode(JSON.stringify(body)), {
      ...(messageId !== undefined && { msgID: messageId }),
      headers: h,
    });
  } finally {
    await nc.close();
  }
}

/** Removes the stream Baton made for a subject (and its durable consumer with it). */
export async function natsDeleteStream(subject: string): Promise<void> {
  const nc = await connect({ servers: NATS_URL });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(`baton_${subject.replace(/[^A-Za-z0-9_-]/g, '_')}`).catch(() => false);
  } finally {
    await nc.close();
  }
}

/** Resolves with `read()`'s answer once `ok` holds for it, polling; fails after `ms`. */
export async function eventually<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  ms = 30_000,
  what = 'condition',
): Promise<T> {
  const end = Date.now() + ms;
  let last: T = await read();
  while (!ok(last)) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await read();
  }
  return last;
}
