import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';

import { pino } from 'pino';

import { systemClock } from '../../src/clock.js';
import { noScripts } from '../../src/engine/scripts.js';
import { asyncScripts } from '../../src/scripting/async-scripts.js';
import type { Delivery } from '../../src/events/broker.js';
import { EventProcessor, MAX_ATTEMPTS } from '../../src/events/event-processor.js';
import type { EventHandler } from '@baton/protocol';
import { lifecycleOutbox } from '../../src/events/lifecycle-events.js';
import { RunActions } from '../../src/events/run-actions.js';
import { newId } from '../../src/ids.js';
import { WakeBus } from '../../src/queue/wake-bus.js';
import { afterCommit, DecisionApplier } from '../../src/decisions/decision-applier.js';
import { storeSuite } from '../helpers/store-suite.js';
import { storeCases } from '../helpers/stores.js';

/** A delivery of `body` whose acknowledgements and give-backs are written to `settled`, in order. */
function recordedDelivery(settled: string[], body: string, redelivered: boolean): Delivery {
  return {
    id: newId(),
    body,
    redelivered,
    ack: () => {
      settled.push('ack');
      return Promise.resolve();
    },
    nack: () => {
      settled.push('nack');
      return Promise.resolve();
    },
  };
}

/**
 * The two transactional guarantees, without brokers in the way: an outbox row exists if and
 * only if the change it describes committed, and a message processed and committed but never
 * acknowledged (the node died) produces nothing new when it comes again.
 */
