import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { TaskRecord } from '@baton/protocol';

import { toTaskQuery } from '../../src/search/task-search.js';
import type { Store } from '../../src/store/store.js';
import { storedTaskRecord } from '../../src/store/task-record-storage.js';
import pg from 'pg';

import { POSTGRES_MIGRATIONS } from '../../src/store-postgres/migrations.js';
import { openPostgresStore } from '../../src/store-postgres/postgres-store.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { rawSql } from '../helpers/raw-sql.js';
import { storeCases } from '../helpers/stores.js';
import { run, task } from './fixtures.js';
import { readsBack, searchableTasks, searchesFind, storeRunOf } from './task-record-fixtures.js';

// PostgreSQL reads a task row in every shape: whole, as the releases before compact records write
// it; compact (the columns and the usual values left out, store/task-record-storage.ts); packed
// (store-postgres/record-shape.ts). A database holding all three reads exactly what was written,
// through every read of task rows: one task, several, a run's tasks, the decide set (with a run
// lock and without) and searches.
/** The searchable tasks, and one in progress holding values other than the usual ones. */
function tasksOf(workflowId: string): TaskRecord[] {
  return [
    ...searchableTasks(workflowId),
    task(workflowId, 4, { status: 'IN_PROGRESS', iteration: 2, workflowPriority: 3, retried: true }),
  ];
}

async function readsEverything(
  store: Store,
  workflowId: string,
  tasks: readonly TaskRecord[],
): Promise<void> {
  await readsBack(store, workflowId, tasks);
  // In a transaction the decide set comes with the run's lock, and the task read locking the run
  // from it: a task changed by its caller must not change the set read with it.
  await store.transaction(async (tx) => {
    const first = tasks[0];
    assert.ok(first);
    const locked = await tx.getTaskLockingRun(first.taskId, workflowId);
    assert.deepEqual(locked, first);
    if (locked) locked.status = 'CANCELED';
    assert.ok(await tx.lockRun(workflowId));
    assert.deepEqual(await tx.getDecideTasks(workflowId), tasks);
  });
  const searched = await store.read((tx) =>
    tx.searchTasks(toTaskQuery({ workflowId, sort: 'updateTime:ASC' })),
  );
  assert.equal(searched.totalHits, tasks.length);
  assert.deepEqual(
    [...searched.results].sort((a, b) => a.seq - b.seq),
    tasks,
  );
  const byText = await store.read((tx) =>
    tx.searchTasks(toTaskQuery({ freeText: 'needle-in-output', workflowId })),
  );
  assert.deepEqual(byText.results, [tasks[0]]);
}

