import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { BatonClient } from '../src/client.js';
import { simpleTask, taskDef, workflow } from '../src/definitions.js';
import { WorkerPool } from '../src/worker-pool.js';
import { defineWorker } from '../src/worker.js';
import { startBaton, type BatonProcess } from './helpers/baton.js';
import { startRecordingProxy, type Exchange, type RecordingProxy } from './helpers/recording-proxy.js';
import { gate, until, waitForEnd } from './helpers/runs.js';

// The worker loop observed on the wire, through a recording proxy in front of a real server:
// every batch poll asks for exactly the free slots, with timeout 5000, and none is made while
// every slot is busy.
describe('worker loop: batch size = free slots (real server, recorded wire)', () => {
  let baton: BatonProcess;
  let proxy: RecordingProxy;
  let client: BatonClient;

  before(async () => {
    baton = await startBaton();
    proxy = await startRecordingProxy(baton.url);
    client = new BatonClient({ baseUrl: baton.url });
    await client.registerTaskDefs([taskDef('slots', { retryCount: 0, responseTimeoutSeconds: 120 })]);
    await client.putWorkflowDefs([
      workflow('slots-flow', [simpleTask('s', 'slots', { n: '${workflow.input.n}' })]),
    ]);
  });
  after(async () => {
    await proxy?.close();
    await baton?.stop();
  });

  const polls = (): Exchange[] => proxy.exchanges.filter((e) => e.path === '/api/tasks/poll/batch/slots');
  const results = (): Exchange[] =>
    proxy.exchanges.filter((e) => e.method === 'POST' && e.path === '/api/tasks' && e.endedAt !== undefined);
  const handedOut = (e: Exchange): number => (JSON.parse(e.responseBody || '[]') as unknown[]).length;
  const start = (n: number) => client.startWorkflow('slots-flow', { input: { n } });

  it('asks for 4, then 1, then the 3 freed while it waited, and never polls with no free slot', async () => {
    const gates = new Map<number, ReturnType<typeof gate>>();
    const gateOf = (n: number) => {
      if (!gates.has(n)) gates.set(n, gate());
      return gates.get(n)!;
    };
    let running = 0;
    let most = 0;
    const worker = defineWorker<{ n: number }, { n: number }>({
      taskType: 'slots',
      concurrency: 4,
      handler: async ({ n }) => {
        running += 1;
        most = Math.max(most, running);
        await gateOf(n).promise;
        running -= 1;
        return { n };
      },
    });
    const ids = [];
    for (let n = 1; n <= 5; n++) ids.push(await start(n));
    const pool = new WorkerPool({
      client: new BatonClient({ baseUrl: proxy.url }),
      workers: [worker],
    }).start();
    try {
      // 1. Four slots free: one poll for 4, which takes 4 of the 5 queued tasks.
      await until(() => polls()[0]?.endedAt !== undefined, 'first poll');
      await until(() => running === 4, 'four handlers running');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(polls().length, 1, 'no poll while every slot is busy');

      // 2. One slot frees: a poll for 1, which takes the fifth task.
      const first = JSON.parse(polls()[0]!.responseBody) as Array<{ inputData: { n: number } }>;
      gateOf(first[0]!.inputData.n).open();
      await until(() => polls().length === 2 && polls()[1]!.endedAt !== undefined, 'second poll');
      await until(() => running === 4, 'fifth task running');

      // 3. Three slots free one after another while the next poll (for 1) waits on an empty queue;
      //    the poll after it asks for the 3 free slots and is woken by 3 new runs.
      const rest = first.slice(1).map((t) => t.inputData.n);
      for (const [i, n] of rest.entries()) {
        gateOf(n).open();
        await until(() => results().length === 2 + i, `result ${2 + i} posted`);
        if (i === 0) await until(() => polls().length === 3, 'third poll (on an empty queue)');
      }
      await until(() => polls().length === 4, 'fourth poll', 20_000);
      for (let n = 6; n <= 8; n++) ids.push(await start(n));
      await until(() => running === 4, 'three new tasks running');

      const seen = polls().slice(0, 4);
      assert.deepEqual(
        seen.map((p) => Number(p.query.get('count'))),
        [4, 1, 1, 3],
        'each poll asks for exactly the free slots',
      );
      assert.deepEqual(seen.slice(0, 3).map(handedOut), [4, 1, 0]);
      for (const p of seen) assert.equal(p.query.get('timeout'), '5000');

      // 4. Let everything finish.
      for (let n = 1; n <= 8; n++) gateOf(n).open();
      for (const id of ids) assert.equal((await waitForEnd(client, id)).status, 'COMPLETED');
      assert.equal(most, 4, 'never more than the concurrency');
    } finally {
      for (const g of gates.values()) g.open();
      await pool.stop({ graceMs: 5000 });
    }
  });
});
