import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { JsonObject, TaskRecord, Workflow } from '@baton/protocol';

import {
  getJson,
  http,
  httpOk,
  mapLimit,
  postText,
  startBaton,
  waitFor,
  type BatonProcess,
} from '../helpers/baton-process.js';
import { duplicateReceipts, HttpWorker, type PolledTask, type TaskOutcome } from '../helpers/http-worker.js';
import { createTestDatabase, enabledStores, type TestDatabase } from '../helpers/postgres.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';

/**
 * 200 runs of a three-task workflow, started concurrently and worked by 8 HTTP pollers, must all
 * complete with every task handed out exactly once — on one SQLite node, and on two nodes that
 * share one PostgreSQL database (starts and pollers split across both).
 */

const RUNS = 200;
const TASKS_PER_RUN = 3;
const WORKERS = 8;
const START_PARALLELISM = 20;
const DEADLINE_MS = 120_000;
const WORKFLOW = 'e2e_conc';
const TYPES = ['e2e_conc_a', 'e2e_conc_b', 'e2e_conc_c'] as const;

const stores = enabledStores();

const taskDefs = workerTaskDefs(TYPES);

const definition = workflowDef(
  WORKFLOW,
  [
    {
      name: 'e2e_conc_a',
      taskReferenceName: 'a',
      type: 'SIMPLE',
      inputParameters: { x: '${workflow.input.x}' },
    },
    { name: 'e2e_conc_b', taskReferenceName: 'b', type: 'SIMPLE', inputParameters: { y: '${a.output.y}' } },
    {
      name: 'e2e_conc_c',
      taskReferenceName: 'c',
      type: 'SIMPLE',
      inputParameters: { z: '${b.output.z}', x: '${workflow.input.x}' },
    },
  ],
  { result: '${c.output.result}', y: '${a.output.y}' },
);

/** a: y = x + 1; b: z = 2y; c: result = "x:z". So run x ends with {result: `${x}:${2(x+1)}`, y: x+1}. */
function handle(task: PolledTask): TaskOutcome {
  const input = task.inputData;
  switch (task.taskType) {
    case 'e2e_conc_a':
      return { outputData: { y: num(input.x) + 1 } };
    case 'e2e_conc_b':
      return { outputData: { z: num(input.y) * 2 } };
    case 'e2e_conc_c':
      return { outputData: { result: `${num(input.x)}:${num(input.z)}` } };
    default:
      throw new Error(`unexpected task type ${task.taskType}`);
  }
}

function num(value: unknown): number {
  if (typeof value !== 'number') throw new Error(`expected a number input, got ${JSON.stringify(value)}`);
  return value;
}

function expectedOutput(x: number): JsonObject {
  return { result: `${x}:${2 * (x + 1)}`, y: x + 1 };
}

interface Started {
  x: number;
  runId: string;
  node: string;
}

