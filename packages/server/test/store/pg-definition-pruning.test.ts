import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import pg from 'pg';
import type { RunRecord } from '@baton/protocol';

import { openPostgresStore } from '../../src/store-postgres/postgres-store.js';
import type { DefinitionPrunePage, Store } from '../../src/store/store.js';
import { waitFor } from '../helpers/baton-process.js';
import { createTestDatabase, enabledStores } from '../helpers/postgres.js';
import { T0, run, uid, workflowDef } from './fixtures.js';

/**
 * On PostgreSQL a start and a pruning pass on two nodes meet on the snapshot's advisory lock
 * (store-postgres/run-definitions.ts `definitionLock`): a start that found the snapshot kept holds
 * it shared until it commits, and the pass, which tries it alone, leaves that snapshot; a pass
 * that deleted a snapshot holds it until it commits, and a start of the same text waits, then
 * stores the snapshot again. Either way the run reads its definition whole.
 */

const HOUR = 3_600_000;

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

if (enabledStores().includes('postgres')) {
  void describe('run definitions pruned while a node starts a run of the same text (PostgreSQL)', () => {
    let starter: Store;
    let pruner: Store;
    let client: pg.Client;
    let close: () => Promise<void> = () => Promise.resolve();

    before(async () => {
      const db = await createTestDatabase();
      starter = openPostgresStore({ url: db.url, poolSize: 2 });
      await starter.migrate();
      pruner = openPostgresStore({ url: db.url, poolSize: 2 });
      client = new pg.Client({ connectionString: db.url });
      await client.connect();
      close = async () => {
        await client.end();
        await starter.close();
        await pruner.close();
        await db.drop();
      };
    });

    after(async () => {
      await close();
    });

    /** A snapshot whose only run is gone, marked unused at `markedAt`: due for deletion from then on. */
    async function dueSnapshot(markedAt: number): Promise<RunRecord> {
      const gone = run({ workflowName: uid('gone-'), workflowDefinition: workflowDef(uid('def-')) });
      await starter.transaction((tx) => tx.insertRun(gone));
      await starter.transaction((tx) => tx.deleteRunRows(gone.workflowId));
      const page = await prunePage(markedAt, markedAt - HOUR);
      assert.equal(page.marked, 1);
      return gone;
    }

    const prunePage = (now: number, unusedBefore: number): Promise<DefinitionPrunePage> =>
      pruner.transaction((tx) => tx.pruneRunDefinitions({ limit: 100, now, unusedBefore }));

    const sameText = (gone: RunRecord): RunRecord =>
      run({ workflowName: gone.workflowName, workflowDefinition: gone.workflowDefinition });

    void it('a start that found the snapshot kept keeps it: the pass leaves it until that start commits', async () => {
      const gone = await dueSnapshot(T0);
      const again = sameText(gone);
      const inserted = deferred();
      const commit = deferred();
      const starting = starter.transaction(async (tx) => {
        await tx.insertRun(again);
        // Read back in the transaction: its insert has been sent, and holds the lock.
        assert.ok(await tx.getRun(again.workflowId));
        inserted.resolve();
        await commit.promise;
      });
      await inserted.promise;
      const page = await prunePage(T0 + 2 * HOUR, T0 + HOUR);
      assert.equal(page.deleted, 0, 'the snapshot a start is using is left');
      commit.resolve();
      await starting;
      const read = await pruner.read((tx) => tx.getRun(again.workflowId));
      assert.deepEqual(read?.workflowDefinition, gone.workflowDefinition);
      const after = await prunePage(T0 + 3 * HOUR, T0 + 2 * HOUR);
      assert.equal(after.deleted, 0, 'used again, so not deleted by a later pass either');
    });

    void it('a start during a pass that deleted the snapshot waits for it, then stores the snapshot again', async () => {
      const gone = await dueSnapshot(T0 + 10 * HOUR);
      const pruned = deferred<DefinitionPrunePage>();
      const commit = deferred();
      const pruning = pruner.transaction(async (tx) => {
        pruned.resolve(
          await tx.pruneRunDefinitions({ limit: 100, now: T0 + 12 * HOUR, unusedBefore: T0 + 11 * HOUR }),
        );
        await commit.promise;
      });
      assert.equal((await pruned.promise).deleted, 1);
      const again = sameText(gone);
      let started = false;
      const starting = starter
        .transaction((tx) => tx.insertRun(again))
        .then(() => {
          started = true;
        });
      await waitFor(
        async () =>
          ((await client.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"))
            .rowCount ?? 0) > 0 || undefined,
        { timeoutMs: 10_000, intervalMs: 20, what: "the start waiting on the pass's lock" },
      );
      assert.equal(started, false);
      commit.resolve();
      await pruning;
      await starting;
      const read = await pruner.read((tx) => tx.getRun(again.workflowId));
      assert.deepEqual(read?.workflowDefinition, gone.workflowDefinition, 'stored again, read whole');
    });
  });
}
