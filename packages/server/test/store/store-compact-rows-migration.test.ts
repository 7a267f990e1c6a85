import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import Database from 'better-sqlite3';

import { openSqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import { rawSql } from '../helpers/raw-sql.js';
import { storeCases } from '../helpers/stores.js';
import { run, task } from './fixtures.js';

// An SQLite database whose task records and run definitions were stored whole, and whose
// latest-task table had rowids, upgrades in place (schema step compact-rows): every read answers
// what it answered before, the stored task records lose what the columns and the usual values
// carry, runs of one definition share one stored copy, and the latest-task rows are kept in a
// WITHOUT ROWID table. (PostgreSQL has no such step yet.)
for (const c of storeCases().filter((s) => s.name === 'sqlite')) {
  void describe(`store migration: compact rows (${c.name})`, () => {
    void it('rewrites whole task records and run definitions compact and keeps every read and the decide set', async () => {
      const h = await c.open();
      const file = h.file ?? '';
      try {
        const r = run();
        const same = run();
        const other = run({ workflowVersion: 2 });
        const tasks = [
          task(r.workflowId, 1, {
            status: 'COMPLETED',
            executed: true,
            outputData: { ok: true },
            pollCount: 1,
          }),
          task(r.workflowId, 2, {
            status: 'FAILED',
            executed: true,
            retried: true,
            reasonForIncompletion: 'no',
          }),
          task(r.workflowId, 3, { retryCount: 1, retriedTaskId: 'x', taskDefName: 'other', iteration: 2 }),
        ];
        await h.store.transaction(async (tx) => {
          for (const each of [r, same, other]) await tx.insertRun(each);
          await tx.insertTasks(tasks);
        });
        await h.store.close();
        // As the earlier release left the database: whole records, task_latest with rowids and a row
        // for every task (this release writes none for a run whose names never repeat).
        await rawSql(h, [
          ...tasks.map(
            (t) =>
              `UPDATE tasks SET record = '${JSON.stringify(t).replace(/'/g, "''")}' WHERE task_id = '${t.taskId}'`,
          ),
          'CREATE TABLE task_latest_old (workflow_id TEXT NOT NULL, name TEXT NOT NULL, seq INTEGER NOT NULL, task_id TEXT NOT NULL, PRIMARY KEY (workflow_id, name)) STRICT',
          'INSERT INTO task_latest_old SELECT workflow_id, reference_task_name, seq, task_id FROM tasks',
          'DROP TABLE task_latest',
          'ALTER TABLE task_latest_old RENAME TO task_latest',
          `UPDATE runs SET definition = (SELECT d.definition FROM run_definitions AS d WHERE '#' || d.id = runs.definition)`,
          'DROP TABLE run_definitions',
          'ALTER TABLE tasks DROP COLUMN packed',
          "DELETE FROM schema_migrations WHERE name IN ('compact-rows', 'packed-task-records')",
        ]);
        const store = openSqliteStore({ file });
        try {
          await store.migrate();
          for (const each of [r, same, other])
            assert.deepEqual(await store.read((tx) => tx.getRun(each.workflowId)), each);
          const read = await store.read((tx) => tx.getRunTasks(r.workflowId));
          assert.deepEqual(read, tasks);
          assert.deepEqual(await store.read((tx) => tx.getTask(tasks[2]?.taskId ?? '')), tasks[2]);
          const decide = await store.read((tx) => tx.getDecideTasks(r.workflowId));
          assert.deepEqual(
            decide.map((t) => t.taskId),
            tasks.map((t) => t.taskId),
          );
          const db = new Database(file, { readonly: true });
          try {
            const records = db.prepare('SELECT record FROM tasks ORDER BY seq').all() as Array<{
              record: string;
            }>;
            for (const row of records) {
              const stored = JSON.parse(row.record) as Record<string, unknown>;
              for (const field of [
                'taskId',
                'workflowInstanceId',
                'seq',
                'status',
                'updateTime',
                'startDelayInSeconds',
              ])
                assert.equal(field in stored, false, `${field} left the stored record: ${row.record}`);
            }
            const first = JSON.parse(records[0]?.record ?? '{}') as Record<string, unknown>;
            assert.equal('executed' in first, false, 'executed true is the usual value');
            const third = JSON.parse(records[2]?.record ?? '{}') as Record<string, unknown>;
            assert.equal(third.executed, false, 'executed false stays for the decide set');
            assert.equal(third.taskDefName, 'other');
            assert.equal(third.retryCount, 1);
            const latest = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'task_latest'").get() as {
              sql: string;
            };
            assert.match(latest.sql, /WITHOUT ROWID/);
            const count = db.prepare('SELECT count(*) AS n FROM task_latest').get() as { n: number };
            assert.equal(count.n, 3);
            const refs = db.prepare('SELECT DISTINCT definition FROM runs').all() as Array<{
              definition: string;
            }>;
            assert.equal(refs.length, 2, 'two definitions, two stored copies');
            for (const ref of refs) assert.match(ref.definition, /^#\d+$/);
          } finally {
            db.close();
          }
        } finally {
          await store.close();
        }
      } finally {
        await rm(h);
      }
    });
  });
}

async function rm(h: { cleanup(): Promise<void> }): Promise<void> {
  await h.cleanup().catch(() => {});
}
