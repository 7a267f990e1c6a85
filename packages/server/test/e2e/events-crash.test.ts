import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';

import amqp from 'amqplib';

import { type BatonProcess, getJson, httpOk, startBaton, waitFor } from '../helpers/baton-process.js';
import { createTestDatabase, enabledStores } from '../helpers/postgres.js';
import { AMQP_URL, amqpDelete, amqpDepth } from '../events/broker-helpers.js';

/**
 * Exactly-once effect across a crash: real Baton processes on PostgreSQL consume a RabbitMQ
 * queue through an active handler and are killed with SIGKILL while messages are taken and not
 * yet acknowledged (RabbitMQ then gives them to the next node). Each message must start exactly
 * one run, however many times it was delivered.
 */

const MESSAGES = 400;
const KILLS = 3;

interface Page {
  totalHits: number;
  results: Array<{ messageId: string; status: string; output: { workflowId?: string } }>;
}

// Several nodes need PostgreSQL; with BATON_TEST_STORES=sqlite there is nothing to run here.
if (enabledStores().includes('postgres'))
  void describe('event handler exactly-once effect across SIGKILL (PostgreSQL, RabbitMQ)', () => {
    void it('starts one run per message after redelivery', { timeout: 300_000 }, async (t) => {
      const db = await createTestDatabase('baton_events_crash');
      const queue = `baton-crash-${randomUUID()}`;
      const handler = `crash-handler-${randomUUID().slice(0, 8)}`;
      const env = {
        BATON_AMQP_URL: AMQP_URL,
        BATON_EVENT_REFRESH_MS: '200',
        BATON_LOG_LEVEL: 'warn',
      };
      const start = (name: string): Promise<BatonProcess> => startBaton({ databaseUrl: db.url, env, name });
      let node = await start('events-a');
      try {
        await httpOk('POST', `${node.url}/api/metadata/workflow`, {
          name: 'crash_event_flow',
          tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }],
        });
        await httpOk('POST', `${node.url}/api/event`, {
          name: handler,
          event: `amqp:${queue}`,
          active: true,
          actions: [
            { action: 'start_workflow', start_workflow: { name: 'crash_event_flow', input: { i: '${i}' } } },
          ],
        });

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
            (await amqpDepth(queue)) === 0 && (await runs(node.url)) >= MESSAGES ? true : undefined,
          {
            timeoutMs: 120_000,
            what: 'every message consumed',
            describe: async () => `runs ${await runs(node.url)}, queue ${await amqpDepth(queue)}`,
          },
        );
        // Late redeliveries would show as extra runs: give them time to.
        await new Promise((resolve) => setTimeout(resolve, 1500));
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
        await amqpDelete(queue).catch(() => undefined);
        await db.drop();
      }
    });
  });
