import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';

import type { TaskRecord, Workflow } from '@baton/protocol';

import { getJson, httpOk, mapLimit, postText, startBaton, waitFor } from '../helpers/baton-process.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { HttpWorker, type PolledTask, type TaskOutcome } from '../helpers/http-worker.js';
import { createTestDatabase, enabledStores } from '../helpers/postgres.js';

/**
 * BATON_PROCESSES=2 on PostgreSQL, run as an operator would: one primary and two node processes
 * sharing the port. Both answer; workflows run through them with HTTP workers; one node process
 * is SIGKILLed mid-flight and the primary replaces it, and no acknowledged result is lost; a
 * SIGTERM to the primary stops every process.
 */

const TYPES = ['proc_a', 'proc_b'] as const;
// Short locks: a hand-out whose answer died with the killed process comes back quickly.
const taskDefs = workerTaskDefs(TYPES, { responseTimeoutSeconds: 2, retryCount: 10, retryDelaySeconds: 0 });
const definition = workflowDef(
  'proc_flow',
  [
    { name: 'proc_a', taskReferenceName: 'a', type: 'SIMPLE', inputParameters: { n: '${workflow.input.n}' } },
    { name: 'proc_b', taskReferenceName: 'b', type: 'SIMPLE', inputParameters: { n: '${a.output.n}' } },
  ],
  { n: '${b.output.n}' },
);

async function handle(task: PolledTask): Promise<TaskOutcome> {
  await delay(5);
  return { outputData: { n: Number(task.inputData.n) + 1 } };
}

interface NodeAnswer {
  pid: number;
  process?: number;
}

/**
 * GET /health on a connection of its own (no keep-alive), so that the port's next connection,
 * and so possibly the other process, answers; the `node` component says which process did.
 */
function healthNode(url: string): Promise<NodeAnswer | undefined> {
  return new Promise((resolve) => {
    const req = request(`${url}/health`, { agent: false, timeout: 5_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        try {
          const body = JSON.parse(text) as { components?: { node?: NodeAnswer } };
          resolve(body.components?.node);
        } catch {
          resolve(undefined);
        }
      });
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** Asks /health until every process index 1…count has answered; answers index → pid. */
async function answeringProcesses(
  url: string,
  count: number,
  accept: (answer: NodeAnswer) => boolean = () => true,
): Promise<Map<number, number>> {
  const seen = new Map<number, number>();
  return waitFor(
    async () => {
      const answer = await healthNode(url);
      if (answer?.process !== undefined && accept(answer)) seen.set(answer.process, answer.pid);
      return seen.size === count ? seen : undefined;
    },
    {
      timeoutMs: 30_000,
      intervalMs: 20,
      what: `${count} node processes to answer /health`,
      describe: () => JSON.stringify([...seen]),
    },
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

void describe('e2e: BATON_PROCESSES runs several node processes on one port', () => {
  if (!enabledStores().includes('postgres')) return;

  void it(
    'two processes answer, a killed one is replaced without losing an acknowledged result, SIGTERM stops all',
    { timeout: 180_000 },
    async (t) => {
      const RUNS = 200;
      const db = await createTestDatabase('baton_e2e_processes');
      const node = await startBaton({
        name: 'pg-processes',
        databaseUrl: db.url,
        env: { BATON_PROCESSES: '2' },
      });
      const workers = Array.from(
        { length: 4 },
        (_, i) =>
          new HttpWorker({
            baseUrl: node.url,
            taskType: TYPES[i % TYPES.length]!,
            workerId: `proc-${i}`,
            handler: handle,
            concurrency: 8,
            pollTimeoutMs: 500,
            resultRetryMs: 60_000,
          }),
      );
      try {
        const first = await answeringProcesses(node.url, 2);
        const [pid1, pid2] = [first.get(1)!, first.get(2)!];
        assert.notEqual(pid1, pid2, 'two processes, two pids');
        assert.ok(pid1 !== node.pid && pid2 !== node.pid, 'the node processes are not the primary');

        await httpOk('POST', `${node.url}/api/metadata/taskdefs`, taskDefs);
        await httpOk('POST', `${node.url}/api/metadata/workflow`, definition);
        const ids = await mapLimit(
          Array.from({ length: RUNS }, (_, n) => n),
          10,
          (n) => postText(`${node.url}/api/workflow/proc_flow`, { input: { n } }),
        );
        for (const w of workers) w.start();
        const acknowledged = (): number => workers.reduce((sum, w) => sum + w.completed.length, 0);
        await waitFor(() => (acknowledged() >= RUNS / 2 ? true : undefined), {
          timeoutMs: 60_000,
          intervalMs: 5,
          what: `${RUNS / 2} acknowledged results before the kill`,
        });
        // A crash of one node process while work is in flight.
        process.kill(pid1, 'SIGKILL');
        assert.ok(acknowledged() < RUNS * TYPES.length, 'the kill came after all the work');

        // The primary forks a replacement with the same index and a new pid; the other lives on.
        const replaced = await answeringProcesses(node.url, 2, (a) => a.pid !== pid1);
        assert.notEqual(replaced.get(1), pid1, 'process 1 was replaced');
        assert.equal(replaced.get(2), pid2, 'process 2 kept running');
        assert.ok(!alive(pid1), 'the killed process is gone');
        assert.match(node.logs(), /node process 1 died \(signal SIGKILL\); restarting it/);

        const runs = await waitFor(
          async () => {
            const all = await mapLimit(ids, 10, (id) => getJson<Workflow>(`${node.url}/api/workflow/${id}`));
            return all.every((r) => r.status === 'COMPLETED') ? all : undefined;
          },
          { timeoutMs: 90_000, intervalMs: 250, what: 'every run to complete after the kill' },
        );
        for (const w of workers) await w.stop();

        const allTasks = new Map<string, TaskRecord>();
        for (const [n, run] of runs.entries()) {
          assert.deepEqual(run.output, { n: n + 2 }, `output of run ${run.workflowId}`);
          for (const task of run.tasks) allTasks.set(task.taskId, task);
        }
        const received = workers.flatMap((w) => w.received.map((r) => r.taskId));
        assert.equal(new Set(received).size, received.length, 'an attempt was handed out twice');
        for (const taskId of workers.flatMap((w) => w.completed)) {
          assert.equal(allTasks.get(taskId)?.status, 'COMPLETED', `acknowledged task ${taskId}`);
        }
        t.diagnostic(
          `${RUNS} runs on 2 processes, one killed: ${allTasks.size} attempts, ${[...allTasks.values()].filter((x) => x.retried).length} superseded`,
        );

        // SIGTERM to the primary: every node process stops gracefully, then the primary exits 0.
        const survivors = [replaced.get(1)!, pid2];
        const exit = await node.stop('SIGTERM', 30_000);
        assert.deepEqual(exit, { code: 0, signal: null }, node.logs());
        for (const pid of survivors) assert.ok(!alive(pid), `node process ${pid} stopped with the primary`);
      } finally {
        for (const w of workers) await w.stop();
        await node.stop();
        await db.drop();
      }
    },
  );
});
