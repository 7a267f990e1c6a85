import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { openSqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import { WalSync } from '../../src/store-sqlite/wal-sync.js';
import { storeFault } from '../../src/store/store-faults.js';
import { T0, enqueueTasks, message, run } from './fixtures.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'baton-durable-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

void describe('SQLite durability (synchronous FULL: the WAL synced before an answer)', () => {
  void it('WalSync resolves once the commits asked for are synced, one sync for many waiters', async () => {
    await withDir(async (dir) => {
      const file = path.join(dir, 'x-wal');
      await writeFile(file, 'frames');
      const sync = new WalSync(file);
      try {
        await sync.durable(0);
        const a = sync.committed();
        const b = sync.committed();
        assert.deepEqual([a, b], [1, 2]);
        await Promise.all([sync.durable(a), sync.durable(b), sync.durable(sync.lastWritten)]);
        const c = sync.committed();
        await sync.durable(c);
        sync.check();
      } finally {
        await sync.close();
      }
    });
  });

  void it('a failed sync fails its waiters and everything after it, as the database being away', async () => {
    await withDir(async (dir) => {
      const sync = new WalSync(path.join(dir, 'missing-wal'));
      const n = sync.committed();
      await assert.rejects(sync.durable(n), /could not sync the WAL to disk \(ENOENT/);
      assert.throws(() => sync.check(), /could not sync the WAL to disk \(ENOENT/);
      // The database is away, not the request wrong: requests answer 503 naming the system's error.
      let failure: unknown;
      try {
        sync.check();
      } catch (err) {
        failure = err;
      }
      assert.match(
        storeFault(failure) ?? 'not a store fault',
        /^SQLite: could not sync the WAL to disk \(ENOENT/,
      );
      // Even a waiter whose commits are older than the failure: the kernel may have lost them.
      await assert.rejects(sync.durable(0), /could not sync the WAL to disk \(ENOENT/);
      await sync.close();
    });
  });

  void it('concurrent transactions and reads on a FULL store all answer, and the rows survive a reopen', async () => {
    await withDir(async (dir) => {
      const file = path.join(dir, 'baton.db');
      const store = openSqliteStore({ file, synchronous: 'FULL' });
      const runs = Array.from({ length: 20 }, () => run());
      try {
        await store.migrate();
        await Promise.all([
          ...runs.map((r) => store.transaction((tx) => tx.insertRun(r))),
          // A transaction that writes nothing, and one that fails: both answer as before.
          store.transaction((tx) => tx.getRun('none')),
          assert.rejects(
            store.transaction(async (tx) => {
              await enqueueTasks(tx, [message('q', { taskId: 'gone' })], T0);
              throw new Error('rolled back');
            }),
            /rolled back/,
          ),
          ...runs.map((r) => store.read((tx) => tx.getRun(r.workflowId))),
        ]);
      } finally {
        await store.close();
      }
      const again = openSqliteStore({ file, synchronous: 'FULL' });
      try {
        await again.migrate();
        for (const r of runs) assert.deepEqual(await again.read((tx) => tx.getRun(r.workflowId)), r);
        const claimed = await again.transaction((tx) =>
          tx.claim({ queueNames: ['q'], count: 1, now: T0, workerId: 'w', lockToken: 'l' }),
        );
        assert.deepEqual(claimed, []);
      } finally {
        await again.close();
      }
    });
  });
  void it('close commits and syncs the transactions still sharing a batch, then refuses work', async () => {
    await withDir(async (dir) => {
      const file = path.join(dir, 'baton.db');
      for (const synchronous of ['FULL', 'NORMAL'] as const) {
        const store = openSqliteStore({ file, synchronous });
        await store.migrate();
        const runs = Array.from({ length: 5 }, () => run());
        let ran = 0;
        const pending = runs.map((r) =>
          store.transaction(async (tx) => {
            await tx.insertRun(r);
            ran += 1;
          }),
        );
        // Microtasks only: the transactions all run, and the batch's COMMIT (after I/O) has not.
        while (ran < runs.length) await Promise.resolve();
        await store.close();
        await Promise.all(pending);
        await assert.rejects(
          store.transaction(async () => Promise.resolve()),
          /closed/,
        );
        const again = openSqliteStore({ file, synchronous });
        try {
          await again.migrate();
          for (const r of runs) assert.deepEqual(await again.read((tx) => tx.getRun(r.workflowId)), r);
        } finally {
          await again.close();
        }
      }
    });
  });
});
