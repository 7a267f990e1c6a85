import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { BatonClient } from '../src/client.js';
import { BatonApiError } from '../src/errors.js';
import { simpleTask, taskDef, workflow } from '../src/definitions.js';
import type { RunnerEvent } from '../src/task-runner.js';
import { WorkerPool } from '../src/worker-pool.js';
import { defineWorker } from '../src/worker.js';
import { freePort, startBaton, waitFor } from './helpers/baton.js';
import { waitForEnd } from './helpers/runs.js';

describe('worker resilience (real server)', () => {
  it('a result the server refuses fails the task with the reason, instead of leaving it to time out', async () => {
    const baton = await startBaton({ env: { BATON_MAX_BODY_BYTES: '4096' } });
    const client = new BatonClient({ baseUrl: baton.url });
    const pool = new WorkerPool({
      client,
      workers: [defineWorker({ taskType: 'bulky', handler: () => ({ blob: 'x'.repeat(10_000) }) })],
    });
    try {
      await client.registerTaskDefs([taskDef('bulky', { retryCount: 0, responseTimeoutSeconds: 600 })]);
      await client.putWorkflowDefs([workflow('bulky-flow', [simpleTask('b', 'bulky')])]);
      pool.start();
      const done = await waitForEnd(client, await client.startWorkflow('bulky-flow'), 30_000);
      assert.equal(done.status, 'FAILED');
      assert.match(
        done.tasks[0]!.reasonForIncompletion ?? '',
        /the server refused the worker's result \(HTTP 413\)/,
      );
    } finally {
      await pool.stop({ graceMs: 1000 });
      await baton.stop();
    }
  });

  it('workers ride out a server crash: polls back off, results are posted once it is back, every run completes', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'baton-crash-'));
    const port = await freePort();
    let baton = await startBaton({ dataDir, port });
    const client = new BatonClient({ baseUrl: baton.url });
    const errors: RunnerEvent[] = [];
    let handled = 0;
    const pool = new WorkerPool({
      client: new BatonClient({ baseUrl: baton.url }),
      workers: [
        defineWorker<{ n: number }, { n: number }>({
          taskType: 'steady',
          concurrency: 2,
          pollIntervalMs: 200,
          handler: async ({ n }) => {
            await new Promise((r) => setTimeout(r, 100));
            handled += 1;
            return { n };
          },
        }),
      ],
      onEvent: (e) => e.type === 'error' && errors.push(e),
    });
    try {
      // A claim committed just as the server died is answered to no one: its lock lapses after
      // 5 s and the task is retried, so even that run completes.
      await client.registerTaskDefs([
        taskDef('steady', { retryCount: 2, retryDelaySeconds: 0, responseTimeoutSeconds: 5 }),
      ]);
      await client.putWorkflowDefs([
        workflow('steady-flow', [simpleTask('s', 'steady', { n: '${workflow.input.n}' })]),
      ]);
      const ids: string[] = [];
      for (let n = 0; n < 30; n++) ids.push(await client.startWorkflow('steady-flow', { input: { n } }));
      pool.start();
      await waitFor(() => (handled >= 8 ? true : undefined), {
        timeoutMs: 30_000,
        what: 'some tasks handled',
      });
      baton.kill();
      await baton.exited;
      await new Promise((r) => setTimeout(r, 1500));
      baton = await startBaton({ dataDir, port });
      for (const id of ids) assert.equal((await waitForEnd(client, id, 120_000)).status, 'COMPLETED');
      assert.ok(errors.length > 0, 'the outage was noticed');
      // Down, the server cannot be reached; starting again, its port answers every request with a
      // retryable 503 until it serves. Nothing else may reach the workers.
      const unexpected = errors.filter(
        (e) =>
          !(
            e.type === 'error' &&
            (/cannot reach Baton/.test(e.error.message) ||
              (e.error instanceof BatonApiError &&
                e.error.status === 503 &&
                /the node is starting/.test(e.error.message)))
          ),
      );
      assert.deepEqual(
        unexpected.map((e) => (e.type === 'error' ? e.error.message : e.type)),
        [],
      );
    } finally {
      await pool.stop({ graceMs: 1000 });
      await baton.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
