import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { TaskLog } from '@baton/protocol';

import { BatonClient } from '../src/client.js';
import { simpleTask, taskDef, workflow } from '../src/definitions.js';
import { BatonApiError, TerminalError } from '../src/errors.js';
import type { RunnerEvent } from '../src/task-runner.js';
import { WorkerPool } from '../src/worker-pool.js';
import { defineWorker, inProgress, type Worker } from '../src/worker.js';
import { startBaton, type BatonProcess } from './helpers/baton.js';
import { gate, until, waitForEnd } from './helpers/runs.js';

// What a handler's answer becomes on a real server: outputs, failures, terminal failures, logs,
// callbacks, lease extension, domains and graceful stop.
describe('worker results (real server)', () => {
  let baton: BatonProcess;
  let client: BatonClient;
  const pools: WorkerPool[] = [];

  before(async () => {
    baton = await startBaton();
    client = new BatonClient({ baseUrl: baton.url });
  });
  after(async () => {
    await Promise.all(pools.map((p) => p.stop({ graceMs: 500 })));
    await baton?.stop();
  });

  /** A one-task workflow named after the task type, registered with the given task definition. */
  async function oneTaskFlow(type: string, def: Parameters<typeof taskDef>[1] = {}): Promise<void> {
    await client.registerTaskDefs([taskDef(type, { retryCount: 0, ...def })]);
    await client.putWorkflowDefs([
      workflow(`${type}-flow`, [simpleTask('t', type, { who: '${workflow.input.who}' })], {
        outputParameters: { out: '${t.output}' },
      }),
    ]);
  }
  function run(...workers: Worker[]): WorkerPool {
    const pool = new WorkerPool({ client, workers, workerId: `test-${pools.length}` }).start();
    pools.push(pool);
    return pool;
  }

  it('posts the returned object as outputData with COMPLETED, and the logs', async () => {
    await oneTaskFlow('greet');
    run(
      defineWorker<{ who: string }, { greeting: string }>({
        taskType: 'greet',
        handler: ({ who }, ctx) => {
          ctx.log(`greeting ${who} on attempt ${ctx.attempt}`);
          return { greeting: `hello, ${who}` };
        },
      }),
    );
    const id = await client.startWorkflow('greet-flow', { input: { who: 'ada' } });
    const done = await waitForEnd(client, id);
    assert.equal(done.status, 'COMPLETED');
    assert.deepEqual(done.output, { out: { greeting: 'hello, ada' } });
    const task = done.tasks[0]!;
    const { data } = await client.api.GET('/api/tasks/{taskId}/log', {
      params: { path: { taskId: task.taskId } },
    });
    assert.deepEqual(
      (data as unknown as TaskLog[]).map((l) => l.log),
      ['greeting ada on attempt 1'],
    );
  });

  it('turns a thrown error into FAILED with its message, retried while the definition allows', async () => {
    await oneTaskFlow('flaky', { retryCount: 1, retryDelaySeconds: 0 });
    run(
      defineWorker({
        taskType: 'flaky',
        handler: () => {
          throw new Error('disk full');
        },
      }),
    );
    const done = await waitForEnd(client, await client.startWorkflow('flaky-flow'));
    assert.equal(done.status, 'FAILED');
    assert.deepEqual(
      done.tasks.map((t) => [t.status, t.reasonForIncompletion]),
      [
        ['FAILED', 'disk full'],
        ['FAILED', 'disk full'],
      ],
    );
    assert.match(done.reasonForIncompletion ?? '', /disk full/);
  });

  it('turns a TerminalError into FAILED_WITH_TERMINAL_ERROR, not retried', async () => {
    await oneTaskFlow('strict', { retryCount: 3, retryDelaySeconds: 0 });
    run(
      defineWorker({
        taskType: 'strict',
        handler: () => {
          throw new TerminalError('card declined', { outputData: { code: 'DECLINED' } });
        },
      }),
    );
    const done = await waitForEnd(client, await client.startWorkflow('strict-flow'));
    assert.equal(done.status, 'FAILED');
    assert.equal(done.tasks.length, 1, 'no retry');
    assert.equal(done.tasks[0]!.status, 'FAILED_WITH_TERMINAL_ERROR');
    assert.equal(done.tasks[0]!.reasonForIncompletion, 'card declined');
    assert.deepEqual(done.tasks[0]!.outputData, { code: 'DECLINED' });
  });

  it('answers "in progress, call me back in 1 s" and completes on the callback', async () => {
    await oneTaskFlow('slowpoke');
    const seen: number[] = [];
    run(
      defineWorker<{ who: string }, { rounds: number }>({
        taskType: 'slowpoke',
        handler: (_input, ctx) => {
          seen.push(Date.now());
          return ctx.pollCount < 2 ? inProgress(1, { rounds: ctx.pollCount }) : { rounds: ctx.pollCount };
        },
      }),
    );
    const done = await waitForEnd(client, await client.startWorkflow('slowpoke-flow'));
    assert.equal(done.status, 'COMPLETED');
    assert.deepEqual(done.output, { out: { rounds: 2 } });
    assert.equal(done.tasks.length, 1, 'the same attempt came back');
    assert.equal(seen.length, 2);
    assert.ok(seen[1]! - seen[0]! >= 900, `called back after ${seen[1]! - seen[0]!} ms`);
  });

  it('extends the lease while a handler runs past responseTimeoutSeconds', async () => {
    // Extended every 1.5 s against a 3 s lease, at least four times: 1.5 s of slack a round for a
    // loaded machine, where a 1 s lease extended every 0.5 s had half a second.
    await oneTaskFlow('long', { responseTimeoutSeconds: 3 });
    run(
      defineWorker({
        taskType: 'long',
        handler: async () => {
          await new Promise((r) => setTimeout(r, 7000));
          return { slept: 7000 };
        },
      }),
    );
    const done = await waitForEnd(client, await client.startWorkflow('long-flow'));
    assert.equal(done.status, 'COMPLETED', 'the lock never lapsed');
    assert.equal(done.tasks.length, 1);
    assert.equal(done.tasks[0]!.pollCount, 1);
  });

  it('a lease lapses without extension (the control case); the late result gets 409 and is not posted again', async () => {
    await oneTaskFlow('long-unleased', { responseTimeoutSeconds: 1 });
    const events: RunnerEvent[] = [];
    let finished!: () => void;
    const handlerDone = new Promise<void>((resolve) => (finished = resolve));
    const pool = new WorkerPool({
      client,
      workerId: 'late-worker',
      onEvent: (event) => events.push(event),
      workers: [
        defineWorker({
          taskType: 'long-unleased',
          leaseExtension: false,
          handler: async () => {
            await new Promise((r) => setTimeout(r, 3500));
            finished();
            return {};
          },
        }),
      ],
    }).start();
    pools.push(pool);
    const done = await waitForEnd(client, await client.startWorkflow('long-unleased-flow'));
    assert.equal(done.status, 'TIMED_OUT');
    assert.equal(done.tasks[0]!.status, 'TIMED_OUT');
    assert.match(done.tasks[0]!.reasonForIncompletion ?? '', /responseTimeoutSeconds/);
    await handlerDone;
    // Stopping waits for the handler's post (and anything the runner would send after it).
    await pool.stop({ graceMs: 10_000 });
    // One post, answered 409 naming the status; no failure report, no retry.
    const posts = events.filter((e) => e.type === 'error' && e.during === 'result');
    assert.equal(posts.length, 1, 'the refused result is not posted again');
    const error = posts[0]?.type === 'error' ? posts[0].error : undefined;
    assert.ok(error instanceof BatonApiError);
    assert.equal(error.status, 409);
    assert.match(error.message, /is TIMED_OUT: this attempt has ended/);
    assert.ok(!events.some((e) => e.type === 'task-done'));
  });

  it('polls its domain: a run routed to domain blue is taken only by the blue worker', async () => {
    await oneTaskFlow('paint');
    const worker = (colour: string, domain?: string) =>
      defineWorker<object, { by: string }>({
        taskType: 'paint',
        ...(domain !== undefined && { domain }),
        handler: () => ({ by: colour }),
      });
    run(worker('plain'));
    run(worker('blue', 'blue'));
    const blue = await client.startWorkflow('paint-flow', { taskToDomain: { paint: 'blue' } });
    const plain = await client.startWorkflow('paint-flow');
    assert.deepEqual((await waitForEnd(client, blue)).output, { out: { by: 'blue' } });
    assert.deepEqual((await waitForEnd(client, plain)).output, { out: { by: 'plain' } });
  });

  it('stops gracefully: a handler that ends within the grace period posts its result', async () => {
    await oneTaskFlow('finisher');
    const started = gate();
    const pool = run(
      defineWorker({
        taskType: 'finisher',
        handler: async () => {
          started.open();
          await new Promise((r) => setTimeout(r, 500));
          return { finished: true };
        },
      }),
    );
    const id = await client.startWorkflow('finisher-flow');
    await started.promise;
    await pool.stop({ graceMs: 10_000 });
    assert.equal(pool.state(), 'STOPPED');
    const done = await client.getWorkflow(id);
    assert.equal(done.status, 'COMPLETED', 'the result was posted before stop resolved');
  });

  it('stops gracefully: a handler past the grace period is aborted and its task handed back', async () => {
    await oneTaskFlow('stuck', { responseTimeoutSeconds: 600 });
    const started = gate();
    let aborted = false;
    const first = run(
      defineWorker({
        taskType: 'stuck',
        // Notices the abort but never settles: stop must not wait for it.
        handler: (_input, ctx) =>
          new Promise(() => {
            started.open();
            ctx.signal.addEventListener('abort', () => (aborted = true));
          }),
      }),
    );
    const id = await client.startWorkflow('stuck-flow');
    await started.promise;
    const t0 = Date.now();
    await first.stop({ graceMs: 300 });
    assert.ok(aborted, "the handler's signal was aborted");
    // Handed back at once: another worker takes it now, not after the 600 s lock.
    run(defineWorker({ taskType: 'stuck', handler: () => ({ rescued: true }) }));
    const done = await waitForEnd(client, id, 30_000);
    assert.equal(done.status, 'COMPLETED');
    assert.ok(Date.now() - t0 < 30_000);
    assert.equal(done.tasks.length, 1, 'the same attempt, not a retry');
    assert.deepEqual(done.tasks[0]!.outputData, { rescued: true });
    await until(() => first.state() === 'STOPPED', 'first pool stopped');
  });
});
