import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';

import type { TaskRecord, Workflow } from '@baton/protocol';

import {
  type BatonProcess,
  getJson,
  httpOk,
  mapLimit,
  postText,
  startBaton,
  waitFor,
} from '../helpers/baton-process.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { HttpWorker, type PolledTask, type TaskOutcome } from '../helpers/http-worker.js';
import { createTestDatabase, enabledStores } from '../helpers/postgres.js';

/**
 * Baton is killed with SIGKILL while workers are busy, then started again on the same data
 * (once on SQLite; four times in a row on PostgreSQL, under 500 runs and 8 workers). Every run
 * must complete with the right output, and every task attempt must be accounted for: each is
 * COMPLETED, or TIMED_OUT/FAILED with a successor attempt (a result that died with the server
 * lets the lock lapse, and lock expiry makes the next attempt). No attempt is ever handed out
 * twice, and a result the server acknowledged is never lost.
 */

const TYPES = ['crash_a', 'crash_b', 'crash_c'] as const;
// Short locks, so the tasks whose results died with the server come back quickly; attempts to
// spare for the ones that were in flight at each kill.
const taskDefs = workerTaskDefs(TYPES, { responseTimeoutSeconds: 2, retryCount: 10, retryDelaySeconds: 0 });
const definition = workflowDef(
  'crash_flow',
  [
    {
      name: 'crash_a',
      taskReferenceName: 'a',
      type: 'SIMPLE',
      inputParameters: { n: '${workflow.input.n}' },
    },
    { name: 'crash_b', taskReferenceName: 'b', type: 'SIMPLE', inputParameters: { n: '${a.output.n}' } },
    { name: 'crash_c', taskReferenceName: 'c', type: 'SIMPLE', inputParameters: { n: '${b.output.n}' } },
  ],
  { n: '${c.output.n}' },
);

/** Each step adds one, so run n ends with n + 3; it takes a moment, so kills find work in flight. */
async function handle(task: PolledTask): Promise<TaskOutcome> {
  await delay(10);
  return { outputData: { n: Number(task.inputData.n) + 1 } };
}

/**
 * How long Baton stays down after each kill: longer than the 2 s locks, so the attempts in
 * flight at the kill have lapsed by the restart and lock expiry has to deal with them.
 */
const DOWN_MS = 2_500;

interface Scenario {
  runs: number;
  workers: number;
  kills: number;
  start: (port?: number) => Promise<BatonProcess>;
}

