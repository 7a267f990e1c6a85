import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import Database from 'better-sqlite3';

import type { TaskRecord } from '@baton/protocol';

import { openSqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import { storedTaskRecord } from '../../src/store/task-record-storage.js';
import { rawSql } from '../helpers/raw-sql.js';
import { storeCases } from '../helpers/stores.js';
import { run } from './fixtures.js';
import { readsBack, searchableTasks, searchesFind, storeRunOf } from './task-record-fixtures.js';

// SQLite packs task records (schema step packed-task-records): a row keeps in its JSON record only
// what an index reads, and the rest compressed. Every read, the decide set and every search answer
// what was written, for rows packed and for rows an earlier release wrote whole; a row that cannot
// be unpacked fails its read by name.
for (const c of storeCases().filter((s) => s.name === 'sqlite')) {
  void describe(`store: packed task records (${c.name})`, () => {
    void it('packs every version, keeps in clear only what an index reads, and reads and searches it all back', async () => {
      const h = await c.open();
      try {
        const { r, tasks } = await storeRunOf(h.store, searchableTasks);
        await readsBack(h.store, r.workflowId, tasks);
        await searchesFind(h.store, tasks);
        const db = new Database(h.file ?? '', { readonly: true });
        try {
          const rows = db.prepare('SELECT record, packed FROM tasks ORDER BY seq').all() as Array<{
            record: string;
            packed: Buffer | null;
          }>;
          for (const row of rows) {
            assert.ok(Buffer.isBuffer(row.packed), 'every version is packed');
            const clear = Object.keys(JSON.parse(row.record) as object);
            assert.ok(
              clear.every((k) => ['workflowType', 'startTime', 'executed'].includes(k)),
              `only what an index reads stays in clear: ${row.record}`,
            );
          }
          assert.equal((JSON.parse(rows[1]?.record ?? '{}') as { executed?: boolean }).executed, false);
          assert.ok((rows[0]?.packed?.length ?? 0) < 2_000, 'the 20 kB repeated output packs small');
        } finally {
          db.close();
        }
        // An update rewrites both parts.
        const ended = {
          ...tasks[2],
          status: 'COMPLETED',
          executed: true,
          outputData: { late: 'value' },
        } as TaskRecord;
        await h.store.transaction((tx) => tx.updateTasks([ended]));
        await readsBack(h.store, r.workflowId, [tasks[0], tasks[1], ended] as TaskRecord[]);
      } finally {
        await h.cleanup();
      }
    });

    void it('upgrades a database whose records were stored whole: reads and searches answer the same, later writes pack', async () => {
      const h = await c.open();
      const file = h.file ?? '';
      try {
        const { r, tasks } = await storeRunOf(h.store, searchableTasks);
        await h.store.close();
        // As the release before left it: compact JSON text records, no packed column.
        await rawSql(h, [
          ...tasks.map(
            (t) =>
              `UPDATE tasks SET record = '${storedTaskRecord(t).replace(/'/g, "''")}' WHERE task_id = '${t.taskId}'`,
          ),
          'ALTER TABLE tasks DROP COLUMN packed',
          "DELETE FROM schema_migrations WHERE name = 'packed-task-records'",
        ]);
        const store = openSqliteStore({ file });
        try {
          await store.migrate();
          await readsBack(store, r.workflowId, tasks);
          await searchesFind(store, tasks);
          const raw = () => {
            const db = new Database(file, { readonly: true });
            try {
              return db.prepare('SELECT task_id, packed FROM tasks ORDER BY seq').all() as Array<{
                task_id: string;
                packed: Buffer | null;
              }>;
            } finally {
              db.close();
            }
          };
          assert.deepEqual(
            raw().map((row) => row.packed),
            [null, null, null],
            'rows written before stay whole',
          );
          const acted = { ...tasks[1], executed: true } as TaskRecord;
          await store.transaction((tx) => tx.updateTasks([acted]));
          assert.ok(Buffer.isBuffer(raw()[1]?.packed), 'a rewritten row is packed');
          await readsBack(store, r.workflowId, [tasks[0], acted, tasks[2]] as TaskRecord[]);
          await searchesFind(store, [tasks[0], acted, tasks[2]] as TaskRecord[]);
        } finally {
          await store.close();
        }
      } finally {
        await h.cleanup().catch(() => {});
      }
    });

    void it('fails the read of a row whose packed record is damaged, naming the task', async () => {
      const h = await c.open();
      try {
        const r = run();
        const [first] = searchableTasks(r.workflowId) as [TaskRecord];
        await h.store.transaction(async (tx) => {
          await tx.insertRun(r);
          await tx.insertTasks([first]);
        });
        await rawSql(h, [`UPDATE tasks SET packed = x'01ffffffff' WHERE task_id = '${first.taskId}'`]);
        await assert.rejects(
          h.store.read((tx) => tx.getTask(first.taskId)),
          (e: unknown) =>
            e instanceof Error &&
            e.message.startsWith(`task ${first.taskId}: its stored record does not unpack`),
        );
      } finally {
        await h.cleanup();
      }
    });
  });
}
