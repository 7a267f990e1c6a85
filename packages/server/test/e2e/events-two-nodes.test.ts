import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';

import amqp from 'amqplib';

import { type BatonProcess, getJson, httpOk, startBaton, waitFor } from '../helpers/baton-process.js';
import { createTestDatabase, enabledStores } from '../helpers/postgres.js';
import { AMQP_URL, amqpDelete, amqpDepth } from '../events/broker-helpers.js';

/**
 * Two Baton nodes on one PostgreSQL database share a RabbitMQ queue as competing consumers. A
 * handler activated through one node is consumed by both without a restart; deactivated through
 * the other, neither consumes any more.
 */

async function processed(node: BatonProcess, event: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('baton_event_messages_total{') &&
        l.includes(`event="${event}"`) &&
        l.includes('outcome="processed"'),
    );
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

/** The amqp: events a node consumes now (its /health broker component). */
async function consuming(node: BatonProcess): Promise<string[]> {
  const health = await getJson<{ components: Record<string, { consuming?: string[] }> }>(
    `${node.url}/health`,
  );
  return health.components['broker-amqp']?.consuming ?? [];
}

async function publish(queue: string, from: number, count: number): Promise<void> {
  const connection = await amqp.connect(AMQP_URL);
  const channel = await connection.createConfirmChannel();
  await channel.assertQueue(queue, { durable: true });
  for (let i = from; i < from + count; i++) {
    channel.sendToQueue(queue, Buffer.from(JSON.stringify({ i })), {
      persistent: true,
      messageId: `two-${i}`,
    });
  }
  await channel.waitForConfirms();
  await connection.close();
}

if (enabledStores().includes('postgres'))
  void describe('event handlers on two PostgreSQL nodes (RabbitMQ)', () => {
    void it(
      'both nodes pick up a handler change without a restart and share its queue',
      { timeout: 180_000 },
      async () => {
        const db = await createTestDatabase('baton_events_two');
        const queue = `baton-two-${randomUUID()}`;
        const event = `amqp:${queue}`;
        const env = { BATON_AMQP_URL: AMQP_URL, BATON_EVENT_REFRESH_MS: '200', BATON_LOG_LEVEL: 'warn' };
        const nodes = await Promise.all(
          ['ev-a', 'ev-b'].map((name) => startBaton({ databaseUrl: db.url, env, name })),
        );
        const [a, b] = nodes as [BatonProcess, BatonProcess];
        try {
          await httpOk('POST', `${a.url}/api/metadata/workflow`, {
            name: 'two_node_flow',
            tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }],
          });
          const handler = {
            name: 'two-node-handler',
            event,
            active: false,
            actions: [
              { action: 'start_workflow', start_workflow: { name: 'two_node_flow', input: { i: '${i}' } } },
            ],
          };
          await httpOk('POST', `${a.url}/api/event`, handler);
          await publish(queue, 0, 10);
          await new Promise((resolve) => setTimeout(resolve, 1500));
          assert.equal(await amqpDepth(queue), 10, 'inactive: nobody consumes');

          // Activated through node B: node A sees it too (the change counter), both consume.
          await httpOk('PUT', `${b.url}/api/event`, { ...handler, active: true });
          assert.deepEqual(await consuming(b), [event], 'the node that took the change consumes at once');
          await waitFor(async () => ((await consuming(a)).includes(event) ? true : undefined), {
            timeoutMs: 30_000,
            what: 'node A to pick up the change',
          });
          await publish(queue, 10, 290);
          const runs = async (): Promise<number> =>
            (await getJson<{ totalHits: number }>(`${a.url}/api/workflow/search?name=two_node_flow&size=1`))
              .totalHits;
          await waitFor(async () => ((await runs()) === 300 ? true : undefined), {
            timeoutMs: 120_000,
            what: '300 runs',
            describe: async () => `runs ${await runs()}, queue ${await amqpDepth(queue)}`,
          });
          const [byA, byB] = await Promise.all([processed(a, event), processed(b, event)]);
          assert.equal(byA + byB, 300, 'each message processed once');
          assert.ok(byA > 0 && byB > 0, `both nodes consumed (a ${byA}, b ${byB})`);

          // Deactivated through node A: neither consumes.
          await httpOk('PUT', `${a.url}/api/event`, handler);
          assert.deepEqual(await consuming(a), []);
          await waitFor(async () => ((await consuming(b)).length === 0 ? true : undefined), {
            timeoutMs: 30_000,
            what: 'node B to pick up the change',
          });
          await publish(queue, 300, 5);
          await new Promise((resolve) => setTimeout(resolve, 1500));
          assert.equal(await amqpDepth(queue), 5);
          assert.equal(await runs(), 300);
        } finally {
          await Promise.all(nodes.map((n) => n.stop()));
          await amqpDelete(queue).catch(() => undefined);
          await db.drop();
        }
      },
    );
  });