for (const c of storeCases().filter((s) => s.name === 'postgres')) {
  void describe(`store: task records read in every shape (${c.name})`, () => {
    void it('reads packed, whole and compact records alike, mixed in one run', async () => {
      const h = await c.open();
      try {
        const { r, tasks } = await storeRunOf(h.store, tasksOf);
        // A database this release made packs its rows from the first.
        await rawSql(h, [
          `DO $$ BEGIN IF (SELECT count(*) FROM tasks WHERE packed IS NOT NULL AND NOT record ? 'inputData') <> 4 THEN RAISE 'not packed'; END IF; END $$`,
        ]);
        await readsEverything(h.store, r.workflowId, tasks);
        // Task 1 stays packed; 3 compact, as the previous release's reader allows; 2 and 4 whole,
        // as every earlier release writes them.
        const sqlText = (text: string) => `'${text.replace(/'/g, "''")}'::jsonb`;
        await rawSql(h, [
          ...[tasks[2]].flatMap((t) =>
            t
              ? [
                  `UPDATE tasks SET record = ${sqlText(storedTaskRecord(t))}, packed = NULL WHERE task_id = '${t.taskId}'`,
                ]
              : [],
          ),
          ...[tasks[1], tasks[3]].flatMap((t) =>
            t
              ? [
                  `UPDATE tasks SET record = ${sqlText(JSON.stringify(t))}, packed = NULL WHERE task_id = '${t.taskId}'`,
                ]
              : [],
          ),
        ]);
        await rawSql(h, [
          `DO $$ BEGIN IF (SELECT count(*) FROM tasks WHERE record ? 'taskId') <> 2 OR (SELECT count(*) FROM tasks WHERE packed IS NOT NULL) <> 1 THEN RAISE 'not mixed'; END IF; END $$`,
        ]);
        await readsEverything(h.store, r.workflowId, tasks);
        // Free text finds a whole row by SQL and a packed one in the server, in one answer.
        const both = await h.store.read((tx) =>
          tx.searchTasks(toTaskQuery({ freeText: 'CRÈME', workflowId: r.workflowId })),
        );
        assert.deepEqual(both.results, [tasks[0]]);
        await rawSql(h, [
          `UPDATE tasks SET record = jsonb_set(record, '{inputData}', '{"note": "crème again"}') WHERE task_id = '${tasks[1]?.taskId}'`,
        ]);
        const mixed = await h.store.read((tx) =>
          tx.searchTasks(
            toTaskQuery({ freeText: 'crème', workflowId: r.workflowId, sort: 'updateTime:ASC' }),
          ),
        );
        assert.equal(mixed.totalHits, 2);
        assert.deepEqual(
          mixed.results.map((t) => t.taskId).sort(),
          [tasks[0]?.taskId, tasks[1]?.taskId].sort(),
        );
      } finally {
        await h.cleanup();
      }
    });

    void it('finds packed rows by every search field: the clear ones in SQL, free text in the server', async () => {
      const h = await c.open();
      try {
        const { tasks } = await storeRunOf(h.store, searchableTasks);
        await rawSql(h, [
          `DO $$ BEGIN IF (SELECT count(*) FROM tasks WHERE packed IS NULL) <> 0 THEN RAISE 'not packed'; END IF; END $$`,
        ]);
        await searchesFind(h.store, tasks);
      } finally {
        await h.cleanup();
      }
    });

    void it('nodes that make a database together all pack: the one that migrates sets it, the others read it', async () => {
      const db = await createTestDatabase();
      const nodes = [0, 1, 2].map(() => openPostgresStore({ url: db.url, poolSize: 2 }));
      try {
        await Promise.all(nodes.map((n) => n.migrate()));
        const r = run();
        await nodes[0]?.transaction((tx) => tx.insertRun(r));
        const tasks = searchableTasks(r.workflowId);
        await Promise.all(nodes.map((n, i) => n.transaction((tx) => tx.insertTasks(tasks.slice(i, i + 1)))));
        await rawSql({ url: db.url }, [
          `DO $$ BEGIN IF (SELECT count(*) FROM tasks WHERE packed IS NOT NULL) <> 3 THEN RAISE 'not every node packs'; END IF; END $$`,
        ]);
        for (const n of nodes) await readsBack(n, r.workflowId, tasks);
      } finally {
        await Promise.all(nodes.map((n) => n.close()));
        await db.drop();
      }
    });

    void it('an upgraded database keeps writing whole records until its operator switches it', async () => {
      const db = await createTestDatabase();
      const open = (migrations?: typeof POSTGRES_MIGRATIONS) =>
        openPostgresStore({ url: db.url, poolSize: 2, ...(migrations && { migrations }) });
      const written = async (taskId: string) => {
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        try {
          const answer = await client.query<{ whole: boolean; packed: boolean }>(
            "SELECT record ? 'taskId' AS whole, packed IS NOT NULL AS packed FROM tasks WHERE task_id = $1",
            [taskId],
          );
          return answer.rows[0];
        } finally {
          await client.end();
        }
      };
      try {
        // The previous release's schema, with a run in it.
        const before = open(
          POSTGRES_MIGRATIONS.slice(
            0,
            POSTGRES_MIGRATIONS.findIndex((m) => m.name === 'task-record-shape'),
          ),
        );
        await before.migrate();
        const r = run();
        const [first, second] = tasksOf(r.workflowId);
        assert.ok(first && second);
        await before.transaction((tx) => tx.insertRun(r));
        await before.close();
        // Its task as that release writes it (this release's writes name the column it lacks).
        const q = (v: string): string => `'${v.replaceAll("'", "''")}'`;
        await rawSql({ url: db.url }, [
          `INSERT INTO tasks (task_id, workflow_id, seq, reference_task_name, task_type, status, update_time, record)
           VALUES (${q(first.taskId)}, ${q(first.workflowInstanceId)}, ${first.seq}, ${q(first.referenceTaskName)},
             ${q(first.taskType)}, ${q(first.status)}, ${first.updateTime}, ${q(JSON.stringify(first))}::jsonb)`,
        ]);

        // This release migrates it and keeps the whole shape: earlier nodes may still be running.
        const upgraded = open();
        await upgraded.migrate();
        await upgraded.transaction((tx) => tx.insertTasks([second]));
        assert.deepEqual(await written(second.taskId), { whole: true, packed: false });
        await upgraded.close();

        // The operator switches once every node runs this release; each node packs from its next start.
        await rawSql({ url: db.url }, [
          "UPDATE store_settings SET value = 'packed' WHERE name = 'task_records'",
        ]);
        const switched = open();
        await switched.migrate();
        const done = { ...first, status: 'COMPLETED' as const, outputData: { after: 'switch' } };
        await switched.transaction((tx) => tx.updateTasks([done]));
        assert.deepEqual(await written(first.taskId), { whole: false, packed: true });
        assert.deepEqual(await switched.read((tx) => tx.getRunTasks(r.workflowId)), [done, second]);
        await switched.close();

        // A setting no release knows is refused at start, by name.
        await rawSql({ url: db.url }, [
          "UPDATE store_settings SET value = 'zipped' WHERE name = 'task_records'",
        ]);
        const refused = open();
        await assert.rejects(
          refused.migrate(),
          /store_settings\.task_records is "zipped": it must be one of whole, packed/,
        );
        await refused.close();
      } finally {
        await db.drop();
      }
    });
  });
}
