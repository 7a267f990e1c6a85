import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type pg from 'pg';
import type { RunRecord, WorkflowDef } from '@baton/protocol';

import { openPostgresStore } from '../../src/store-postgres/postgres-store.js';
import {
  RunDefinitionCache,
  definitionBytes,
  definitionDigest,
} from '../../src/store-postgres/run-definitions.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, enabledStores } from '../helpers/postgres.js';
import { run, workflowDef } from './fixtures.js';

/**
 * On PostgreSQL a compact run row (store-postgres/run-rows.ts) keeps its record without what its
 * columns hold, and its definition snapshot once per distinct text in `run_definitions`, the row
 * holding its digest (run-definitions.ts). Every read answers the run as it was written, whether
 * its row is compact or whole, and a node that has not met a digest reads it. A database upgraded
 * to the step writes whole rows until its operator switches (`store_settings.run_rows`).
 */

const columns = async (
  client: pg.Client,
  workflowId: string,
): Promise<{ inRow: boolean; digest: string | null; wholeRecord: boolean }> => {
  const { rows } = await client.query<{ in_row: boolean; digest: string | null; whole: boolean }>(
    `SELECT definition IS NOT NULL AS in_row, encode(definition_digest, 'hex') AS digest,
       record ? 'workflowId' AS whole FROM runs WHERE workflow_id = $1`,
    [workflowId],
  );
  const row = rows[0];
  assert.ok(row, `run ${workflowId} is stored`);
  return { inRow: row.in_row, digest: row.digest, wholeRecord: row.whole };
};

const kept = async (client: pg.Client): Promise<number> =>
  Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM run_definitions')).rows[0]?.n ?? -1);

const insert = (store: Store, runs: readonly RunRecord[]): Promise<void> =>
  store.transaction(async (tx) => {
    for (const r of runs) await tx.insertRun(r);
  });

