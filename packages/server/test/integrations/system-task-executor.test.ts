import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { JsonObject } from '@baton/protocol';
import type { FastifyInstance } from 'fastify';

import {
  CallHandlerRegistry,
  type CallContext,
  type CallOutcome,
  type SystemCall,
} from '../../src/integrations/call-handler.js';
import { openPostgresStore } from '../../src/store-postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import { call, testApp } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { eventually } from '../helpers/http-target.js';
import { runOf, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';
import { overridingTx } from '../helpers/store-proxy.js';

/**
 * The system-task executor with handlers made for the test (registered in place of the
 * built-in ones): long operations checked again on a durable delay, bounded concurrency, the
 * lease heartbeat, a handler that throws, cancellation, and a stop that gives calls back.
 */

/** A long operation: two "running" checks, then done; records what each check was given. */
class LongOperation {
  readonly taskTypes = ['DOCUMENT_INTELLIGENCE'] as const;
  readonly seen: Array<{ attempt: number; previous: JsonObject }> = [];
  call(request: SystemCall): Promise<CallOutcome> {
    const checks = Number(request.previousOutput.checks ?? 0);
    this.seen.push({ attempt: request.attempt, previous: request.previousOutput });
    if (checks < 2)
      return Promise.resolve({
        status: 'IN_PROGRESS',
        // 2 s: the test reads the state between two checks, and a loaded machine may take a second.
        checkAfterSeconds: 2,
        output: { checks: checks + 1, operation: 'op-1' },
        waitingFor: `document analysis running (check ${checks + 1})`,
      });
    return Promise.resolve({
      status: 'COMPLETED',
      output: { analyzeResult: { pages: 3 }, checks: checks + 1 },
    });
  }
}

/** Blocks each call until `open()` or its signal aborts; counts how many run at once. */
class Gate {
  readonly taskTypes = ['CONNECTOR'] as const;
  running = 0;
  maxRunning = 0;
  aborted = 0;
  private waiting: Array<() => void> = [];
  private opened = false;
  delayMs = 0;
  failWith: string | undefined;
  output: JsonObject = { done: true };

  async call(request: SystemCall, ctx: CallContext): Promise<CallOutcome> {
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      if (this.failWith !== undefined) throw new Error(this.failWith);
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      else if (!this.opened)
        await new Promise<void>((resolve) => {
          this.waiting.push(resolve);
          ctx.signal.addEventListener('abort', () => resolve(), { once: true });
        });
      if (ctx.signal.aborted) {
        this.aborted++;
        return { status: 'FAILED', reason: 'aborted' };
      }
      ctx.log(`connector call for ${request.referenceTaskName}`);
      return { status: 'COMPLETED', output: this.output };
    } finally {
      this.running--;
    }
  }

  open(): void {
    this.opened = true;
    for (const release of this.waiting.splice(0)) release();
  }

  shut(): void {
    this.opened = false;
  }
}

let n = 0;
function oneTaskWorkflow(type: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  n += 1;
  return {
    name: `exec_wf_${n}`,
    tasks: [
      {
        name: `step_${n}`,
        taskReferenceName: 'step',
        type,
        inputParameters: { connector: 'c', operation: 'o' },
        ...extra,
      },
    ],
  };
}

async function ended(app: FastifyInstance, id: string, timeoutMs = 30_000): Promise<any> {
  return eventually(
    async () => {
      const run = await runOf(app, id);
      return run.status === 'RUNNING' ? undefined : run;
    },
    `run ${id} to end`,
    timeoutMs,
  );
}

