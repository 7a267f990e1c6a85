import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { BatonClient } from '../src/client.js';
import { simpleTask, taskDef, workflow } from '../src/definitions.js';
import { TerminalError } from '../src/errors.js';
import { WorkerPool } from '../src/worker-pool.js';
import { defineWorker } from '../src/worker.js';
import { mapLimit, startBaton, waitFor, type BatonProcess } from './helpers/baton.js';

const RUNS = 1000;
const WORKERS = 10;
const SEED = 0x5eed;

/** mulberry32: a small seeded generator, so a failing soak can be replayed exactly. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a task's handler does on each attempt; the definition allows 3 attempts (retryCount 2). */
type Plan =
  { kind: 'ok' } | { kind: 'fail-then-ok'; failures: 1 | 2 } | { kind: 'always-fail' } | { kind: 'terminal' };

function plans(): Plan[] {
  const random = seeded(SEED);
  return Array.from({ length: RUNS }, (): Plan => {
    const r = random();
    if (r < 0.55) return { kind: 'ok' };
    if (r < 0.7) return { kind: 'fail-then-ok', failures: 1 };
    if (r < 0.8) return { kind: 'fail-then-ok', failures: 2 };
    if (r < 0.92) return { kind: 'always-fail' };
    return { kind: 'terminal' };
  });
}

/** The run's end the plan dictates: status, attempts, and the status of the last attempt. */
function expected(plan: Plan): { status: string; attempts: number; last: string } {
  switch (plan.kind) {
    case 'ok':
      return { status: 'COMPLETED', attempts: 1, last: 'COMPLETED' };
    case 'fail-then-ok':
      return { status: 'COMPLETED', attempts: plan.failures + 1, last: 'COMPLETED' };
    case 'always-fail':
      return { status: 'FAILED', attempts: 3, last: 'FAILED' };
    case 'terminal':
      return { status: 'FAILED', attempts: 1, last: 'FAILED_WITH_TERMINAL_ERROR' };
  }
}

describe(`soak: ${WORKERS} workers × ${RUNS} tasks with seeded handler failures (real server)`, () => {
  let baton: BatonProcess;
  let client: BatonClient;

  before(async () => {
    baton = await startBaton();
    client = new BatonClient({ baseUrl: baton.url });
    await client.registerTaskDefs([taskDef('soak', { retryCount: 2, retryDelaySeconds: 0 })]);
    await client.putWorkflowDefs([
      workflow('soak-flow', [simpleTask('s', 'soak', { n: '${workflow.input.n}' })], {
        outputParameters: { n: '${s.output.n}', attempt: '${s.output.attempt}' },
      }),
    ]);
  });
  after(() => baton?.stop());

  it(
    'ends every run as its failures dictate, each attempt handled exactly once',
    { timeout: 600_000 },
    async (t) => {
      const plan = plans();
      const calls = new Map<string, number>();
      const byWorker = new Map<number, number>();
      const worker = (index: number) =>
        defineWorker<{ n: number }, { n: number; attempt: number }>({
          taskType: 'soak',
          concurrency: 4,
          pollIntervalMs: 100,
          handler: async ({ n }, ctx) => {
            const key = `${n}/${ctx.attempt}`;
            calls.set(key, (calls.get(key) ?? 0) + 1);
            byWorker.set(index, (byWorker.get(index) ?? 0) + 1);
            await new Promise((r) => setTimeout(r, (n * 7) % 5));
            const p = plan[n]!;
            if (p.kind === 'terminal') throw new TerminalError(`task ${n}: refused for good`);
            if (p.kind === 'always-fail' || (p.kind === 'fail-then-ok' && ctx.attempt <= p.failures)) {
              throw new Error(`task ${n}: failure on attempt ${ctx.attempt}`);
            }
            return { n, attempt: ctx.attempt };
          },
        });
      const pools = Array.from({ length: WORKERS }, (_, i) =>
        new WorkerPool({
          client: new BatonClient({ baseUrl: baton.url }),
          workers: [worker(i)],
          workerId: `soak-${i}`,
        }).start(),
      );
      try {
        const startedAt = performance.now();
        const ids = await mapLimit(
          Array.from({ length: RUNS }, (_, n) => n),
          16,
          (n) => client.startWorkflow('soak-flow', { input: { n } }),
        );
        await waitFor(
          async () => {
            const open = await client.searchWorkflows({ name: 'soak-flow', status: 'RUNNING', size: 1 });
            return open.totalHits === 0 ? true : undefined;
          },
          { timeoutMs: 480_000, intervalMs: 500, what: 'every soak run to end' },
        );
        let mismatches = 0;
        const problems: string[] = [];
        await mapLimit(ids, 16, async (id, n) => {
          const run = await client.getWorkflow(id);
          const want = expected(plan[n]!);
          const got = { status: run.status, attempts: run.tasks.length, last: run.tasks.at(-1)?.status };
          if (got.status !== want.status || got.attempts !== want.attempts || got.last !== want.last) {
            mismatches += 1;
            if (problems.length < 10)
              problems.push(
                `run ${n} (${plan[n]!.kind}): wanted ${JSON.stringify(want)}, got ${JSON.stringify(got)}`,
              );
          }
          if (want.status === 'COMPLETED') assert.deepEqual(run.output, { n, attempt: want.attempts });
        });
        assert.equal(mismatches, 0, problems.join('\n'));
        const twice = [...calls].filter(([, count]) => count !== 1);
        assert.deepEqual(twice, [], 'every attempt was handled exactly once');
        const attempts = plan.map(expected).reduce((sum, e) => sum + e.attempts, 0);
        assert.equal(calls.size, attempts);
        assert.equal(byWorker.size, WORKERS, 'every worker took part');
        // A figure for the notes, never an assertion: how long the whole soak took here.
        const seconds = (performance.now() - startedAt) / 1000;
        t.diagnostic(
          `${RUNS} runs, ${attempts} handler calls by ${WORKERS} workers in ${seconds.toFixed(1)} s (${Math.round(attempts / seconds)} calls/s)`,
        );
      } finally {
        await Promise.all(pools.map((p) => p.stop({ graceMs: 5000 })));
      }
    },
  );
});
