import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import type pg from 'pg';
import type { RunRecord, TaskRecord } from '@baton/protocol';

import { openPostgresStore } from '../../src/store-postgres/postgres-store.js';
import { SQLITE_MIGRATIONS } from '../../src/store-sqlite/migrations.js';
import { openSqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, enabledStores } from '../helpers/postgres.js';
import { rawQuery } from '../helpers/raw-sql.js';
import { storeCases } from '../helpers/stores.js';
import { storeSuite } from '../helpers/store-suite.js';
import { T0, run, task } from './fixtures.js';

/**
 * A run keeps `task_latest` rows only once one of its names has had a second task, and then for
 * every name (store/latest-by-name.ts), on both dialects: a run whose names never repeat writes
 * none, and its decide set is every task it has. What a decision is given stays the same either
 * way (store-decide-set.test.ts). A PostgreSQL database upgraded to the step keeps a row for every
 * task until its operator switches (`store_settings.latest_by_name`); an SQLite one, which one
 * process owns, keeps the rows of the runs written before and writes by the rule from then on.
 */

const ids = (tasks: readonly TaskRecord[]): string[] => tasks.map((t) => t.taskId);
const ended = (t: TaskRecord, extra: Partial<TaskRecord> = {}): TaskRecord => ({
  ...t,
  status: 'COMPLETED',
  executed: true,
  endTime: T0 + t.seq,
  updateTime: T0 + t.seq,
  ...extra,
});

const insertRun = (store: Store, r: RunRecord, tasks: TaskRecord[]): Promise<void> =>
  store.transaction(async (tx) => {
    await tx.insertRun(r);
    await tx.insertTasks(tasks);
  });

/** A decision's transaction as the engine runs it: the run locked, its decide set read, then the writes. */
const decideOn = (
  store: Store,
  workflowId: string,
  write: (decideSet: TaskRecord[]) => { inserted?: TaskRecord[]; updated?: TaskRecord[] },
): Promise<void> =>
  store.transaction(async (tx) => {
    assert.ok(await tx.lockRun(workflowId));
    const { inserted = [], updated = [] } = write(await tx.getDecideTasks(workflowId));
    await tx.insertTasks(inserted);
    await tx.updateTasks(updated);
  });

/** A run whose names do not repeat: `a` ended, `b` in progress. */
const runOfTwo = (): { r: RunRecord; a: TaskRecord; b: TaskRecord } => {
  const r = run();
  return {
    r,
    a: ended(task(r.workflowId, 1, { referenceTaskName: 'a' })),
    b: task(r.workflowId, 2, { referenceTaskName: 'b', status: 'IN_PROGRESS' }),
  };
};

