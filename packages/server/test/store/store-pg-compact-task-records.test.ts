import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { TaskRecord } from '@baton/protocol';

import { toTaskQuery } from '../../src/search/task-search.js';
import type { Store } from '../../src/store/store.js';
import { storedTaskRecord } from '../../src/store/task-record-storage.js';
import { rawSql } from '../helpers/raw-sql.js';
import { storeCases } from '../helpers/stores.js';
import { run, task } from './fixtures.js';

// PostgreSQL reads a task row's record in either shape: whole, as every release so far writes it,
// or compact (the columns and the usual values left out, store/task-record-storage.ts). A database
// holding both reads exactly what was written, through every read of task rows: one task, several,
// a run's tasks, the decide set (with a run lock and without) and searches.
const T = 1_764_000_000_000;

function tasksOf(workflowId: string): TaskRecord[] {
  return [
    task(workflowId, 1, {
      status: 'COMPLETED',
      executed: true,
      scheduledTime: T,
      startTime: T + 10,
      endTime: T + 20,
      workerId: 'worker-a',
      inputData: { note: 'crème brûlée 🎉' },
      outputData: { result: 'needle-in-output' },
      pollCount: 1,
    }),
    // executed false: the decide set's partial index reads it from the record, so it is stored.
    task(workflowId, 2, {
      status: 'FAILED',
      executed: false,
      retried: true,
      reasonForIncompletion: 'it broke',
    }),
    task(workflowId, 3, { status: 'SCHEDULED', scheduledTime: T + 50, retryCount: 1, taskDefName: 'other' }),
    task(workflowId, 4, { status: 'IN_PROGRESS', iteration: 2, workflowPriority: 3 }),
  ];
}

async function readsEverything(
  store: Store,
  workflowId: string,
  tasks: readonly TaskRecord[],
): Promise<void> {
  assert.deepEqual(await store.read((tx) => tx.getRunTasks(workflowId)), tasks);
  for (const t of tasks) assert.deepEqual(await store.read((tx) => tx.getTask(t.taskId)), t);
  assert.deepEqual(
    await store.read((tx) => tx.getTasks(tasks.map((t) => t.taskId).reverse())),
    [...tasks].reverse(),
  );
  assert.deepEqual(await store.read((tx) => tx.getDecideTasks(workflowId)), tasks);
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
  void describe(`store: compact task records read (${c.name})`, () => {
    void it('reads whole and compact records alike, mixed in one run', async () => {
      const h = await c.open();
      try {
        const r = run();
        const tasks = tasksOf(r.workflowId);
        await h.store.transaction(async (tx) => {
          await tx.insertRun(r);
          await tx.insertTasks(tasks);
        });
        await readsEverything(h.store, r.workflowId, tasks);
        // Tasks 1 and 3 compact, as a node writing compact records leaves them; 2 and 4 whole.
        const compact = [tasks[0], tasks[2]].filter((t) => t !== undefined);
        await rawSql(
          h,
          compact.map(
            (t) =>
              `UPDATE tasks SET record = '${storedTaskRecord(t).replace(/'/g, "''")}'::jsonb WHERE task_id = '${t.taskId}'`,
          ),
        );
        await rawSql(h, [
          `DO $$ BEGIN IF (SELECT count(*) FROM tasks WHERE record ? 'taskId') <> 2 THEN RAISE 'not mixed'; END IF; END $$`,
        ]);
        await readsEverything(h.store, r.workflowId, tasks);
      } finally {
        await h.cleanup();
      }
    });
  });
}
