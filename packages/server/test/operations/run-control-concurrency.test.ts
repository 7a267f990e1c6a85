import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import pg from 'pg';

import { runWakeName } from '../../src/decisions/run-wake.js';
import { openPostgresStore, type PostgresStore } from '../../src/store-postgres/postgres-store.js';
import { QUEUE_CHANNEL } from '../../src/store-postgres/queue-listener.js';
import type { Store } from '../../src/store/store.js';
import { call, testApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/http-target.js';
import { createTestDatabase, enabledStores, type TestDatabase } from '../helpers/postgres.js';
import { chainDefinitions, RunDriver } from './run-control-driver.js';

/**
 * Run operations racing workers and each other, on two Baton nodes sharing one PostgreSQL
 * database: the run's row lock makes each operation see the other's committed result, so the
 * final states are consistent, one successor run is made, and nothing is lost.
 */
const ROUNDS = 12;

if (enabledStores().includes('postgres')) {
  describe('run control under concurrency on two PostgreSQL nodes', () => {
    let db: TestDatabase;
    let stores: Store[];
    let pgStores: PostgresStore[];
    let nodes: TestApp[];
    let one: RunDriver;
    let two: RunDriver;
    const chain = chainDefinitions('rc_conc');

    before(async () => {
      db = await createTestDatabase();
      pgStores = [
        openPostgresStore({ url: db.url, poolSize: 5 }),
        openPostgresStore({ url: db.url, poolSize: 5 }),
      ];
      stores = pgStores;
      nodes = [];
      for (const store of stores) nodes.push(await testApp(store));
      one = new RunDriver(nodes[0]!.app);
      two = new RunDriver(nodes[1]!.app);
      await one.register([chain.def('rc_conc_wf'), chain.def('rc_conc_idem')], chain.taskDefs);
    });
    after(async () => {
      for (const node of nodes) await node.close();
      await db.drop();
    });

    async function assertSettled(id: string): Promise<any> {
      const run = await one.run(id);
      for (const task of run.tasks) {
        assert.ok(
          !['SCHEDULED', 'IN_PROGRESS'].includes(task.status),
          `${task.referenceTaskName} is ${task.status}`,
        );
      }
      return run;
    }

    it('terminate racing a worker’s COMPLETED: the run ends TERMINATED with no open task or message', async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const id = await one.start('rc_conc_wf', { input: { x: i } });
        const a = await two.pollOne('rc_conc_a');
        const [done, terminated] = await Promise.all([
          call(nodes[0]!.app, 'POST', '/api/tasks', {
            taskId: a.taskId,
            workflowInstanceId: id,
            status: 'COMPLETED',
            outputData: { y: i },
          }),
          call(nodes[1]!.app, 'DELETE', `/api/workflow/${id}?reason=race`),
        ]);
        // The result is applied (200) or, when the terminate came first, refused naming CANCELED.
        assert.ok(
          done.status === 200 || (done.status === 409 && /is CANCELED/.test(done.body.message)),
          `${done.status} ${done.text}`,
        );
        assert.equal(terminated.status, 200, terminated.text);
        const run = await assertSettled(id);
        assert.equal(run.status, 'TERMINATED');
        const states = run.tasks.map((t: any) => `${t.referenceTaskName}:${t.status}`);
        // An acknowledged result was applied; a refused one left the task canceled.
        assert.deepEqual(states, done.status === 200 ? ['a:COMPLETED', 'b:CANCELED'] : ['a:CANCELED']);
      }
      for (const type of ['rc_conc_a', 'rc_conc_b', 'rc_conc_c']) assert.equal(await one.queueSize(type), 0);
    });

    it('pause racing a task completion: the result is kept and resume carries the run to the end', async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const id = await one.start('rc_conc_wf', { input: { x: i } });
        const a = await one.pollOne('rc_conc_a');
        const [done, paused] = await Promise.all([
          call(nodes[1]!.app, 'POST', '/api/tasks', {
            taskId: a.taskId,
            workflowInstanceId: id,
            status: 'COMPLETED',
            outputData: { y: i },
          }),
          call(nodes[0]!.app, 'PUT', `/api/workflow/${id}/pause`),
        ]);
        assert.equal(done.status, 200, done.text);
        assert.equal(paused.status, 200, paused.text);
        const run = await one.run(id);
        assert.equal(run.status, 'PAUSED');
        assert.equal(run.tasks[0].status, 'COMPLETED');
        await two.ok('PUT', `/api/workflow/${id}/resume`);
        const b = await two.pollOne('rc_conc_b');
        assert.equal(b.workflowInstanceId, id);
        assert.deepEqual(b.inputData, { fromA: i });
        await two.result(b, 'COMPLETED', { z: i });
        await one.complete('rc_conc_c', { done: i });
        assert.equal(await one.status(id), 'COMPLETED');
      }
    });

    it('two nodes retrying one run at once make exactly one successor', async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const id = await one.start('rc_conc_wf', { input: { x: i } });
        const a = await one.pollOne('rc_conc_a');
        await one.result(a, 'FAILED', {}, 'boom');
        assert.equal(await one.status(id), 'FAILED');
        const answers = await Promise.all([
          call(nodes[0]!.app, 'POST', `/api/workflow/${id}/retry`),
          call(nodes[1]!.app, 'POST', `/api/workflow/${id}/retry`),
        ]);
        const codes = answers.map((r) => r.status).sort();
        assert.deepEqual(codes, [200, 409], answers.map((r) => r.text).join(' | '));
        const winner = answers.find((r) => r.status === 200)!.text;
        const original = await two.run(id);
        assert.deepEqual(original.links.retried_by, [winner]);
        const successor = await two.run(winner);
        assert.equal(successor.links.retry_of, id);
        await one.ok('DELETE', `/api/workflow/${winner}`);
      }
      const runs = await one.ok('GET', '/api/workflow/search?name=rc_conc_wf&size=1000');
      const retries = runs.body.results.filter((r: any) => r.status === 'TERMINATED');
      assert.ok(retries.length >= ROUNDS);
    });

    /** The chain's three tasks, each taken (a long poll: a start may not have committed yet) and completed on node two. */
    async function completeThroughNodeTwo(done: string): Promise<void> {
      for (const [type, output] of [
        ['rc_conc_a', { y: 1 }],
        ['rc_conc_b', { z: 1 }],
        ['rc_conc_c', { done }],
      ] as const) {
        const res = await call(
          nodes[1]!.app,
          'GET',
          `/api/tasks/poll/batch/${type}?count=1&timeout=5000&workerid=w2`,
        );
        assert.equal(res.body.length, 1);
        await two.result(res.body[0], 'COMPLETED', output);
      }
    }

    it('sync execute on one node is answered when the run ends through the other node', async () => {
      const pending = call(nodes[0]!.app, 'POST', '/api/workflow/execute/rc_conc_wf/0?waitForSeconds=60', {
        input: { x: 1 },
      });
      await completeThroughNodeTwo('across');
      const answer = await pending;
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.status, 'COMPLETED');
      assert.equal(answer.body.output.final, 'across');
    });

    it('sync execute of a run an idempotency key answers is woken by the other node too', async () => {
      // Started plainly first: the run a sync execute then waits for was not started by it.
      const started = await call(nodes[0]!.app, 'POST', '/api/workflow/rc_conc_wf', {
        input: { x: 2 },
        idempotencyKey: 'sync-after-start',
      });
      assert.equal(started.status, 200, started.text);
      const pending = call(nodes[0]!.app, 'POST', '/api/workflow/execute/rc_conc_wf/0?waitForSeconds=60', {
        input: { x: 2 },
        idempotencyKey: 'sync-after-start',
        idempotencyStrategy: 'RETURN_EXISTING',
      });
      // The mark is on the run before the waiter reads it; the steps go through the other node.
      await eventually(
        async () => ((await one.run(started.text)).syncWaitUntil !== undefined ? true : undefined),
        'the run marked as waited for',
      );
      await completeThroughNodeTwo('marked');
      const answer = await pending;
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.workflowId, started.text);
      assert.equal(answer.body.status, 'COMPLETED');
      assert.equal(answer.body.signalTimeout, undefined);
    });

    it('a run nobody executes synchronously is not announced to the other nodes at each step; one that is, is', async () => {
      const listener = new pg.Client({ connectionString: db.url });
      await listener.connect();
      const heard: string[] = [];
      listener.on('notification', (n) => heard.push(...(n.payload ?? '').split(',')));
      await listener.query(`LISTEN ${QUEUE_CHANNEL}`);
      /** Every name the nodes have notified so far, once they have all been sent and delivered. */
      const notified = async (): Promise<string[]> => {
        for (const store of pgStores) await store.notificationsSent();
        // Delivered to an idle listening session before the answer of its next statement.
        await listener.query('SELECT 1');
        return heard;
      };
      try {
        // What earlier tests' commits sent is not this test's.
        await notified();
        heard.length = 0;
        const quiet = await one.start('rc_conc_wf', { input: { x: 3 } });
        await completeThroughNodeTwo('quiet');
        assert.equal((await one.run(quiet)).status, 'COMPLETED');
        assert.ok(
          !(await notified()).includes(runWakeName(quiet)),
          'no run wake-up left the node that decided',
        );

        const pending = call(nodes[0]!.app, 'POST', '/api/workflow/execute/rc_conc_wf/0?waitForSeconds=60', {
          input: { x: 4 },
        });
        await completeThroughNodeTwo('quiet');
        const answer = await pending;
        assert.equal(answer.body.status, 'COMPLETED', answer.text);
        assert.ok(
          (await notified()).includes(runWakeName(answer.body.workflowId)),
          'its wake-up reached every node',
        );
      } finally {
        await listener.end();
      }
    });

    it('two concurrent starts with one idempotency key make one run', async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const key = `key-${i}`;
        const strategy = i % 2 === 0 ? 'FAIL' : 'RETURN_EXISTING';
        const answers = await Promise.all(
          nodes.map((node) =>
            call(node.app, 'POST', '/api/workflow/rc_conc_idem', {
              input: { x: i },
              idempotencyKey: key,
              idempotencyStrategy: strategy,
            }),
          ),
        );
        if (strategy === 'FAIL') {
          assert.deepEqual(
            answers.map((r) => r.status).sort(),
            [200, 409],
            answers.map((r) => r.text).join(' | '),
          );
        } else {
          assert.deepEqual(
            answers.map((r) => r.status),
            [200, 200],
          );
          assert.equal(answers[0]!.text, answers[1]!.text);
        }
      }
      const runs = await one.ok('GET', '/api/workflow/search?name=rc_conc_idem&size=1000');
      assert.equal(runs.body.totalHits, ROUNDS);
    });
  });
}