for (const c of storeCases()) {
  void describe(`latest task by name (${c.name}): rows only for runs that repeat a name`, () => {
    const { store, opened } = storeSuite(c);

    const latestRows = async (workflowId: string): Promise<Array<[string, string]>> =>
      (
        await rawQuery<{ name: string; task_id: string }>(
          opened,
          'SELECT name, task_id FROM task_latest WHERE workflow_id = $1 ORDER BY name',
          [workflowId],
        )
      ).map((r) => [r.name, r.task_id]);

    void it('a straight line writes no rows, and its decide set is every task it has', async () => {
      const r = run();
      let current = task(r.workflowId, 1, { referenceTaskName: 'step_1', status: 'IN_PROGRESS' });
      await insertRun(store, r, [current]);
      const done: TaskRecord[] = [];
      for (let seq = 2; seq <= 6; seq++) {
        const next = task(r.workflowId, seq, { referenceTaskName: `step_${seq}`, status: 'IN_PROGRESS' });
        const finished = ended(current);
        await decideOn(store, r.workflowId, (set) => {
          assert.deepEqual(ids(set), ids([...done, current]));
          return { inserted: [next], updated: [finished] };
        });
        done.push(finished);
        current = next;
      }
      assert.deepEqual(await latestRows(r.workflowId), []);
      assert.deepEqual(await store.read((tx) => tx.getDecideTasks(r.workflowId)), [...done, current]);
    });

    void it('a retry writes the rows of every name at once, and the run stays by name', async () => {
      const { r, a, b } = runOfTwo();
      await insertRun(store, r, [a, b]);
      const failed = ended(b, { status: 'FAILED', retried: true });
      const retry = task(r.workflowId, 3, {
        referenceTaskName: 'b',
        retriedTaskId: b.taskId,
        retryCount: 1,
        status: 'IN_PROGRESS',
      });
      await decideOn(store, r.workflowId, () => ({ inserted: [retry], updated: [failed] }));
      assert.deepEqual(
        await latestRows(r.workflowId),
        [
          ['a', a.taskId],
          ['b', retry.taskId],
        ],
        'a row for every name, the retry the latest of b',
      );
      // The failed attempt is neither open, pending nor the latest of its name any more.
      assert.deepEqual(ids(await store.read((tx) => tx.getDecideTasks(r.workflowId))), ids([a, retry]));
      // A new name afterwards gets its row as before.
      const c = task(r.workflowId, 4, { referenceTaskName: 'c', status: 'IN_PROGRESS' });
      await decideOn(store, r.workflowId, (set) => {
        assert.deepEqual(ids(set), ids([a, retry]));
        return { inserted: [c], updated: [ended(retry)] };
      });
      assert.deepEqual(
        (await latestRows(r.workflowId)).map(([name]) => name),
        ['a', 'b', 'c'],
      );
      assert.deepEqual(ids(await store.read((tx) => tx.getDecideTasks(r.workflowId))), ids([a, retry, c]));
    });

    void it('a transaction that has not read the run reads it before it writes a repeated name', async () => {
      const r = run();
      const first = ended(task(r.workflowId, 1, { referenceTaskName: 'x__1', iteration: 1 }));
      const other = ended(task(r.workflowId, 2, { referenceTaskName: 'y' }));
      await insertRun(store, r, [first, other]);
      assert.deepEqual(await latestRows(r.workflowId), []);
      // No lock, no decide set: the write finds out by itself that `x` repeats.
      const second = task(r.workflowId, 3, { referenceTaskName: 'x__2', iteration: 2 });
      await store.transaction((tx) => tx.insertTasks([second]));
      assert.deepEqual(await latestRows(r.workflowId), [
        ['x', second.taskId],
        ['y', other.taskId],
      ]);
      assert.deepEqual(ids(await store.read((tx) => tx.getDecideTasks(r.workflowId))), ids([other, second]));
    });

    void it('a run inserted with a repeated name (a retry of a run) is by name from its first write', async () => {
      const r = run();
      const failed = ended(task(r.workflowId, 1, { referenceTaskName: 'a' }), {
        status: 'FAILED',
        retried: true,
      });
      const again = task(r.workflowId, 2, { referenceTaskName: 'a', retriedTaskId: failed.taskId });
      const z = ended(task(r.workflowId, 3, { referenceTaskName: 'z' }));
      await insertRun(store, r, [failed, again, z]);
      assert.deepEqual(await latestRows(r.workflowId), [
        ['a', again.taskId],
        ['z', z.taskId],
      ]);
      assert.deepEqual(ids(await store.read((tx) => tx.getDecideTasks(r.workflowId))), ids([again, z]));
    });

    void it('a run with rows from an earlier release keeps them current', async () => {
      const { r, a, b } = runOfTwo();
      await insertRun(store, r, [a, b]);
      // What every release before wrote: a row for each name.
      await rawQuery(
        opened,
        `INSERT INTO task_latest (workflow_id, name, seq, task_id) VALUES ($1, 'a', 1, $2), ($1, 'b', 2, $3)`,
        [r.workflowId, a.taskId, b.taskId],
      );
      const c = task(r.workflowId, 3, { referenceTaskName: 'c', status: 'IN_PROGRESS' });
      await decideOn(store, r.workflowId, () => ({ inserted: [c], updated: [ended(b)] }));
      assert.deepEqual(
        (await latestRows(r.workflowId)).map(([name]) => name),
        ['a', 'b', 'c'],
      );
      assert.deepEqual(ids(await store.read((tx) => tx.getDecideTasks(r.workflowId))), ids([a, b, c]));
    });
  });
}

