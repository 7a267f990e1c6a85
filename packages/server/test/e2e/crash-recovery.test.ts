import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import type { Workflow } from '@baton/protocol';

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
 * Baton is killed with SIGKILL while workers are busy, then started again on the same data.
 * Every run must still complete, every result the server acknowledged must be kept, and no
 * task whose result was acknowledged may be handed out again.
 */

const RUNS = 60;
const TYPES = ['crash_a', 'crash_b', 'crash_c'] as const;
// Short locks, so the tasks whose results died with the server come back quickly.
const taskDefs = workerTaskDefs(TYPES, { responseTimeoutSeconds: 2 });
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

/** Each step adds one, so run n ends with n + 3. */
function handle(task: PolledTask): TaskOutcome {
  return { outputData: { n: Number(task.inputData.n) + 1 } };
}

async function scenario(start: (port?: number) => Promise<BatonProcess>): Promise<void> {
  let node = await start();
  const port = node.port;
  const workers = TYPES.flatMap((type, i) =>
    [0, 1].map(
      (j) =>
        new HttpWorker({
          baseUrl: node.url,
          taskType: type,
          workerId: `crash-${i}-${j}`,
          handler: handle,
          concurrency: 4,
          pollTimeoutMs: 500,
        }),
    ),
  );
  try {
    await httpOk('POST', `${node.url}/api/metadata/taskdefs`, taskDefs);
    await httpOk('POST', `${node.url}/api/metadata/workflow`, definition);
    for (const w of workers) w.start();
    const ids = await mapLimit(
      Array.from({ length: RUNS }, (_, n) => n),
      10,
      (n) => postText(`${node.url}/api/workflow/crash_flow`, { input: { n } }),
    );
    const acknowledged = (): number => workers.reduce((sum, w) => sum + w.completed.length, 0);
    // Crash mid-flight: after some results were acknowledged, long before all were.
    await waitFor(() => (acknowledged() >= RUNS ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 5,
      what: 'a third of the results',
    });
    node.kill();
    const ackedAtCrash = acknowledged();
    assert.ok(
      ackedAtCrash < RUNS * TYPES.length,
      `the crash came after all the work (${ackedAtCrash} results)`,
    );
    await node.exited;
    node = await start(port);

    const runs = await waitFor(
      async () => {
        const all = await mapLimit(ids, 10, (id) => getJson<Workflow>(`${node.url}/api/workflow/${id}`));
        return all.every((r) => r.status === 'COMPLETED') ? all : undefined;
      },
      {
        timeoutMs: 90_000,
        intervalMs: 250,
        what: 'every run to complete after the restart',
        describe: async () => {
          const all = await mapLimit(ids, 10, (id) => getJson<Workflow>(`${node.url}/api/workflow/${id}`));
          return all
            .filter((r) => r.status !== 'COMPLETED')
            .slice(0, 10)
            .map(
              (r) =>
                `${r.workflowId} ${r.status} ${r.tasks.map((t) => `${t.referenceTaskName}:${t.status}:${t.pollCount}`).join(' ')}`,
            )
            .join('\n');
        },
      },
    );
    for (const w of workers) await w.stop();

    // Every run has its three steps completed and the right output: nothing was lost.
    for (const [n, run] of runs.entries()) {
      assert.deepEqual(run.output, { n: n + 3 }, `output of run ${run.workflowId}`);
      assert.deepEqual(
        run.tasks.map((t) => [t.referenceTaskName, t.status]),
        [
          ['a', 'COMPLETED'],
          ['b', 'COMPLETED'],
          ['c', 'COMPLETED'],
        ],
      );
    }
    // An acknowledged result is final: no task was acknowledged twice (which would mean it was
    // handed out again after its result had been accepted), and each acknowledged task is COMPLETED.
    const acks = workers.flatMap((w) => w.completed);
    const seen = new Set<string>();
    for (const taskId of acks) {
      assert.ok(!seen.has(taskId), `task ${taskId} was handed out again after its result was acknowledged`);
      seen.add(taskId);
    }
    const finalTasks = new Map(runs.flatMap((r) => r.tasks).map((t) => [t.taskId, t]));
    for (const taskId of acks) assert.equal(finalTasks.get(taskId)?.status, 'COMPLETED');
    assert.equal(finalTasks.size, RUNS * TYPES.length, 'one task record per step: nothing duplicated');
  } finally {
    for (const w of workers) await w.stop();
    await node.stop();
  }
}

void describe('e2e: Baton killed with SIGKILL mid-flight loses nothing it acknowledged', () => {
  const stores = enabledStores();

  if (stores.includes('sqlite'))
    void it('on SQLite', { timeout: 180_000 }, async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'baton-crash-'));
      try {
        await scenario((port) =>
          startBaton({
            name: 'sqlite-crash',
            dataDir,
            ...(port !== undefined && { port }),
          }),
        );
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

  if (stores.includes('postgres'))
    void it('on PostgreSQL', { timeout: 180_000 }, async () => {
      const db = await createTestDatabase('baton_e2e_crash');
      try {
        await scenario((port) =>
          startBaton({
            name: 'pg-crash',
            databaseUrl: db.url,
            ...(port !== undefined && { port }),
          }),
        );
      } finally {
        await db.drop();
      }
    });
});
