import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';

import type { TaskRecord, Workflow } from '@baton/protocol';
import pg from 'pg';

import type { BatonProcess } from './baton-process.js';
import { HttpWorker, type PolledTask, type TaskOutcome } from './http-worker.js';
import { type PrivateCluster, startPrivateCluster } from './private-postgres.js';

/**
 * What the end-to-end database-fault files share (e2e/database-faults and
 * e2e/database-faults-start): a PostgreSQL cluster of the test's own, HTTP workers on every node
 * whose steps add one to `n`, and the check that a run of faults lost nothing.
 */

/** A private cluster with an empty `baton` database; `dbUrl` is that database's URL. */
export async function startFaultCluster(): Promise<{ cluster: PrivateCluster; dbUrl: string }> {
  const cluster = await startPrivateCluster();
  try {
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    try {
      await admin.query('CREATE DATABASE baton');
    } finally {
      await admin.end();
    }
  } catch (err) {
    await cluster.destroy();
    throw err;
  }
  return { cluster, dbUrl: cluster.url.replace(/\/postgres$/, '/baton') };
}

/** Every step of the fault workflows: a little work, then `n + 1`, so each result can be checked. */
export async function addOne(task: PolledTask): Promise<TaskOutcome> {
  await delay(5);
  return { outputData: { n: Number(task.inputData.n) + 1 } };
}

/** A started HTTP worker per node and task type, running `addOne`. */
export function startWorkers(
  nodes: readonly BatonProcess[],
  types: readonly string[],
  opts: { concurrency: number; resultRetryMs: number },
): HttpWorker[] {
  const workers: HttpWorker[] = [];
  for (const node of nodes)
    for (const [i, type] of types.entries())
      workers.push(
        new HttpWorker({
          baseUrl: node.url,
          taskType: type,
          workerId: `${node.port}-${i}`,
          handler: addOne,
          concurrency: opts.concurrency,
          pollTimeoutMs: 1000,
          resultRetryMs: opts.resultRetryMs,
        }),
      );
  for (const w of workers) w.start();
  return workers;
}

/** Results the workers had acknowledged with a 2xx. */
export function acknowledged(workers: readonly HttpWorker[]): number {
  return workers.reduce((sum, w) => sum + w.completed.length, 0);
}

/**
 * Nothing lost: run n ended with output n + 2 (run i was started with input n = i), each of
 * `refs` has exactly one completed attempt, no attempt was handed out twice, and every result
 * acknowledged with 2xx is the one recorded (or its attempt had lapsed and was retried, as after a
 * crash). Answers every attempt of the runs, by task id.
 */
export function assertNothingLost(
  runs: readonly Workflow[],
  workers: readonly HttpWorker[],
  refs: readonly string[],
): Map<string, TaskRecord> {
  const allTasks = new Map<string, TaskRecord>();
  for (const [n, run] of runs.entries()) {
    assert.deepEqual(run.output, { n: n + 2 }, `output of run ${run.workflowId}`);
    for (const task of run.tasks) allTasks.set(task.taskId, task);
    for (const ref of refs) {
      const completed = run.tasks.filter((x) => x.referenceTaskName === ref && x.status === 'COMPLETED');
      assert.equal(completed.length, 1, `${run.workflowId} ${ref}: exactly one completed attempt`);
    }
  }
  const received = workers.flatMap((w) => w.received.map((r) => r.taskId));
  assert.equal(new Set(received).size, received.length, 'an attempt was handed out twice');
  for (const taskId of workers.flatMap((w) => w.completed)) {
    const task = allTasks.get(taskId);
    assert.ok(task, `acknowledged task ${taskId} exists`);
    if (task.status === 'COMPLETED')
      assert.deepEqual(task.outputData, { n: Number(task.inputData.n) + 1 }, `recorded result of ${taskId}`);
    // A result that came after its attempt's lock lapsed is acknowledged and ignored, as after a crash.
    else
      assert.ok(task.status === 'TIMED_OUT' && task.retried, `acknowledged task ${taskId} is ${task.status}`);
  }
  return allTasks;
}