if (enabledStores().includes('postgres')) {
  void describe('latest task by name on PostgreSQL: a database upgraded to the step', () => {
    const latestCount = async (client: pg.Client, workflowId: string): Promise<number> =>
      (
        await client.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM task_latest WHERE workflow_id = $1',
          [workflowId],
        )
      ).rows[0]?.n ?? -1;

    void it('keeps a row for every task until switched, and a run made unnamed gets all its rows back', async () => {
      const db = await createTestDatabase();
      const made = openPostgresStore({ url: db.url, poolSize: 2 });
      let upgraded: Store | undefined;
      const { default: Pg } = await import('pg');
      const client = new Pg.Client({ connectionString: db.url });
      try {
        await made.migrate();
        await client.connect();
        const setting = async (): Promise<string | undefined> =>
          (
            await client.query<{ value: string }>(
              "SELECT value FROM store_settings WHERE name = 'latest_by_name'",
            )
          ).rows[0]?.value;
        assert.equal(
          await setting(),
          'on-repeat',
          'a database the step makes is set by the node that makes it',
        );
        // A run written unnamed, while the database was set so.
        const { r: unnamed, a, b } = runOfTwo();
        await insertRun(made, unnamed, [a, b]);
        assert.equal(await latestCount(client, unnamed.workflowId), 0);
        await made.close();

        // As on a database upgraded from an earlier release: every task keeps its row.
        await client.query("UPDATE store_settings SET value = 'every-task' WHERE name = 'latest_by_name'");
        upgraded = openPostgresStore({ url: db.url, poolSize: 2 });
        await upgraded.migrate();
        const line = run();
        const first = task(line.workflowId, 1, { referenceTaskName: 'first', status: 'IN_PROGRESS' });
        await insertRun(upgraded, line, [first]);
        assert.equal(await latestCount(client, line.workflowId), 1);
        const second = task(line.workflowId, 2, { referenceTaskName: 'second', status: 'IN_PROGRESS' });
        await decideOn(upgraded, line.workflowId, () => ({ inserted: [second], updated: [ended(first)] }));
        assert.equal(await latestCount(client, line.workflowId), 2);
        // The unnamed run's next write gives it the rows of every name, not only its own.
        const c = task(unnamed.workflowId, 3, { referenceTaskName: 'c', status: 'IN_PROGRESS' });
        await decideOn(upgraded, unnamed.workflowId, () => ({ inserted: [c], updated: [ended(b)] }));
        assert.equal(await latestCount(client, unnamed.workflowId), 3);
        assert.deepEqual(
          ids(await upgraded.read((tx) => tx.getDecideTasks(unnamed.workflowId))),
          ids([a, b, c]),
        );
        // A value the node does not know stops it at start, naming the setting.
        await upgraded.close();
        upgraded = undefined;
        await client.query("UPDATE store_settings SET value = 'sometimes' WHERE name = 'latest_by_name'");
        const refused = openPostgresStore({ url: db.url, poolSize: 2 });
        await assert.rejects(refused.migrate(), /store_settings\.latest_by_name is "sometimes"/);
        await refused.close();
      } finally {
        await client.end().catch(() => {});
        await upgraded?.close();
        await made.close().catch(() => {});
        await db.drop();
      }
    });
  });
}

if (enabledStores().includes('sqlite')) {
  void describe('latest task by name on SQLite: a database upgraded to the step', () => {
    const STEP = 'embedded-latest-by-name-on-repeat';
    const before = SQLITE_MIGRATIONS.filter((m) => m.name !== STEP);

    void it('keeps the rows of runs written before, writes by the rule after, and refuses an earlier release', async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'baton-latest-'));
      const file = path.join(dir, 'baton.db');
      const count = async (workflowId: string): Promise<number> =>
        (
          await rawQuery<{ n: number }>(
            { file },
            'SELECT count(*) AS n FROM task_latest WHERE workflow_id = $1',
            [workflowId],
          )
        )[0]?.n ?? -1;
      try {
        // An earlier release (the steps before this one) writes a row for every task.
        const earlier = openSqliteStore({ file, synchronous: 'NORMAL', migrations: before });
        await earlier.migrate();
        const { r: old, a, b } = runOfTwo();
        await insertRun(earlier, old, [a, b]);
        assert.equal(await count(old.workflowId), 2);
        await earlier.close();

        const upgraded = openSqliteStore({ file, synchronous: 'NORMAL' });
        try {
          await upgraded.migrate();
          // The run written before stays by name: a new name gets its row, the ended task stays.
          const c = task(old.workflowId, 3, { referenceTaskName: 'c', status: 'IN_PROGRESS' });
          await decideOn(upgraded, old.workflowId, () => ({ inserted: [c], updated: [ended(b)] }));
          assert.equal(await count(old.workflowId), 3);
          assert.deepEqual(
            ids(await upgraded.read((tx) => tx.getDecideTasks(old.workflowId))),
            ids([a, b, c]),
          );
          // A run started now writes none while its names do not repeat.
          const line = run();
          const first = task(line.workflowId, 1, { referenceTaskName: 'first', status: 'IN_PROGRESS' });
          await insertRun(upgraded, line, [first]);
          assert.equal(await count(line.workflowId), 0);
        } finally {
          await upgraded.close();
        }

        // An earlier release would read that run's decide set without its ended tasks: it refuses.
        const refused = openSqliteStore({ file, synchronous: 'NORMAL', migrations: before });
        await assert.rejects(refused.migrate(), /schema/i);
        await refused.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
}