async function scenario(nodes: readonly BatonProcess[]): Promise<void> {
  const first = nodes[0]!;
  await httpOk('POST', `${first.url}/api/metadata/taskdefs`, taskDefs);
  await httpOk('POST', `${first.url}/api/metadata/workflow`, definition);

  // 8 pollers: types round-robin (3/3/2), nodes alternating, so every type is polled on every node.
  const workers = Array.from({ length: WORKERS }, (_, i) => {
    const node = nodes[i % nodes.length]!;
    return new HttpWorker({
      baseUrl: node.url,
      taskType: TYPES[i % TYPES.length]!,
      workerId: `w${i}@node${i % nodes.length}`,
      handler: handle,
      concurrency: 8,
      pollTimeoutMs: 1000,
    }).start();
  });
  const workerErrors = () => workers.flatMap((w) => w.errors);

  try {
    // Pollers are already long-polling: queued work must wake them. Starts go to every node,
    // through both start endpoints (Baton's `POST /api/workflow/{name}` and Conductor's `POST /api/workflow`).
    const started = await mapLimit(
      Array.from({ length: RUNS }, (_, x) => x),
      START_PARALLELISM,
      async (x): Promise<Started> => {
        const node = nodes[x % nodes.length]!;
        const runId =
          x % 2 === 0
            ? await postText(`${node.url}/api/workflow/${WORKFLOW}`, {
                input: { x },
                correlationId: `conc-${x}`,
                version: 1,
              })
            : await postText(`${node.url}/api/workflow`, {
                name: WORKFLOW,
                version: 1,
                input: { x },
                correlationId: `conc-${x}`,
              });
        assert.match(
          runId,
          /^\S+$/,
          `start of run ${x} answered a run id with whitespace: ${JSON.stringify(runId)}`,
        );
        return { x, runId, node: node.url };
      },
    );
    assert.equal(
      new Set(started.map((s) => s.runId)).size,
      RUNS,
      'every start must answer a distinct run id',
    );

    // Progress is event-driven on the worker side; the wait is bounded and fails fast on worker errors.
    const deadline = Date.now() + DEADLINE_MS;
    const finalResults = () =>
      workers.filter((w) => w.taskType === 'e2e_conc_c').reduce((n, w) => n + w.completed.length, 0);
    await waitFor(
      () => {
        const errors = workerErrors();
        if (errors.length > 0) throw new Error(`workers reported errors:\n${errors.slice(0, 20).join('\n')}`);
        const duplicates = duplicateReceipts(workers);
        if (duplicates.length > 0)
          throw new Error(`tasks handed out twice: ${JSON.stringify(duplicates.slice(0, 20))}`);
        return finalResults() >= RUNS ? true : undefined;
      },
      {
        timeoutMs: DEADLINE_MS,
        intervalMs: 100,
        what: `${RUNS} final-task results to be accepted`,
        describe: () => describeStuck(first, started, workers),
      },
    );

    // Every run must reach COMPLETED (the last result may still be in the decider).
    const runs = new Map<string, Workflow>();
    await waitFor(
      async () => {
        const pending = started.filter((s) => runs.get(s.runId)?.status !== 'COMPLETED');
        await mapLimit(pending, 20, async (s, i) => {
          const node = nodes[i % nodes.length]!; // reads go to every node too
          runs.set(s.runId, await getJson<Workflow>(`${node.url}/api/workflow/${s.runId}`));
        });
        const bad = [...runs.values()].filter((r) => r.status !== 'RUNNING' && r.status !== 'COMPLETED');
        if (bad.length > 0) {
          const lines = bad
            .slice(0, 20)
            .map((r) => `${r.workflowId} ${r.status} ${r.reasonForIncompletion ?? ''}`);
          throw new Error(`runs ended badly:\n${lines.join('\n')}`);
        }
        return started.every((s) => runs.get(s.runId)?.status === 'COMPLETED') ? true : undefined;
      },
      {
        timeoutMs: Math.max(1000, deadline - Date.now()),
        intervalMs: 100,
        what: `all ${RUNS} runs to be COMPLETED`,
        describe: () => describeStuck(first, started, workers),
      },
    );

    // Outputs, task shapes and exactly-once hand-out.
    const allTaskIds = new Set<string>();
    for (const s of started) {
      const run = runs.get(s.runId)!;
      assert.equal(run.status, 'COMPLETED', `run ${s.runId}`);
      assert.deepEqual(run.output, expectedOutput(s.x), `output of run ${s.runId} (x=${s.x})`);
      assert.equal(run.tasks.length, TASKS_PER_RUN, `tasks of run ${s.runId}: ${summarizeTasks(run.tasks)}`);
      assert.deepEqual(
        run.tasks.map((t) => t.referenceTaskName),
        ['a', 'b', 'c'],
        `task order of run ${s.runId}`,
      );
      for (const task of run.tasks) {
        const where = `task ${task.referenceTaskName} (${task.taskId}) of run ${s.runId}`;
        assert.equal(task.status, 'COMPLETED', where);
        assert.equal(task.pollCount, 1, `${where}: pollCount`);
        assert.equal(task.retryCount, 0, `${where}: retryCount`);
        assert.match(task.workerId ?? '', /^w\d@node\d$/, `${where}: workerId`);
        allTaskIds.add(task.taskId);
      }
      assert.deepEqual(run.tasks[0]!.inputData, { x: s.x }, `input of a in run ${s.runId}`);
      assert.deepEqual(run.tasks[1]!.inputData, { y: s.x + 1 }, `input of b in run ${s.runId}`);
      assert.deepEqual(run.tasks[2]!.inputData, { z: 2 * (s.x + 1), x: s.x }, `input of c in run ${s.runId}`);
    }
    assert.equal(allTaskIds.size, RUNS * TASKS_PER_RUN, 'distinct task ids across all runs');

    assert.deepEqual(workerErrors(), [], 'worker errors');
    assert.deepEqual(duplicateReceipts(workers), [], 'tasks handed out more than once');
    const receipts = workers.flatMap((w) => w.received);
    assert.equal(receipts.length, RUNS * TASKS_PER_RUN, 'tasks handed out in total');
    assert.deepEqual(
      new Set(receipts.map((r) => r.taskId)),
      allTaskIds,
      'handed-out ids = the runs’ task ids',
    );
    for (const r of receipts) {
      assert.equal(r.status, 'IN_PROGRESS', `task ${r.taskId} as handed out: status`);
      assert.equal(r.pollCount, 1, `task ${r.taskId} as handed out: pollCount`);
    }
    // The run records agree with who actually received each task.
    const holder = new Map(receipts.map((r) => [r.taskId, r.workerId]));
    for (const run of runs.values()) {
      for (const task of run.tasks)
        assert.equal(task.workerId, holder.get(task.taskId), `workerId of ${task.taskId}`);
    }
    if (nodes.length > 1) {
      for (let n = 0; n < nodes.length; n++) {
        const handed = workers
          .filter((_, i) => i % nodes.length === n)
          .reduce((k, w) => k + w.received.length, 0);
        assert.ok(handed > 0, `node ${n} handed out no task at all`);
      }
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
  // Nothing may be handed out after the end: one more poll per type finds nothing.
  for (const type of TYPES) {
    const answer = await http(
      'GET',
      `${first.url}/api/tasks/poll/batch/${type}?count=10&timeout=100&workerid=late`,
    );
    assert.equal(answer.status, 200, `late batch poll of ${type}: ${answer.text}`);
    assert.deepEqual(answer.body, [], `late batch poll of ${type} must be empty`);
  }
}

function summarizeTasks(tasks: readonly TaskRecord[]): string {
  return tasks
    .map((t) => `${t.referenceTaskName}=${t.status}/poll${t.pollCount}/${t.workerId ?? '-'}/${t.taskId}`)
    .join(', ');
}

/** The state to report when a wait runs out: stuck runs with their tasks, and what the workers saw. */
async function describeStuck(
  node: BatonProcess,
  started: readonly Started[],
  workers: readonly HttpWorker[],
): Promise<string> {
  const stuck: string[] = [];
  let completed = 0;
  await mapLimit(started, 20, async (s) => {
    const answer = await http('GET', `${node.url}/api/workflow/${s.runId}`).catch((err: unknown) => ({
      status: -1,
      text: String(err),
      body: undefined,
      contentType: '',
    }));
    const run = answer.body as Workflow | undefined;
    if (answer.status === 200 && run?.status === 'COMPLETED') completed++;
    else if (answer.status === 200 && run)
      stuck.push(`${s.runId} (x=${s.x}) ${run.status}: ${summarizeTasks(run.tasks ?? [])}`);
    else stuck.push(`${s.runId} (x=${s.x}) GET answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  });
  const perWorker = workers.map(
    (w) =>
      `${w.workerId} ${w.taskType}: received ${w.received.length}, results accepted ${w.completed.length}, polls ${w.polls}`,
  );
  const errors = workers.flatMap((w) => w.errors).slice(0, 20);
  return [
    `${completed}/${started.length} runs COMPLETED; ${stuck.length} not:`,
    ...stuck.slice(0, 40),
    ...(stuck.length > 40 ? [`… and ${stuck.length - 40} more`] : []),
    'workers:',
    ...perWorker,
    ...(errors.length > 0 ? ['worker errors:', ...errors] : []),
  ].join('\n');
}

function withLogs(nodes: readonly BatonProcess[], err: unknown): Error {
  const base = err instanceof Error ? err : new Error(String(err));
  const logs = nodes
    .map((n, i) => `--- node ${i} (${n.url}) last output ---\n${n.logs() || '(none)'}`)
    .join('\n');
  base.message = `${base.message}\n${logs}`;
  return base;
}

void describe('e2e: 200 concurrent runs, 8 pollers, every task handed out exactly once', () => {
  // A case is registered only when its store is enabled, so no run reports a skipped test.
  if (stores.includes('sqlite'))
    void it('on one node with SQLite', { timeout: 240_000 }, async () => {
      const node = await startBaton({ name: 'sqlite-node' });
      let failure: Error | undefined;
      try {
        await scenario([node]);
      } catch (err) {
        failure = withLogs([node], err);
      }
      const exit = await node.stop();
      if (failure !== undefined) throw failure;
      assert.equal(
        exit.code,
        0,
        `SIGTERM must stop the node cleanly, got ${JSON.stringify(exit)}\n${node.logs()}`,
      );
    });

  if (stores.includes('postgres'))
    void it('on two nodes sharing one PostgreSQL database', { timeout: 240_000 }, async () => {
      const db: TestDatabase = await createTestDatabase('baton_e2e_conc');
      const nodes: BatonProcess[] = [];
      let failure: Error | undefined;
      try {
        // Both nodes start at once: the advisory lock must serialize the migrations.
        const starts = await Promise.allSettled([
          startBaton({ name: 'pg-node0', databaseUrl: db.url }),
          startBaton({ name: 'pg-node1', databaseUrl: db.url }),
        ]);
        for (const s of starts) if (s.status === 'fulfilled') nodes.push(s.value);
        for (const s of starts) {
          if (s.status === 'rejected')
            throw s.reason instanceof Error ? s.reason : new Error(String(s.reason));
        }
        await scenario(nodes);
      } catch (err) {
        failure = withLogs(nodes, err);
      }
      const exits = await Promise.all(nodes.map((n) => n.stop()));
      await db.drop();
      if (failure !== undefined) throw failure;
      exits.forEach((exit, i) =>
        assert.equal(
          exit.code,
          0,
          `SIGTERM must stop node ${i} cleanly, got ${JSON.stringify(exit)}\n${nodes[i]!.logs()}`,
        ),
      );
    });
});
