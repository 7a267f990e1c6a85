import assert from 'node:assert/strict';

import type { TaskRecord } from '@baton/protocol';

import { toTaskQuery } from '../../src/search/task-search.js';
import type { Store } from '../../src/store/store.js';
import { run, task } from './fixtures.js';

// Tasks whose stored records exercise every shape a store keeps (clear, packed, left-out
// defaults), and the searches that must find them by each field, whichever part holds it: shared by
// the SQLite and PostgreSQL tests of packed records.

export const T = 1_764_000_000_000;

export function searchableTasks(workflowId: string): TaskRecord[] {
  return [
    task(workflowId, 1, {
      status: 'COMPLETED',
      executed: true,
      scheduledTime: T,
      startTime: T + 10,
      endTime: T + 20,
      workerId: 'worker-a',
      inputData: { note: 'crème brûlée 🎉', nested: { list: [1, 2, 3] } },
      outputData: { result: 'needle-in-output', big: 'y'.repeat(20_000) },
      pollCount: 1,
    }),
    task(workflowId, 2, {
      status: 'FAILED',
      executed: false,
      scheduledTime: T,
      startTime: T + 30,
      endTime: T + 40,
      workerId: 'worker-b',
      reasonForIncompletion: 'it broke',
      inputData: { marker: 'needle-in-input' },
    }),
    task(workflowId, 3, { status: 'SCHEDULED', scheduledTime: T + 50, retryCount: 1, taskDefName: 'other' }),
  ];
}

async function searchFinds(
  store: Store,
  params: Parameters<typeof toTaskQuery>[0],
  expected: readonly TaskRecord[],
) {
  const answer = await store.read((tx) => tx.searchTasks(toTaskQuery({ ...params, sort: 'updateTime:ASC' })));
  assert.deepEqual(
    answer.results.map((t) => t.taskId).sort(),
    expected.map((t) => t.taskId).sort(),
    JSON.stringify(params),
  );
  assert.equal(answer.totalHits, expected.length);
}

export async function searchesFind(store: Store, tasks: readonly TaskRecord[]): Promise<void> {
  const [done, failed, open] = tasks as [TaskRecord, TaskRecord, TaskRecord];
  await searchFinds(store, { workflowType: 'wf' }, tasks);
  await searchFinds(store, { workerId: 'worker-b' }, [failed]);
  await searchFinds(store, { from: String(T + 5), to: String(T + 35) }, [done, failed]);
  await searchFinds(store, { freeText: 'needle-in-output' }, [done]);
  await searchFinds(store, { freeText: 'NEEDLE-IN-INPUT' }, [failed]);
  await searchFinds(store, { freeText: 'brûlée' }, [done]);
  await searchFinds(store, { query: `endTime > ${T + 25}` }, [failed]);
  await searchFinds(store, { query: `scheduledTime >= ${T + 50}` }, [open]);
  const byEnd = await store.read((tx) =>
    tx.searchTasks(toTaskQuery({ workflowType: 'wf', sort: 'endTime:DESC' })),
  );
  assert.deepEqual(
    byEnd.results.map((t) => t.taskId),
    [failed, done, open].map((t) => t.taskId),
  );
}

/** Every read of task rows answers exactly `tasks`: a run's, each by id, several, the decide set. */
export async function readsBack(
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
  // The decide set: here every task is open, ended but not yet acted on, or the latest of its name.
  assert.deepEqual(await store.read((tx) => tx.getDecideTasks(workflowId)), tasks);
}

/** A new run holding the tasks `tasksOf` makes for it, written in one transaction. */
export async function storeRunOf(
  store: Store,
  tasksOf: (workflowId: string) => TaskRecord[],
): Promise<{ r: ReturnType<typeof run>; tasks: TaskRecord[] }> {
  const r = run();
  const tasks = tasksOf(r.workflowId);
  await store.transaction(async (tx) => {
    await tx.insertRun(r);
    await tx.insertTasks(tasks);
  });
  return { r, tasks };
}
