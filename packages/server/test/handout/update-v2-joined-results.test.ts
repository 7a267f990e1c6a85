import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';

import { openPostgresStore, type PostgresStore } from '../../src/store-postgres/postgres-store.js';
import { type TestApp, call, testApp } from '../helpers/app.js';
import { waitFor } from '../helpers/baton-process.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { createTestDatabase, enabledStores, type TestDatabase } from '../helpers/postgres.js';
import {
  joinedResultsCases,
  joinedResultsHelpers,
  registerJoinedResultsWorkflow,
} from './joined-results-cases.js';

/**
 * The results of one run's branches that reach one group-commit batch are decided together
 * (`operations/result-work.ts`): one lock, one decide-set read, one decision, and each worker
 * answered as if its result had gone alone. The batch before is held in flight (the group
 * commit's clock stands still, so it never counts as held up) until every result waits for the
 * next one. The store reaches PostgreSQL through a proxy that can reset the connection as a
 * joint's COMMIT goes out.
 */
if (enabledStores().includes('postgres')) {
  describe('update-v2: results of one run decided together on PostgreSQL', () => {
    let db: TestDatabase;
    let store: PostgresStore;
    let t: TestApp;
    let frozen: number | undefined;
    let proxy: FaultProxy;

    before(async () => {
      db = await createTestDatabase();
      const target = new URL(db.url);
      proxy = new FaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
      await proxy.listen();
      store = openPostgresStore({
        url: proxy.urlFor(db.url),
        poolSize: 6,
        groupCommit: { now: () => frozen ?? performance.now() },
      });
      await store.migrate();
      t = await testApp(store);
      await registerJoinedResultsWorkflow(t.app);
    });
    after(async () => {
      await t?.close();
      await store?.close();
      await proxy?.close();
      await db?.drop();
    });

    const group = () => store.group ?? assert.fail('group commit is on');

    /** Posts `bodies` as update-v2s that all reach one batch; answers their responses in order. */
    async function together(bodies: ReadonlyArray<Record<string, unknown>>) {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      frozen = performance.now();
      // A batch in flight that never counts as held up: what arrives meanwhile waits for the next.
      const held = store.transaction(() => gate, { group: true });
      await waitFor(() => (group().queued === 0 ? true : undefined), {
        timeoutMs: 10_000,
        what: 'the holding batch',
      });
      const before = group().queued;
      const answers = bodies.map((body) => call(t.app, 'POST', '/api/tasks/update-v2', body));
      try {
        await waitFor(() => (group().queued >= before + bodies.length ? true : undefined), {
          timeoutMs: 10_000,
          what: 'every result waiting for the next batch',
        });
      } finally {
        frozen = undefined;
        release();
      }
      await held;
      return Promise.all(answers);
    }

    const { forked, finishFromA2 } = joinedResultsHelpers(() => t.app);
    joinedResultsCases({ app: () => t.app, together, joined: () => group().stats.joined });

    it('a joint whose COMMIT answer is lost answers each 503, and each repeat is acknowledged once', async () => {
      const { id, result, worker } = await forked();
      const ids = ['a', 'b', 'c'].map((ref) => result(ref).taskId);
      // The joint's writes go out (with the next tasks' claims), then its COMMIT, which reaches
      // PostgreSQL; that connection is reset before the answer.
      let carrier: object | undefined;
      const cut = proxy.arm((bytes, connection) => {
        if (ids.every((x) => bytes.includes(x))) carrier = connection;
        return connection === carrier && bytes.includes('COMMIT');
      }, 'reset');
      const lost = await together([result('a'), result('b'), result('c')]);
      assert.equal(await Promise.race([cut.then(() => 'reset'), delay(10_000, 'not reset')]), 'reset');
      // (The fault fired on the connection whose one message wrote all three: they went as one
      // joint. A joint is counted in the stats once it commits, and this one's outcome is unknown.)
      for (const answer of lost) {
        // Applied or not, the node cannot know: no result is acknowledged.
        assert.equal(answer?.status, 503, answer?.text);
        assert.equal(answer?.body.retryable, true, answer?.text);
      }
      // Each worker sends its result again, together as before: each is acknowledged.
      const again = await together([result('a'), result('b'), result('c')]);
      for (const answer of again) assert.ok([200, 204].includes(answer?.status ?? 0), answer?.text);
      const res = await call(t.app, 'GET', `/api/workflow/${id}?includeTasks=true`);
      const all = res.body.tasks as Array<{
        referenceTaskName: string;
        status: string;
        taskId: string;
        outputData: unknown;
      }>;
      for (const ref of ['a', 'b', 'c', 'a2', 'join']) {
        const attempts = all.filter((x) => x.referenceTaskName === ref);
        assert.equal(attempts.length, 1, `one ${ref}: nothing applied twice`);
      }
      for (const ref of ['a', 'b', 'c']) {
        const task = all.find((x) => x.referenceTaskName === ref);
        assert.equal(task?.status, 'COMPLETED', ref);
        assert.deepEqual(task?.outputData, { from: ref }, ref);
      }
      // The run goes on from there as usual: a2 (handed to a's worker once), then the last step.
      const a2 = all.find((x) => x.referenceTaskName === 'a2') ?? assert.fail('a2 scheduled');
      const handed = again[0]?.status === 200 ? (again[0].body as { taskId: string }) : undefined;
      if (handed) assert.equal(handed.taskId, a2.taskId);
      await finishFromA2(id, a2.taskId, worker('a'));
    });
  });
}