for (const c of storeCases()) {
  void describe(`outbox and inbox in the transaction of the change (${c.name})`, () => {
    const { store } = storeSuite(c);
    const executor = new DecisionApplier(
      systemClock,
      { highPriorityThreshold: 50, maxForkBranches: 10_000, maxOutputBytes: 64 * 1024 * 1024 },
      asyncScripts(noScripts),
      Math.random,
      undefined,
      undefined,
      {
        onDecided: lifecycleOutbox(() => systemClock.now()),
      },
    );
    const sink = `amqp:outbox-test-${randomUUID()}`;

    const define = async (name: string): Promise<void> => {
      await store.transaction((tx) =>
        tx.insertWorkflowDef({
          name,
          version: 1,
          workflowStatusListenerEnabled: true,
          workflowStatusListenerSink: sink,
          tasks: [
            { name: 'h', taskReferenceName: 'h', type: 'HUMAN' },
            { name: 'n', taskReferenceName: 'n', type: 'NOOP' },
          ],
          createTime: 0,
          updateTime: 0,
        }),
      );
    };
    const processorWith = (actions: RunActions, scripts = asyncScripts(noScripts)): EventProcessor =>
      new EventProcessor(
        store,
        executor,
        actions,
        scripts,
        new WakeBus(),
        systemClock,
        pino({ level: 'silent' }),
      );
    /** A handler that starts `name` with the message's `n` as input. */
    const startsRuns = (name: string, event: string): EventHandler => ({
      name: `h-${name}`,
      event,
      active: true,
      actions: [{ action: 'start_workflow', start_workflow: { name, input: { n: '${n}' } } }],
    });
    const ours = async () =>
      (await store.read((tx) => tx.events.readOutbox(10_000))).filter((r) => r.sink === sink);

    /** The one execution recorded for `handler`: FAILED, its exception matching `exception`. */
    const assertOneFailedExecution = async (handler: EventHandler, exception: RegExp): Promise<void> => {
      const executions = await store.read((tx) => tx.events.listEventExecutions(handler.name, 0, 10));
      assert.equal(executions.totalHits, 1);
      assert.equal(executions.results[0]?.record.status, 'FAILED');
      assert.match(
        String((executions.results[0]?.record.output as { exception?: string }).exception),
        exception,
      );
    };

    void it('writes no event for a transaction that rolled back, and every event of one that committed', async () => {
      const name = `outbox-${randomUUID()}`;
      await define(name);
      const definition = await store.read((tx) => tx.getWorkflowDef(name));
      assert.ok(definition);
      await assert.rejects(
        store.transaction(async (tx) => {
          await executor.startRun(
            tx,
            { definition, input: {}, priority: 0, taskToDomain: {} },
            afterCommit(),
          );
          throw new Error('the caller failed after starting the run');
        }),
        /caller failed/,
      );
      assert.deepEqual(await ours(), [], 'nothing from the rolled-back start');
      const run = await store.transaction((tx) =>
        executor.startRun(tx, { definition, input: {}, priority: 0, taskToDomain: {} }, afterCommit()),
      );
      const rows = await ours();
      assert.deepEqual(
        rows.map((r) => r.payload.type),
        ['workflow.started', 'task.scheduled'],
      );
      assert.ok(rows.every((r) => r.payload.workflowId === run.workflowId));
      await store.transaction((tx) => tx.events.deleteOutbox(rows.map((r) => r.seq)));
    });

    void it('acts once on a message whose node committed but died before acknowledging it', async () => {
      const name = `inbox-${randomUUID()}`;
      await define(name);
      const processor = processorWith(new RunActions(executor));
      const handler = startsRuns(name, 'amqp:inbox-test');
      const messageId = newId();
      const settled: string[] = [];
      const delivery = (ackFails: boolean): Delivery => ({
        id: messageId,
        body: '{"n":7}',
        redelivered: !ackFails,
        ack: () => {
          // The first node dies right after its commit: the ack never reaches the broker.
          if (ackFails) return Promise.reject(new Error('killed before the ack'));
          settled.push('ack');
          return Promise.resolve();
        },
        nack: () => {
          settled.push('nack');
          return Promise.resolve();
        },
      });
      await assert.rejects(
        processor.process(handler.event, [handler], delivery(true)),
        /killed before the ack/,
      );
      assert.equal(await processor.process(handler.event, [handler], delivery(false)), 'duplicate');
      assert.deepEqual(settled, ['ack'], 'the redelivery is acknowledged, not given back');
      const runs = await store.read((tx) =>
        tx.searchRuns({ name, start: 0, size: 10, sort: [{ field: 'createTime', order: 'ASC' }] }),
      );
      assert.equal(runs.totalHits, 1, 'exactly one run for the message');
      assert.equal(runs.results[0]?.input.n, 7);
      const executions = await store.read((tx) => tx.events.listEventExecutions(handler.name, 0, 10));
      assert.equal(executions.totalHits, 1);
    });

    void it('records a message whose actions keep failing as FAILED after a few attempts, instead of looping', async () => {
      const broken = {
        start: () => Promise.reject(new TypeError('a bug in an action')),
      } as unknown as RunActions;
      const processor = processorWith(broken);
      const handler: EventHandler = {
        name: `h-poison-${randomUUID()}`,
        event: 'amqp:poison-test',
        active: true,
        actions: [{ action: 'start_workflow', start_workflow: { name: 'whatever' } }],
      };
      const settled: string[] = [];
      const delivery = recordedDelivery(settled, '{}', true);
      const outcomes: string[] = [];
      for (let i = 0; i < MAX_ATTEMPTS + 1; i++)
        outcomes.push(await processor.process(handler.event, [handler], delivery));
      assert.deepEqual(outcomes, [...Array<string>(MAX_ATTEMPTS - 1).fill('retry'), 'failed', 'duplicate']);
      assert.deepEqual(settled, [...Array<string>(MAX_ATTEMPTS - 1).fill('nack'), 'ack', 'ack']);
      await assertOneFailedExecution(handler, /a bug in an action/);
    });

    void it('gives back a message whose condition cannot be evaluated, and records it FAILED after a few attempts', async () => {
      // The script runner itself failing (not the script: a script's own error is a false
      // condition) is retried as an action's error is, with the same pause and the same bound.
      const failing = {
        ...asyncScripts(noScripts),
        javascript: () => Promise.reject(new Error('the script runner is gone')),
      };
      const name = `condition-${randomUUID()}`;
      await define(name);
      const processor = processorWith(new RunActions(executor), failing);
      const handler: EventHandler = {
        ...startsRuns(name, 'amqp:condition-test'),
        condition: '$.n > 1',
        evaluatorType: 'javascript',
      };
      const settled: string[] = [];
      const delivery = recordedDelivery(settled, '{"n":2}', true);
      const outcomes: string[] = [];
      for (let i = 0; i < MAX_ATTEMPTS; i++)
        outcomes.push(await processor.process(handler.event, [handler], delivery));
      assert.deepEqual(outcomes, [...Array<string>(MAX_ATTEMPTS - 1).fill('retry'), 'failed']);
      assert.deepEqual(settled, [...Array<string>(MAX_ATTEMPTS - 1).fill('nack'), 'ack']);
      await assertOneFailedExecution(handler, /the script runner is gone/);
      const runs = await store.read((tx) =>
        tx.searchRuns({ name, start: 0, size: 10, sort: [{ field: 'createTime', order: 'ASC' }] }),
      );
      assert.equal(runs.totalHits, 0, 'no action was taken');
    });

    void it('records a message nested deeper than free JSON FAILED at once, saying why, and acts on none of it', async () => {
      const name = `deep-${randomUUID()}`;
      await define(name);
      const processor = processorWith(new RunActions(executor));
      const handler = startsRuns(name, 'amqp:deep-test');
      const settled: string[] = [];
      const delivery = (body: string): Delivery => recordedDelivery(settled, body, false);
      // A hundred thousand levels: every recursive walk of it overflows the stack.
      const deep = `{"n":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
      assert.equal(await processor.process(handler.event, [handler], delivery(deep)), 'failed');
      assert.deepEqual(settled, ['ack'], 'acknowledged at once: it would come back the same');
      await assertOneFailedExecution(
        handler,
        /^refused: message\.n(\[0\])+ is nested deeper than 128 levels \(the limit\)$/,
      );
      // At the limit the message is acted on: the message object and 127 arrays.
      const limit = `{"n":${'['.repeat(127)}${']'.repeat(127)}}`;
      assert.equal(await processor.process(handler.event, [handler], delivery(limit)), 'processed');
      const runs = await store.read((tx) =>
        tx.searchRuns({ name, start: 0, size: 10, sort: [{ field: 'createTime', order: 'ASC' }] }),
      );
      assert.equal(runs.totalHits, 1, 'one run: the message at the limit');
    });
  });
}
