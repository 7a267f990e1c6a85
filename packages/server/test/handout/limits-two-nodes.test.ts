import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import pg from 'pg';

import { ManualClock } from '../../src/clock.js';
import { openPostgresStore } from '../../src/store-postgres/postgres-store.js';
import { call, testApp, type TestApp } from '../helpers/app.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { createTestDatabase, enabledStores, type TestDatabase } from '../helpers/postgres.js';

/**
 * Two Baton nodes on one PostgreSQL database, with pollers on both hammering the same limited
 * task types at once: the limits hold across nodes. The nodes share a manual clock, so the
 * 60-second deferral is crossed by advancing it between rounds, not by waiting.
 */

const RUNS = 24;
const POLLERS_PER_NODE = 4;
const CONC_LIMIT = 3;
const RATE_LIMIT = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

if (enabledStores().includes('postgres')) {
  describe('hand-out limits across two PostgreSQL nodes', () => {
    let db: TestDatabase;
    let nodes: TestApp[];
    let sampler: pg.Client;
    const clock = new ManualClock();
    before(async () => {
      db = await createTestDatabase();
      nodes = [];
      for (let i = 0; i < 2; i++) {
        nodes.push(await testApp(openPostgresStore({ url: db.url, poolSize: 6 }), { clock }));
      }
      const defs = [
        ...workerTaskDefs(['n2_conc'], { concurrentExecLimit: CONC_LIMIT, responseTimeoutSeconds: 600 }),
        ...workerTaskDefs(['n2_rate'], {
          rateLimitPerFrequency: RATE_LIMIT,
          rateLimitFrequencyInSeconds: 10,
          responseTimeoutSeconds: 600,
        }),
      ];
      assert.equal((await call(nodes[0]!.app, 'POST', '/api/metadata/taskdefs', defs)).status, 200);
      for (const type of ['n2_conc', 'n2_rate']) {
        const wf = workflowDef(`wf_${type}`, [{ name: type, taskReferenceName: 'only', type: 'SIMPLE' }]);
        assert.equal((await call(nodes[0]!.app, 'POST', '/api/metadata/workflow', wf)).status, 200);
      }
      sampler = new pg.Client({ connectionString: db.url });
      await sampler.connect();
    });
    after(async () => {
      await sampler.end();
      for (const node of nodes) await node.close();
      await db.drop();
    });

    async function startRuns(name: string): Promise<string[]> {
      return Promise.all(
        Array.from({ length: RUNS }, async (_, i) => {
          const res = await call(nodes[i % 2]!.app, 'POST', `/api/workflow/${name}`, { input: { i } });
          assert.equal(res.status, 200, res.text);
          return res.text;
        }),
      );
    }

    /** Pollers on both nodes until none gets work; answers the tasks handed out this round. */
    async function round(type: string, held: Set<string>, onTake: () => void): Promise<string[]> {
      const handed: string[] = [];
      await Promise.all(
        Array.from({ length: POLLERS_PER_NODE * 2 }, async (_, p) => {
          const node = nodes[p % 2]!;
          for (;;) {
            const res = await call(
              node.app,
              'GET',
              `/api/tasks/poll/batch/${type}?count=2&timeout=0&workerid=p${p}`,
            );
            assert.equal(res.status, 200, res.text);
            const tasks = res.body as Array<{ taskId: string; workflowInstanceId: string }>;
            if (tasks.length === 0) return;
            for (const task of tasks) {
              held.add(task.taskId);
              handed.push(task.taskId);
            }
            onTake();
            await sleep(2);
            for (const task of tasks) {
              // Dropped from `held` before the result is sent: `held` never counts a task the
              // server has already ended, so it can only under-count the server's IN_PROGRESS.
              held.delete(task.taskId);
              const done = await call(node.app, 'POST', '/api/tasks', {
                taskId: task.taskId,
                workflowInstanceId: task.workflowInstanceId,
                status: 'COMPLETED',
              });
              assert.equal(done.status, 200, done.text);
            }
          }
        }),
      );
      return handed;
    }

    async function allCompleted(ids: string[]): Promise<boolean> {
      const { rows } = await sampler.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM runs WHERE workflow_id = ANY($1::text[]) AND status = 'COMPLETED'",
        [ids],
      );
      return rows[0]?.n === ids.length;
    }

    it(`concurrentExecLimit ${CONC_LIMIT} holds across nodes`, async () => {
      const ids = await startRuns('wf_n2_conc');
      const held = new Set<string>();
      let maxHeld = 0;
      let maxInDb = 0;
      let sampling = true;
      const samples = (async () => {
        while (sampling) {
          const { rows } = await sampler.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM tasks WHERE task_type = 'n2_conc' AND status = 'IN_PROGRESS'",
          );
          maxInDb = Math.max(maxInDb, rows[0]?.n ?? 0);
          await sleep(1);
        }
      })();
      const seen: string[] = [];
      for (let r = 0; r < 40 && !(await allCompleted(ids)); r++) {
        seen.push(...(await round('n2_conc', held, () => (maxHeld = Math.max(maxHeld, held.size)))));
        clock.advance(60_000);
      }
      sampling = false;
      await samples;
      assert.ok(await allCompleted(ids), 'every run completed');
      assert.equal(new Set(seen).size, RUNS, 'each task handed out once');
      assert.equal(seen.length, RUNS);
      assert.ok(maxHeld <= CONC_LIMIT, `workers held ${maxHeld} at once`);
      assert.ok(maxInDb <= CONC_LIMIT, `the database had ${maxInDb} IN_PROGRESS at once`);
      assert.ok(maxHeld >= 2, 'the pollers did overlap');
    });

    it(`rate limit ${RATE_LIMIT} per 10 s holds across nodes`, async () => {
      const ids = await startRuns('wf_n2_rate');
      const perWindow: number[] = [];
      for (let r = 0; r < 40 && !(await allCompleted(ids)); r++) {
        // The clock stands still during a round: every hand-out of the round is in one window.
        perWindow.push((await round('n2_rate', new Set(), () => {})).length);
        clock.advance(60_000);
      }
      assert.ok(await allCompleted(ids), 'every run completed');
      assert.equal(
        perWindow.reduce((a, b) => a + b, 0),
        RUNS,
      );
      assert.ok(Math.max(...perWindow) <= RATE_LIMIT, `hand-outs per window: ${perWindow.join(', ')}`);
      assert.equal(Math.max(...perWindow), RATE_LIMIT);
    });
  });
}
