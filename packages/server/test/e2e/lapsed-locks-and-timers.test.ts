import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

import type { Workflow } from '@baton/protocol';
import pg from 'pg';

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
import { HttpWorker } from '../helpers/http-worker.js';
import { createTestDatabase, enabledStores } from '../helpers/postgres.js';

/**
 * Lapsed locks and timers against real processes: a worker killed with SIGKILL mid-task loses its
 * task to another worker once its lock lapses, and on two Baton nodes sharing PostgreSQL each
 * durable timer fires exactly once.
 */

const holdWorker = fileURLToPath(new URL('../helpers/hold-worker.js', import.meta.url));

/** Starts the hold-worker process and resolves with it and the task id it took. */
function startHoldWorker(
  baseUrl: string,
  taskType: string,
  workerId: string,
): Promise<{ taskId: string; kill: () => Promise<void> }> {
  const child = spawn(process.execPath, [holdWorker, baseUrl, taskType, workerId], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const kill = async (): Promise<void> => {
    child.kill('SIGKILL');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line)
        resolve({ taskId: (JSON.parse(line) as { taskId: string }).taskId, kill });
    });
    child.on('close', (code) =>
      reject(new Error(`hold-worker exited (${code}) before taking a task: ${err}`)),
    );
  });
}

async function workerKilledMidTask(node: BatonProcess): Promise<void> {
  const defs = workerTaskDefs(['lc_e2e_step', 'lc_e2e_next'], {
    responseTimeoutSeconds: 2,
    retryCount: 2,
    retryDelaySeconds: 0,
  });
  await httpOk('POST', `${node.url}/api/metadata/taskdefs`, defs);
  await httpOk(
    'POST',
    `${node.url}/api/metadata/workflow`,
    workflowDef('lc_e2e', [
      {
        name: 'lc_e2e_step',
        taskReferenceName: 'step',
        type: 'SIMPLE',
        inputParameters: { x: '${workflow.input.x}' },
      },
      {
        name: 'lc_e2e_next',
        taskReferenceName: 'next',
        type: 'SIMPLE',
        inputParameters: { y: '${step.output.y}' },
      },
    ]),
  );
  const id = await postText(`${node.url}/api/workflow/lc_e2e`, { input: { x: 20 } });
  const doomed = await startHoldWorker(node.url, 'lc_e2e_step', 'doomed');
  await doomed.kill();

  const survivors = ['lc_e2e_step', 'lc_e2e_next'].map((type) =>
    new HttpWorker({
      baseUrl: node.url,
      taskType: type,
      workerId: `survivor-${type}`,
      handler: (task) => ({ outputData: { y: Number(task.inputData.x ?? task.inputData.y) + 1 } }),
      pollTimeoutMs: 500,
    }).start(),
  );
  try {
    const run = await waitFor(
      async () => {
        const r = await getJson<Workflow>(`${node.url}/api/workflow/${id}`);
        return r.status === 'COMPLETED' ? r : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'the run to complete after the worker was killed' },
    );
    const steps = run.tasks.filter((t) => t.referenceTaskName === 'step');
    assert.equal(steps.length, 2, 'the killed attempt and the one that took over');
    const [lost, taken] = steps as [(typeof steps)[0], (typeof steps)[0]];
    assert.equal(lost.taskId, doomed.taskId);
    assert.equal(lost.status, 'TIMED_OUT');
    assert.equal(lost.workerId, 'doomed');
    assert.equal(
      lost.reasonForIncompletion,
      'no result within responseTimeoutSeconds (2s) from worker doomed',
    );
    assert.equal(taken.status, 'COMPLETED');
    assert.equal(taken.retriedTaskId, lost.taskId);
    assert.equal(taken.workerId, 'survivor-lc_e2e_step');
    // Never at the same time: the new attempt was handed out only after the old one had ended.
    assert.ok(taken.startTime >= lost.endTime, `taken at ${taken.startTime}, lost ended at ${lost.endTime}`);
    assert.deepEqual(
      survivors[0]!.received.map((r) => r.taskId),
      [taken.taskId],
      'the killed attempt itself was never handed out again',
    );
    assert.deepEqual(run.output, { y: 22 });
  } finally {
    for (const w of survivors) await w.stop();
  }
}