/** Answers a line for the test's diagnostics: how many attempts the kills cost. */
async function scenario({ runs: RUNS, workers: WORKERS, kills: KILLS, start }: Scenario): Promise<string> {
  let node = await start();
  const port = node.port;
  const workers = Array.from(
    { length: WORKERS },
    (_, i) =>
      new HttpWorker({
        baseUrl: node.url,
        taskType: TYPES[i % TYPES.length]!,
        workerId: `crash-${i}`,
        handler: handle,
        concurrency: 8,
        pollTimeoutMs: 500,
        resultRetryMs: 60_000,
      }),
  );
  try {
    await httpOk('POST', `${node.url}/api/metadata/taskdefs`, taskDefs);
    await httpOk('POST', `${node.url}/api/metadata/workflow`, definition);
    const ids = await mapLimit(
      Array.from({ length: RUNS }, (_, n) => n),
      10,
      (n) => postText(`${node.url}/api/workflow/crash_flow`, { input: { n } }),
    );
    for (const w of workers) w.start();
    const acknowledged = (): number => workers.reduce((sum, w) => sum + w.completed.length, 0);
    const total = RUNS * TYPES.length;
    for (let k = 1; k <= KILLS; k++) {
      // Crash mid-flight: after some results were acknowledged, long before all were.
      const target = Math.floor((total * k) / (KILLS + 2));
      await waitFor(() => (acknowledged() >= target ? true : undefined), {
        timeoutMs: 60_000,
        intervalMs: 5,
        what: `${target} acknowledged results before kill ${k}`,
      });
      node.kill();
      assert.ok(acknowledged() < total, `kill ${k} came after all the work`);
      await node.exited;
      await delay(DOWN_MS);
      node = await start(port);
    }

    const describeRuns = async (): Promise<string> => {
      const all = await mapLimit(ids, 10, (id) => getJson<Workflow>(`${node.url}/api/workflow/${id}`));
      return all
        .filter((r) => r.status !== 'COMPLETED')
        .slice(0, 10)
        .map(
          (r) =>
            `${r.workflowId} ${r.status} ${r.tasks.map((t) => `${t.referenceTaskName}:${t.status}:${t.pollCount}`).join(' ')}`,
        )
        .join('\n');
    };
    const runs = await waitFor(
      async () => {
        const all = await mapLimit(ids, 10, (id) => getJson<Workflow>(`${node.url}/api/workflow/${id}`));
        return all.every((r) => r.status === 'COMPLETED') ? all : undefined;
      },
      {
        timeoutMs: 90_000,
        intervalMs: 250,
        what: 'every run to complete after the restarts',
        describe: describeRuns,
      },
    );
    for (const w of workers) await w.stop();

    const allTasks = new Map<string, TaskRecord>();
    for (const [n, run] of runs.entries()) {
      assert.deepEqual(run.output, { n: n + 3 }, `output of run ${run.workflowId}`);
      for (const t of run.tasks) allTasks.set(t.taskId, t);
      for (const ref of ['a', 'b', 'c']) {
        const attempts = run.tasks.filter((t) => t.referenceTaskName === ref);
        const last = attempts[attempts.length - 1];
        assert.equal(last?.status, 'COMPLETED', `${run.workflowId} ${ref}: the last attempt completed`);
        for (const [i, attempt] of attempts.slice(0, -1).entries()) {
          // Every earlier attempt ended (timed out or failed) and its successor names it.
          assert.ok(
            attempt.status === 'TIMED_OUT' || attempt.status === 'FAILED',
            `${run.workflowId} ${ref} attempt ${i} is ${attempt.status}`,
          );
          assert.equal(attempt.retried, true);
          assert.equal(attempts[i + 1]?.retriedTaskId, attempt.taskId);
          assert.equal(attempts[i + 1]?.retryCount, attempt.retryCount + 1);
        }
      }
    }
    // No attempt was ever handed out twice: one attempt never ran on two workers.
    const received = workers.flatMap((w) => w.received.map((r) => r.taskId));
    assert.equal(new Set(received).size, received.length, 'an attempt was handed out twice');
    // An acknowledged result is never lost: its attempt is COMPLETED. A result that came after
    // the attempt's lock expired is refused (409) and a successor took over.
    for (const taskId of workers.flatMap((w) => w.completed)) {
      const t = allTasks.get(taskId);
      assert.ok(t, `acknowledged task ${taskId} exists`);
      assert.equal(t.status, 'COMPLETED', `acknowledged task ${taskId} is ${t.status}`);
    }
    for (const taskId of workers.flatMap((w) => w.refused)) {
      const t = allTasks.get(taskId);
      assert.ok(t?.status === 'TIMED_OUT' && t.retried, `refused task ${taskId} is ${t?.status}`);
    }
    const superseded = [...allTasks.values()].filter((t) => t.retried).length;
    return `${RUNS} runs, ${KILLS} kills: ${allTasks.size} attempts, ${superseded} superseded after a kill`;
  } finally {
    for (const w of workers) await w.stop();
    await node.stop();
  }
}

void describe('e2e: Baton killed with SIGKILL mid-flight loses nothing it acknowledged', () => {
  const stores = enabledStores();

  if (stores.includes('sqlite'))
    void it('on SQLite, killed once', { timeout: 180_000 }, async (t) => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'baton-crash-'));
      try {
        const summary = await scenario({
          runs: 60,
          workers: 6,
          kills: 1,
          start: (port) => startBaton({ name: 'sqlite-crash', dataDir, ...(port !== undefined && { port }) }),
        });
        t.diagnostic(summary);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

  if (stores.includes('postgres'))
    void it(
      'on PostgreSQL, killed four times while 8 workers run 500 workflows',
      { timeout: 180_000 },
      async (t) => {
        const db = await createTestDatabase('baton_e2e_crash');
        try {
          const summary = await scenario({
            runs: 500,
            workers: 8,
            kills: 4,
            start: (port) =>
              startBaton({ name: 'pg-crash', databaseUrl: db.url, ...(port !== undefined && { port }) }),
          });
          t.diagnostic(summary);
        } finally {
          await db.drop();
        }
      },
    );
});
