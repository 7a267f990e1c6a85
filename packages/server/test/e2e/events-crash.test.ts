import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';

import amqp from 'amqplib';
import { connect as natsConnect, headers } from 'nats';

import { type BatonProcess, getJson, httpOk, startBaton, waitFor } from '../helpers/baton-process.js';
import { createTestDatabase, enabledStores } from '../helpers/postgres.js';
import { AMQP_URL, NATS_URL, amqpDelete, amqpDepth, natsDeleteStream } from '../events/broker-helpers.js';

/**
 * Exactly-once effect across a crash: real Baton processes on PostgreSQL consume a RabbitMQ
 * queue (and a NATS JetStream subject) through an active handler and are killed with SIGKILL
 * while messages are taken and not yet acknowledged (the broker then gives them to the next
 * node). Each message must start exactly one run, however many times it was delivered.
 */

const MESSAGES = 400;
const KILLS = 3;

interface Page {
  totalHits: number;
  results: Array<{ messageId: string; status: string; output: { workflowId?: string } }>;
}

interface BrokerCase {
  name: string;
  env: Record<string, string>;
  event: (destination: string) => string;
  destination: () => string;
  publishAll: (destination: string) => Promise<void>;
  /** Messages still waiting in the broker (RabbitMQ); NATS answers through runs alone. */
  drained: (destination: string) => Promise<boolean>;
  cleanup: (destination: string) => Promise<void>;
}

const cases: BrokerCase[] = [
  {
    name: 'RabbitMQ',
    env: { BATON_AMQP_URL: AMQP_URL },
    event: (q) => `amqp:${q}`,
    destination: () => `baton-crash-${randomUUID()}`,
    publishAll: async (queue) => {
      const connection = await amqp.connect(AMQP_URL);
      const channel = await connection.createConfirmChannel();
      await channel.assertQueue(queue, { durable: true });
      for (let i = 0; i < MESSAGES; i++) {
        channel.sendToQueue(queue, Buffer.from(JSON.stringify({ i })), {
          persistent: true,
          messageId: `crash-${i}`,
        });
      }
      await channel.waitForConfirms();
      await connection.close();
    },
    drained: async (queue) => (await amqpDepth(queue)) === 0,
    cleanup: amqpDelete,
  },
  {
    name: 'NATS JetStream',
    // Short ack wait, so the messages a killed node held come back within the test.
    env: { BATON_NATS_URL: NATS_URL, BATON_NATS_ACK_WAIT_MS: '2000' },
    event: (s) => `nats:${s}`,
    destination: () => `baton.crash.${randomUUID().replaceAll('-', '')}`,
    publishAll: async (subject) => {
      const nc = await natsConnect({ servers: NATS_URL });
      try {
        // The stream may not exist yet (the node makes it when it subscribes): make it the same way.
        const jsm = await nc.jetstreamManager();
        await jsm.streams.find(subject).catch(() =>
          jsm.streams.add({
            name: `baton_${subject.replace(/[^A-Za-z0-9_-]/g, '_')}`,
            subjects: [subject],
          }),
        );
        const js = nc.jetstream();
        for (let i = 0; i < MESSAGES; i++) {
          const h = headers();
          h.set('Nats-Msg-Id', `crash-${i}`);
          await js.publish(subject, new TextEncoder().encode(JSON.stringify({ i })), {
            msgID: `crash-${i}`,
            headers: h,
          });
        }
      } finally {
        await nc.close();
      }
    },
    drained: () => Promise.resolve(true),
    cleanup: natsDeleteStream,
  },
];

// Several nodes need PostgreSQL; with BATON_TEST_STORES=sqlite there is nothing to run here.
if (enabledStores().includes('postgres'))
  for (const c of cases)
    void describe(`event handler exactly-once effect across SIGKILL (PostgreSQL, ${c.name})`, () => {
      void it('starts one run per message after redelivery', { timeout: 300_000 }, async (t) => {
        const db = await createTestDatabase('baton_events_crash');
        const destination = c.destination();
        const event = c.event(destination);
        const handler = `crash-handler-${randomUUID().slice(0, 8)}`;
        const env = { ...c.env, BATON_EVENT_REFRESH_MS: '200', BATON_LOG_LEVEL: 'warn' };
        const start = (name: string): Promise<BatonProcess> => startBaton({ databaseUrl: db.url, env, name });
        let node = await start('events-a');
        try {
          await httpOk('POST', `${node.url}/api/metadata/workflow`, {
            name: 'crash_event_flow',
            tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }],
          });
          await httpOk('POST', `${node.url}/api/event`, {
            name: handler,
            event,
            active: true,
            actions: [
              {
                action: 'start_workflow',
                start_workflow: { name: 'crash_event_flow', input: { i: '${i}' } },
              },
            ],
          });
          await c.publishAll(destination);

          const runs = async (url: string): Promise<number> =>
            (await getJson<{ totalHits: number }>(`${url}/api/workflow/search?name=crash_event_flow&size=1`))
              .totalHits;
          for (let kill = 1; kill <= KILLS; kill++) {
            const before = await runs(node.url);
            const target = Math.min(MESSAGES - 20, before + Math.floor(MESSAGES / (KILLS + 1)));
            // Kill while the node works through the queue: it holds taken, unacknowledged messages.
            await waitFor(async () => ((await runs(node.url)) >= target ? true : undefined), {
              timeoutMs: 120_000,
              intervalMs: 5,
              what: `${target} runs before kill ${kill}`,
            });
            node.kill();
            await node.exited;
            node = await start(`events-${kill}`);
          }

          await waitFor(
            async () =>
              (await c.drained(destination)) && (await runs(node.url)) >= MESSAGES ? true : undefined,
            {
              timeoutMs: 120_000,
              what: 'every message consumed',
              describe: async () => `runs ${await runs(node.url)}`,
            },
          );
          // Late redeliveries would show as extra runs: give them time to (longer than the NATS ack wait).
          await new Promise((resolve) => setTimeout(resolve, 3000));
          assert.equal(await runs(node.url), MESSAGES, 'one run per message');
          const page = await getJson<Page>(`${node.url}/api/event/executions?handler=${handler}&size=1000`);
          assert.equal(page.totalHits, MESSAGES);
          assert.equal(
            new Set(page.results.map((e) => e.messageId)).size,
            MESSAGES,
            'one execution per message',
          );
          assert.equal(
            new Set(page.results.map((e) => e.output.workflowId)).size,
            MESSAGES,
            'one run per execution',
          );
          assert.ok(page.results.every((e) => e.status === 'COMPLETED'));
          const metrics = await (await fetch(`${node.url}/metrics`)).text();
          const duplicates =
            /baton_event_messages_total\{[^}]*outcome="duplicate"[^}]*\} (\d+)/.exec(metrics)?.[1] ?? '0';
          t.diagnostic(`redelivered messages recognised as already acted on by the last node: ${duplicates}`);
        } finally {
          await node.stop();
          await c.cleanup(destination).catch(() => undefined);
          await db.drop();
        }
      });
    });