void describe('e2e: lapsed locks and timers with real processes', () => {
  const stores = enabledStores();

  if (stores.includes('sqlite'))
    void it(
      'a worker killed with SIGKILL mid-task: another worker takes the next attempt (SQLite)',
      { timeout: 60_000 },
      async () => {
        const node = await startBaton({ name: 'lc-sqlite' });
        try {
          await workerKilledMidTask(node);
        } finally {
          await node.stop();
        }
      },
    );

  if (stores.includes('postgres')) {
    void it(
      'a worker killed with SIGKILL mid-task: another worker takes the next attempt (PostgreSQL)',
      { timeout: 60_000 },
      async () => {
        const db = await createTestDatabase('baton_e2e_lc');
        const node = await startBaton({ name: 'lc-pg', databaseUrl: db.url });
        try {
          await workerKilledMidTask(node);
        } finally {
          await node.stop();
          await db.drop();
        }
      },
    );

    void it(
      'two nodes on one PostgreSQL database: each timer fires once, not twice',
      { timeout: 60_000 },
      async () => {
        const RUNS = 40;
        const db = await createTestDatabase('baton_e2e_timers');
        // A short idle interval, so both nodes look for due timers often and compete for them.
        const env = { BATON_TIMER_IDLE_MS: '20' };
        const nodes = await Promise.all(
          ['timers-1', 'timers-2'].map((name) => startBaton({ name, databaseUrl: db.url, env })),
        );
        const client = new pg.Client({ connectionString: db.url });
        try {
          const [one, two] = nodes as [BatonProcess, BatonProcess];
          await httpOk(
            'POST',
            `${one.url}/api/metadata/taskdefs`,
            workerTaskDefs(['lc_nobody'], { pollTimeoutSeconds: 1, timeoutPolicy: 'ALERT_ONLY' }),
          );
          await httpOk(
            'POST',
            `${one.url}/api/metadata/workflow`,
            workflowDef('lc_alerts', [{ name: 'lc_nobody', taskReferenceName: 'wait', type: 'SIMPLE' }]),
          );
          const ids = await mapLimit(
            Array.from({ length: RUNS }, (_, i) => i),
            10,
            (i) => postText(`${(i % 2 === 0 ? one : two).url}/api/workflow/lc_alerts`, {}),
          );
          await client.connect();
          // Each poll timeout is deleted in the transaction that records its alert: once none is
          // left, no timer can fire again.
          await waitFor(
            async () => {
              const { rows } = await client.query<{ n: string }>(
                "SELECT count(*) AS n FROM timers WHERE kind = 'POLL_TIMEOUT'",
              );
              return Number(rows[0]?.n) === 0 ? true : undefined;
            },
            { timeoutMs: 30_000, intervalMs: 100, what: 'every poll timeout to fire' },
          );
          const runs = await mapLimit(ids, 10, (id) => getJson<Workflow>(`${two.url}/api/workflow/${id}`));
          for (const run of runs) {
            assert.equal(run.status, 'RUNNING');
            const alerts = run.tasks[0]?.alerts ?? [];
            assert.equal(alerts.length, 1, `run ${run.workflowId} has ${alerts.length} alerts`);
            assert.equal(alerts[0]?.kind, 'POLL_TIMEOUT');
          }
          // Each node warns once per alert it fired: together, exactly one per timer.
          const warned = nodes.map(
            (n) =>
              n
                .logs()
                .split('\n')
                .filter((l) => l.includes('timeout alert')).length,
          );
          assert.equal(warned[0]! + warned[1]!, RUNS, `alerts logged per node: ${warned.join(', ')}`);
        } finally {
          await client.end().catch(() => {});
          await Promise.all(nodes.map((n) => n.stop()));
          await db.drop();
        }
      },
    );
  }
});
