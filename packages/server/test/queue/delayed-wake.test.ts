import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { openPostgresStore, type PostgresStore } from '../../src/store-postgres/postgres-store.js';
import { call, testApp, type TestApp } from '../helpers/app.js';
import { register } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { createTestDatabase, enabledStores, type TestDatabase } from '../helpers/postgres.js';
import { pollOneTask, postResult, startRun } from '../helpers/runs.js';
import { storeCases, type OpenedStore } from '../helpers/stores.js';

/**
 * A delayed message (a retry's delay, callbackAfterSeconds) wakes the long polls already waiting
 * on its queue when it comes due, on every node: the worker's open poll gets the retry at its due
 * time, not at the poll's own timeout. The polls here wait up to 5 s (the most allowed) and the delay is 1 s, so a
 * retry handed out at the poll's timeout is over 3 s late; the bound below (1.5 s) is about
 * correctness on a loaded machine, not speed.
 */

const POLL_TIMEOUT_MS = 5_000;
const LATE_BOUND_MS = 1_500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function defineFlaky(app: TestApp, type: string): Promise<void> {
  await register(
    app.app,
    [workflowDef(`wf_${type}`, [{ name: type, taskReferenceName: 'only', type: 'SIMPLE' }])],
    workerTaskDefs([type], { retryCount: 2, retryDelaySeconds: 1, retryLogic: 'FIXED' }),
  );
}

/**
 * Opens a long poll on `node` and gives it time to make its empty claim and go to sleep. Were it
 * still claiming when the retry is written, it would see the retry's due time itself: the test
 * would pass without testing the wake-up, never fail by luck.
 */
async function openLongPoll(node: TestApp, type: string, workerId: string) {
  const poll = call(
    node.app,
    'GET',
    `/api/tasks/poll/batch/${type}?count=1&timeout=${POLL_TIMEOUT_MS}&workerid=${workerId}`,
  ).then((res) => ({ res, at: Date.now() }));
  await sleep(300);
  // Wrapped: an async function answering the promise itself would wait for the poll to end.
  return { poll };
}

/**
 * Fails the task through `failer` while `waiter` holds a long poll; answers how early and how late
 * the retry came. It is due 1 s after the result was applied, somewhere between posting it and the
 * post's answer: measured early from the first, late from the second, so a slow post on a loaded
 * machine counts against neither.
 */
async function retryLateness(failer: TestApp, waiter: TestApp, type: string, callback = false) {
  const runId = await startRun(failer.app, `wf_${type}`);
  const first = await pollOneTask(failer.app, type, 'first');
  const { poll } = await openLongPoll(waiter, type, 'waiting-worker');
  const posted = Date.now();
  if (callback) await postResult(failer.app, first, 'IN_PROGRESS', { callbackAfterSeconds: 1 });
  else await postResult(failer.app, first, 'FAILED', { reasonForIncompletion: 'flaky' });
  const answered = Date.now();
  const { res, at } = await poll;
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.length, 1, `the open poll got nothing within ${POLL_TIMEOUT_MS} ms`);
  assert.equal(res.body[0].workflowInstanceId, runId);
  return { early: posted + 1000 - at, late: at - (answered + 1000) };
}

function assertOnTime(
  t: { diagnostic: (message: string) => void },
  { early, late }: { early: number; late: number },
) {
  t.diagnostic(`handed out ${late} ms after the latest it could have been due`);
  assert.ok(early < 100, `handed out ${early} ms before it was due`);
  assert.ok(late < LATE_BOUND_MS, `handed out ${late} ms after it was due`);
}

for (const c of storeCases()) {
  describe(`delayed messages wake open long polls (${c.name})`, () => {
    let opened: OpenedStore;
    let node: TestApp;
    before(async () => {
      opened = await c.open();
      node = await testApp(opened.store);
      await defineFlaky(node, 'dw_retry');
      await defineFlaky(node, 'dw_callback');
    });
    after(async () => {
      await node.close();
      await opened.cleanup();
    });

    it('a retry with retryDelaySeconds 1 reaches the poll that was already open at its due time', async (t) => {
      assertOnTime(t, await retryLateness(node, node, 'dw_retry'));
    });

    it('callbackAfterSeconds 1 reaches the poll that was already open at its due time', async (t) => {
      assertOnTime(t, await retryLateness(node, node, 'dw_callback', true));
    });
  });
}

if (enabledStores().includes('postgres')) {
  describe('delayed messages wake open long polls on another PostgreSQL node', () => {
    let db: TestDatabase;
    const nodes: TestApp[] = [];
    before(async () => {
      db = await createTestDatabase();
      for (let i = 0; i < 2; i++) nodes.push(await testApp(openPostgresStore({ url: db.url, poolSize: 4 })));
      // Both nodes listen before anything is committed (a node learns of the other by its hello).
      await Promise.all(nodes.map((n) => (n.store as PostgresStore).listening()));
      await defineFlaky(nodes[0]!, 'dw2_retry');
    });
    after(async () => {
      for (const n of nodes) await n.close();
      await db.drop();
    });

    it('a retry failed on one node reaches the poll open on the other at its due time', async (t) => {
      assertOnTime(t, await retryLateness(nodes[0]!, nodes[1]!, 'dw2_retry'));
    });
  });
}