void describe('the run definition cache', () => {
  const def = (name: string): WorkflowDef => ({ name, version: 1, tasks: [] });
  const row = (workflowId: string, digest: string | null, definition: WorkflowDef | null = null) => ({
    workflow_id: workflowId,
    definition,
    definition_digest: digest,
  });

  void it('reads the digests it has not met in one call, and keeps the last ones it used', async () => {
    // Room for two of them.
    const cache = new RunDefinitionCache({ budgetBytes: 2 * definitionBytes(def('a')) });
    const asked: string[][] = [];
    const read = (digests: string[]) => {
      asked.push(digests);
      return Promise.resolve(digests.map((d) => ({ digest: d, definition: def(d) })));
    };
    const rows = [row('r1', 'a'), row('r2', 'b'), row('r3', 'a'), row('r4', null, def('in-row'))];
    const of = await cache.resolve(rows, read);
    assert.deepEqual(
      rows.map((r) => of(r).name),
      ['a', 'b', 'a', 'in-row'],
    );
    assert.deepEqual(asked, [['a', 'b']]);
    await cache.resolve([row('r1', 'a')], read);
    assert.equal(asked.length, 1, 'a digest met is not read again');
    // Capacity two: c pushes out the least recently used, b.
    await cache.resolve([row('r5', 'c')], read);
    await cache.resolve([row('r1', 'a'), row('r2', 'b')], read);
    assert.deepEqual(asked.slice(1), [['c'], ['b']]);
  });

  void it('keeps definitions within a byte budget, and none too large for it', async () => {
    let reads = 0;
    const read = (digests: string[]) => {
      reads += 1;
      return Promise.resolve(
        digests.map((d) => ({ digest: d, definition: { ...def(d), description: 'x'.repeat(30_000) } })),
      );
    };
    const resolveAll = async (cache: RunDefinitionCache, digests: string[]) => {
      const of = await cache.resolve(
        digests.map((d, i) => row(`r${i}`, d)),
        read,
      );
      return digests.map((d, i) => of(row(`r${i}`, d)).name);
    };
    // Each counts about 60,000 bytes: two fit in the budget, not three.
    const cache = new RunDefinitionCache({ budgetBytes: 150_000, maxDefinitionBytes: 100_000 });
    assert.deepEqual(await resolveAll(cache, ['d1', 'd2', 'd3']), ['d1', 'd2', 'd3']);
    assert.equal(reads, 1);
    await resolveAll(cache, ['d2', 'd3']);
    assert.equal(reads, 1, 'the last two are kept');
    await resolveAll(cache, ['d1']);
    assert.equal(reads, 2, 'the first was pushed out');
    const small = new RunDefinitionCache({ maxDefinitionBytes: 1_000 });
    assert.deepEqual(await resolveAll(small, ['huge']), ['huge'], 'too large to keep, still answered');
    await resolveAll(small, ['huge']);
    assert.equal(reads, 4, 'and read again');
  });

  void it('fails a read whose digest is not stored, naming the run', async () => {
    const of = await new RunDefinitionCache().resolve([row('run-9', 'ff')], () => Promise.resolve([]));
    assert.throws(() => of(row('run-9', 'ff')), /run run-9: its definition ff is not in run_definitions/);
  });

  void it('digests the JSON text with SHA-256, in hex', () => {
    assert.equal(definitionDigest('{}'), '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });
});

if (enabledStores().includes('postgres')) {
  void describe('compact run rows on PostgreSQL: the record without its columns, one definition row per snapshot', () => {
    let store: Store;
    let client: pg.Client;
    let url: string;
    let close: () => Promise<void> = () => Promise.resolve();

    before(async () => {
      const db = await createTestDatabase();
      url = db.url;
      store = openPostgresStore({ url, poolSize: 2 });
      await store.migrate();
      const { default: Pg } = await import('pg');
      client = new Pg.Client({ connectionString: url });
      await client.connect();
      close = async () => {
        await client.end();
        await store.close();
        await db.drop();
      };
    });

    after(async () => {
      await close();
    });

    void it('keeps one row for every run of a definition, and every read answers it whole', async () => {
      const before = await kept(client);
      const def = { ...workflowDef('shared_wf', 3), description: 'one snapshot for twenty runs' };
      const runs = Array.from({ length: 20 }, (_, i) =>
        run({
          workflowName: 'shared_wf',
          workflowVersion: 3,
          correlationId: `c-${i % 2}`,
          workflowDefinition: def,
        }),
      );
      await insert(store, runs.slice(0, 10));
      await insert(store, runs.slice(10));
      assert.equal(await kept(client), before + 1, 'twenty runs of one definition keep it once');
      const first = await columns(client, runs[0]?.workflowId ?? '');
      assert.equal(first.inRow, false);
      assert.equal(first.wholeRecord, false, 'the record leaves out what the columns hold');
      assert.match(first.digest ?? '', /^[0-9a-f]{64}$/);
      for (const r of runs) assert.deepEqual(await columns(client, r.workflowId), first);

      // A node that has met none of them reads each through every read a run has.
      const fresh = openPostgresStore({ url, poolSize: 2 });
      try {
        const target = runs[3];
        assert.ok(target);
        const read = await fresh.read((tx) => tx.getRun(target.workflowId));
        assert.deepEqual(read, target, 'the run reads back whole');
        const locked = await fresh.transaction((tx) => tx.lockRun(target.workflowId));
        assert.deepEqual(locked?.workflowDefinition, def);
        const byCorrelation = await fresh.read((tx) => tx.runsByCorrelationId('shared_wf', 'c-1', true));
        assert.deepEqual(
          byCorrelation.map((r) => r.workflowId).sort(),
          runs
            .filter((r) => r.correlationId === 'c-1')
            .map((r) => r.workflowId)
            .sort(),
        );
        for (const r of byCorrelation)
          assert.deepEqual(
            r,
            runs.find((x) => x.workflowId === r.workflowId),
          );
        const found = await fresh.read((tx) =>
          tx.searchRuns({ name: 'shared_wf', start: 0, size: 100, sort: [] }),
        );
        assert.equal(found.totalHits, 20);
        for (const r of found.results)
          assert.deepEqual(
            r,
            runs.find((x) => x.workflowId === r.workflowId),
          );
        // Shared by every run the node reads: none may change it for the others.
        assert.ok(Object.isFrozen(read?.workflowDefinition));
        assert.ok(Object.isFrozen(read?.workflowDefinition.tasks));
      } finally {
        await fresh.close();
      }
    });

    void it('keeps two rows for two versions, and a run read within its start transaction', async () => {
      const before = await kept(client);
      const one = run({ workflowName: 'versions', workflowVersion: 1 });
      const two = run({ workflowName: 'versions', workflowVersion: 2 });
      const again = run({ workflowName: 'versions', workflowVersion: 2 });
      const inside = await store.transaction(async (tx) => {
        await tx.insertRun(one);
        await tx.insertRun(two);
        await tx.insertRun(again);
        return tx.lockRun(two.workflowId);
      });
      assert.deepEqual(inside?.workflowDefinition, two.workflowDefinition);
      assert.equal(await kept(client), before + 2);
      const [a, b] = await Promise.all([columns(client, one.workflowId), columns(client, two.workflowId)]);
      assert.notEqual(a.digest, b.digest);
      assert.deepEqual(await columns(client, again.workflowId), b);
    });

    void it('keeps what an update changes in the columns, and optional fields absent when unset', async () => {
      const r = run({ workflowName: 'updated', correlationId: 'before', parentWorkflowId: 'p-1' });
      await insert(store, [r]);
      const ended = {
        ...r,
        status: 'COMPLETED' as const,
        correlationId: 'after',
        priority: 7,
        updateTime: r.updateTime + 5,
        endTime: r.updateTime + 5,
        output: { done: true },
      };
      delete (ended as Partial<RunRecord>).parentWorkflowId;
      await store.transaction(async (tx) => {
        assert.ok(await tx.lockRun(r.workflowId));
        await tx.updateRun(ended);
      });
      const read = await store.read((tx) => tx.getRun(r.workflowId));
      assert.deepEqual(read, ended);
      assert.equal(read !== undefined && 'parentWorkflowId' in read, false);
      assert.equal(read !== undefined && 'idempotencyKey' in read, false);
    });

    void it('an upgraded database writes whole rows until switched, and reads both', async () => {
      const db = await createTestDatabase();
      const made = openPostgresStore({ url: db.url, poolSize: 2 });
      let upgraded: Store | undefined;
      let switched: Store | undefined;
      const { default: Pg } = await import('pg');
      const own = new Pg.Client({ connectionString: db.url });
      try {
        await made.migrate();
        await made.close();
        await own.connect();
        const setting = async (): Promise<string | undefined> =>
          (await own.query<{ value: string }>("SELECT value FROM store_settings WHERE name = 'run_rows'"))
            .rows[0]?.value;
        // As on a database upgraded from an earlier release.
        await own.query("UPDATE store_settings SET value = 'whole' WHERE name = 'run_rows'");
        upgraded = openPostgresStore({ url: db.url, poolSize: 2 });
        await upgraded.migrate();
        assert.equal(await setting(), 'whole', 'a node that did not make the database leaves the setting');
        const old = run({ workflowName: 'upgrade' });
        await insert(upgraded, [old]);
        assert.deepEqual(await columns(own, old.workflowId), {
          inRow: true,
          digest: null,
          wholeRecord: true,
        });
        assert.equal(await kept(own), 0);
        await upgraded.close();

        // The operator switches: new runs share, the run written before reads as it was.
        await own.query("UPDATE store_settings SET value = 'compact' WHERE name = 'run_rows'");
        switched = openPostgresStore({ url: db.url, poolSize: 2 });
        await switched.migrate();
        const next = run({ workflowName: 'upgrade' });
        await insert(switched, [next]);
        const compact = await columns(own, next.workflowId);
        assert.equal(compact.inRow, false);
        assert.equal(compact.wholeRecord, false);
        assert.equal(await kept(own), 1);
        for (const r of [old, next]) {
          const read: RunRecord | undefined = await switched.read((tx) => tx.getRun(r.workflowId));
          assert.deepEqual(read, r);
        }
        // A whole row written again after the switch: its record compact, its definition where it was.
        const oldEnded = {
          ...old,
          status: 'TERMINATED' as const,
          updateTime: old.updateTime + 1,
          endTime: old.updateTime + 1,
        };
        await switched.transaction(async (tx) => {
          assert.ok(await tx.lockRun(old.workflowId));
          await tx.updateRun(oldEnded);
        });
        assert.deepEqual(await columns(own, old.workflowId), {
          inRow: true,
          digest: null,
          wholeRecord: false,
        });
        assert.deepEqual(await switched.read((tx) => tx.getRun(old.workflowId)), oldEnded);

        await own.query("UPDATE store_settings SET value = 'somewhere' WHERE name = 'run_rows'");
        const wrong = openPostgresStore({ url: db.url, poolSize: 2 });
        await assert.rejects(wrong.migrate(), /store_settings\.run_rows is "somewhere"/);
        await wrong.close();
      } finally {
        await own.end().catch(() => {});
        await upgraded?.close().catch(() => {});
        await switched?.close().catch(() => {});
        await db.drop();
      }
    });
  });
}
