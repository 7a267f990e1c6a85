import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { openStore } from '../../src/open-store.js';
import { openSqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import { T0, enqueueTasks, message, run, sleep } from './fixtures.js';

void describe('SQLite store specifics', () => {
  void it('works on :memory: (reads run under the write mutex)', async () => {
    const store = openSqliteStore({ file: ':memory:' });
    try {
      await store.migrate();
      const r = run();
      await store.transaction((tx) => tx.insertRun(r));
      assert.deepEqual(await store.read((tx) => tx.getRun(r.workflowId)), r);
      await store.transaction((tx) =>
        enqueueTasks(tx, [message('q', { taskId: 't1', workflowId: r.workflowId })], T0),
      );
      const got = await store.transaction((tx) =>
        tx.claim({ queueNames: ['q'], count: 1, now: T0, workerId: 'w', lockToken: 'l' }),
      );
      assert.equal(got[0]?.taskId, 't1');
    } finally {
      await store.close();
    }
  });

  void it('runs of one definition share it, frozen; another text reads as its own', async () => {
    const store = openSqliteStore({ file: ':memory:' });
    try {
      await store.migrate();
      const a = run({ workflowName: 'shared-def' });
      const b = run({ workflowName: 'shared-def' });
      const other = run({ workflowName: 'shared-def', workflowVersion: 2 });
      await store.transaction(async (tx) => {
        for (const r of [a, b, other]) await tx.insertRun(r);
      });
      const [ra, rb, ro] = await store.read((tx) =>
        Promise.all([a, b, other].map((r) => tx.getRun(r.workflowId))),
      );
      assert.ok(ra && rb && ro);
      assert.deepEqual(ra, a, 'read as written');
      assert.equal(ra.workflowDefinition, rb.workflowDefinition, 'one object for one snapshot');
      assert.ok(Object.isFrozen(ra.workflowDefinition) && Object.isFrozen(ra.workflowDefinition.tasks));
      assert.throws(() => {
        (ra.workflowDefinition as { description?: string }).description = 'changed';
      }, TypeError);
      assert.notEqual(ro.workflowDefinition, ra.workflowDefinition);
      assert.equal(ro.workflowDefinition.version, 2);
      // Each read's run is its own: only the definition is shared.
      assert.notEqual(ra, rb);
      ra.status = 'PAUSED';
      assert.equal((await store.read((tx) => tx.getRun(a.workflowId)))?.status, 'RUNNING');
    } finally {
      await store.close();
    }
  });

  void it('never interleaves two async transactions on the connection', async () => {
    const store = openSqliteStore({ file: ':memory:' });
    try {
      await store.migrate();
      const events: string[] = [];
      const tx = (name: string) =>
        store.transaction(async (t) => {
          events.push(`${name} begin`);
          await t.insertRun(run());
          await sleep(20);
          await t.insertRun(run());
          events.push(`${name} end`);
        });
      await Promise.all([tx('a'), tx('b'), tx('c')]);
      assert.deepEqual(events, ['a begin', 'a end', 'b begin', 'b end', 'c begin', 'c end']);
    } finally {
      await store.close();
    }
  });

  void it('waits for the transaction in flight when closed, then refuses work', async () => {
    const store = openSqliteStore({ file: ':memory:' });
    await store.migrate();
    const r = run();
    const pending = store.transaction(async (tx) => {
      await sleep(30);
      await tx.insertRun(r);
    });
    await sleep(5);
    await store.close();
    await pending;
    await assert.rejects(
      store.transaction(async () => Promise.resolve()),
      /closed/,
    );
    await store.close();
  });

  void it('openStore picks SQLite in the data dir (created) unless given a postgres URL', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'baton-open-'));
    const dataDir = path.join(dir, 'nested', 'data');
    try {
      const store = await openStore({ dataDir, databaseUrl: 'file:ignored', sqliteSynchronous: 'NORMAL' });
      assert.equal(store.dialect, 'sqlite');
      await store.migrate();
      await store.ping();
      await store.close();
      const again = await openStore({ dataDir });
      await again.migrate();
      await again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