for (const storeCase of storeCases()) {
  void describe(`system-task executor on ${storeCase.name}`, () => {
    const long = new LongOperation();
    const gate = new Gate();
    const suite = appSuite(storeCase, {
      env: { BATON_SYSTEM_TASK_CONCURRENCY: '2' },
      callHandlers: new CallHandlerRegistry().register(long).register(gate),
    });

    void it('checks a long operation again on a durable delay, holding no lease in between', async () => {
      const { app, store } = suite;
      const def = oneTaskWorkflow('DOCUMENT_INTELLIGENCE');
      await register(app, [def]);
      const id = await startRun(app, String(def.name));
      const between = await eventually(async () => {
        const run = await runOf(app, id);
        const task = run.tasks[0];
        return task?.waitingFor?.reason === 'callback' ? task : undefined;
      }, 'the first check to ask for another');
      assert.equal(between.status, 'SCHEDULED');
      assert.match(between.waitingFor.message, /^waiting: document analysis running, next check at /);
      assert.deepEqual(between.outputData, { checks: 1, operation: 'op-1' });
      const message = await store.read((tx) => tx.getMessage(between.taskId));
      assert.ok(message);
      assert.equal(
        message.lockedUntil === null || message.lockedUntil <= Date.now(),
        true,
        'no lease is held between checks',
      );
      assert.ok(message.visibleAt > Date.now() - 100, 'the next check is due later');
      const run = await ended(app, id);
      assert.equal(run.status, 'COMPLETED');
      assert.deepEqual(run.tasks[0].outputData, { analyzeResult: { pages: 3 }, checks: 3 });
      assert.deepEqual(
        long.seen.map((s) => s.previous.checks ?? 0),
        [0, 1, 2],
      );
      assert.ok(
        long.seen.every((s) => s.attempt === 1),
        'the checks belong to one attempt',
      );
      const logs = await call(app, 'GET', `/api/tasks/${run.tasks[0].taskId}/log`);
      assert.deepEqual(
        logs.body.map((l: any) => l.log),
        ['document analysis running (check 1)', 'document analysis running (check 2)'],
      );
    });

    void it('runs at most BATON_SYSTEM_TASK_CONCURRENCY calls at once on a node; the others wait queued', async () => {
      const { app } = suite;
      const def = oneTaskWorkflow('CONNECTOR');
      await register(app, [def]);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await startRun(app, String(def.name)));
      await eventually(() => Promise.resolve(gate.running === 2 ? true : undefined), 'two calls to run');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(gate.maxRunning, 2);
      const queued = await eventually(async () => {
        for (const id of ids) {
          const task = (await runOf(app, id)).tasks[0];
          if (task?.waitingFor?.reason === 'worker') return task.waitingFor;
        }
        return undefined;
      }, 'a queued call');
      assert.match(queued.message, /^waiting: queued for the executor: c operation o \(attempt 1\)$/);
      gate.open();
      for (const id of ids) assert.equal((await ended(app, id)).status, 'COMPLETED');
      assert.equal(gate.maxRunning, 2);
      const run = await runOf(app, ids[0] ?? '');
      const logs = await call(app, 'GET', `/api/tasks/${run.tasks[0].taskId}/log`);
      assert.deepEqual(
        logs.body.map((l: any) => l.log),
        ['connector call for step'],
      );
    });

    void it('extends the lease while a call runs longer than it', async () => {
      const { app } = suite;
      // A 2 s lease beaten every 667 ms against a 5 s call: over a second of slack a beat for a
      // loaded machine, where a 1 s lease left two thirds of one.
      gate.delayMs = 5000;
      try {
        const def = oneTaskWorkflow('CONNECTOR');
        const name = (def.tasks as Array<{ name: string }>)[0]?.name;
        await register(app, [def], [{ name, responseTimeoutSeconds: 2, retryCount: 0 }]);
        const id = await startRun(app, String(def.name));
        const run = await ended(app, id);
        assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks));
        assert.equal(run.tasks.length, 1, 'one attempt: the lease never lapsed');
        assert.equal(run.tasks[0].responseTimeoutSeconds, 2);
      } finally {
        gate.delayMs = 0;
      }
    });

    void it('a handler that throws fails the task with the error', async () => {
      const { app } = suite;
      gate.failWith = 'boom';
      try {
        const id = await startRun(
          app,
          String((await registerOne(app, oneTaskWorkflow('CONNECTOR', { retryCount: 0 }))).name),
        );
        const run = await ended(app, id);
        assert.equal(run.status, 'FAILED');
        assert.equal(run.tasks[0].reasonForIncompletion, 'Failed to invoke CONNECTOR task due to: boom');
      } finally {
        gate.failWith = undefined;
      }
    });

    void it('an output nested deeper than free JSON may be fails the call, and the node goes on', async () => {
      const { app } = suite;
      // What a remote answering `[[[[…]]]]` a hundred thousand deep makes: every recursive walk
      // of it (masking, the record's serialization) overflows the stack. It once ended the process.
      let deep: JsonObject = {};
      for (let i = 0; i < 100_000; i++) deep = { a: deep };
      gate.output = deep;
      gate.open();
      try {
        const def = await registerOne(app, oneTaskWorkflow('CONNECTOR', { retryCount: 0 }));
        const run = await ended(app, await startRun(app, String(def.name)));
        assert.equal(run.status, 'FAILED');
        assert.equal(
          run.tasks[0].reasonForIncompletion,
          'Failed to invoke CONNECTOR task due to: its output is nested deeper than 128 levels (the limit)',
        );
        // At the limit it is taken: `{a: …}` 127 deep inside the output object.
        let limit: JsonObject = {};
        for (let i = 0; i < 126; i++) limit = { a: limit };
        gate.output = { a: limit };
        const next = await ended(app, await startRun(app, String(def.name)));
        assert.equal(next.status, 'COMPLETED', JSON.stringify(next.tasks[0]?.reasonForIncompletion));
      } finally {
        gate.output = { done: true };
        gate.shut();
      }
    });

    void it('a timeout of the task aborts its call', async () => {
      const { app } = suite;
      const before = gate.aborted;
      gate.shut();
      try {
        const def = oneTaskWorkflow('CONNECTOR');
        const name = (def.tasks as Array<{ name: string }>)[0]?.name;
        await register(
          app,
          [def],
          [
            {
              name,
              timeoutSeconds: 1,
              responseTimeoutSeconds: 1,
              retryCount: 0,
              timeoutPolicy: 'TIME_OUT_WF',
            },
          ],
        );
        const id = await startRun(app, String(def.name));
        const run = await ended(app, id);
        assert.equal(run.status, 'TIMED_OUT');
        assert.equal(run.tasks[0].status, 'TIMED_OUT');
        await eventually(
          () => Promise.resolve(gate.aborted > before ? true : undefined),
          'the call to be aborted',
        );
      } finally {
        gate.open();
      }
    });
  });

  void describe(`an idle system-task executor on ${storeCase.name}`, () => {
    void it('looks for due calls with one read, and claims only when one is queued or due', async () => {
      const opened = await storeCase.open();
      const gate = new Gate();
      gate.open();
      let looks = 0;
      let claims = 0;
      const system = (queues: readonly string[]): boolean => queues.some((q) => q.startsWith('_system-'));
      const counted = overridingTx(opened.store, (tx) => ({
        nextVisibleAt: (queues, now) => {
          if (system(queues)) looks++;
          return tx.nextVisibleAt(queues, now);
        },
        claim: (request) => {
          if (system(request.queueNames)) claims++;
          return tx.claim(request);
        },
      }));
      const app = await testApp(counted, { callHandlers: new CallHandlerRegistry().register(gate) });
      try {
        // The first round claims (a node may start with work queued); the rounds after it look.
        await eventually(() => Promise.resolve(looks >= 1 ? true : undefined), 'a first look');
        const claimsBefore = claims;
        const looksBefore = looks;
        await eventually(
          () => Promise.resolve(looks >= looksBefore + 2 ? true : undefined),
          'two more looks',
        );
        assert.equal(claims, claimsBefore, 'an idle executor claimed with nothing due');

        // Queued work wakes it: claimed at once, not at the next look.
        const def = oneTaskWorkflow('CONNECTOR');
        await register(app.app, [def]);
        const id = await startRun(app.app, String(def.name));
        const run = await ended(app.app, id);
        assert.equal(run.status, 'COMPLETED');
        assert.ok(claims > claimsBefore, 'the queued call was claimed');
      } finally {
        await app.close();
        await opened.cleanup();
      }
    });
  });

  void describe(`system-task executor stop on ${storeCase.name}`, () => {
    void it('a stopping node gives its calls back to their queue as the same attempt', async () => {
      const opened = await storeCase.open();
      const gate = new Gate();
      const app = await testApp(opened.store, {
        env: { BATON_SHUTDOWN_GRACE_MS: '200' },
        callHandlers: new CallHandlerRegistry().register(gate),
      });
      const def = oneTaskWorkflow('CONNECTOR');
      await register(app.app, [def]);
      const id = await startRun(app.app, String(def.name));
      await eventually(() => Promise.resolve(gate.running === 1 ? true : undefined), 'the call to run');
      await app.close(); // closes the store too
      assert.equal(gate.aborted, 1, 'the call was aborted when the grace ran out');
      const reopened =
        storeCase.name === 'sqlite'
          ? openSqliteStore({ file: opened.file ?? '', synchronous: 'NORMAL' })
          : openPostgresStore({ url: opened.url ?? '', poolSize: 2 });
      try {
        const tasks = await reopened.read((tx) => tx.getRunTasks(id));
        assert.equal(tasks.length, 1);
        assert.equal(tasks[0]?.status, 'SCHEDULED', 'back on its queue, not timed out');
        assert.equal(tasks[0]?.retryCount, 0, 'the same attempt');
        const message = await reopened.read((tx) => tx.getMessage(tasks[0]?.taskId ?? ''));
        assert.equal(message?.lockedUntil ?? null, null);
      } finally {
        await reopened.close();
        await opened.cleanup().catch(() => {});
      }
    });
  });
}

async function registerOne(
  app: FastifyInstance,
  def: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  await register(app, [def]);
  return def;
}
