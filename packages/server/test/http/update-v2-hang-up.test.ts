import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { describe, it } from 'node:test';

import type { Store } from '../../src/store/store.js';
import { testApp } from '../helpers/app.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { eventually } from '../helpers/http-target.js';
import { storeCases } from '../helpers/stores.js';

/** A store whose next worker transaction, once armed, waits until the test lets it go. */
function gatedStore(store: Store): {
  store: Store;
  arm(): { entered: Promise<void>; release(): void };
} {
  let armed: { enter: () => void; gate: Promise<void> } | undefined;
  const gated = new Proxy(store, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (prop !== 'transaction' || typeof value !== 'function') {
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return async (...args: unknown[]) => {
        // A worker's result goes as a group-commit member (`{ group: true }`); the server's own
        // loops do not, so they never take the gate meant for it.
        const grouped = (args[1] as { group?: boolean } | undefined)?.group === true;
        const waiting = grouped ? armed : undefined;
        if (waiting) armed = undefined;
        if (waiting) {
          waiting.enter();
          await waiting.gate;
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    store: gated,
    arm() {
      let enter!: () => void;
      let release!: () => void;
      const entered = new Promise<void>((r) => (enter = r));
      const gate = new Promise<void>((r) => (release = r));
      armed = { enter, gate };
      return { entered, release };
    },
  };
}

void describe('update-v2 from a worker that hangs up before its answer', () => {
  const sqlite = storeCases().find((c) => c.name === 'sqlite') ?? storeCases()[0]!;

  // The result is applied (the worker may post it again: an exact repeat changes nothing), and the
  // next task, handed to nobody, goes back to its queue for the next poll instead of waiting out
  // its response timeout as IN_PROGRESS.
  void it('applies the result and puts the next task back in its queue', async () => {
    const opened = await sqlite.open();
    const gated = gatedStore(opened.store);
    const t = await testApp(gated.store, { env: { BATON_PORT: '0' } });
    const server = t.server;
    try {
      const base = await server.listen();
      const post = (url: string, body: unknown) =>
        fetch(`${base}${url}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      assert.equal((await post('/api/metadata/taskdefs', workerTaskDefs(['hang_step']))).status, 200);
      const steps = ['one', 'two'].map((ref) => ({
        name: 'hang_step',
        taskReferenceName: ref,
        type: 'SIMPLE',
      }));
      assert.equal((await post('/api/metadata/workflow', workflowDef('hang_up', steps))).status, 200);
      const runId = await (await post('/api/workflow/hang_up', { input: {} })).text();
      const polled = (await (
        await fetch(`${base}/api/tasks/poll/batch/hang_step?count=1&timeout=1000&workerid=gone`)
      ).json()) as Array<{ taskId: string }>;
      const first = polled[0];
      assert.ok(first, 'the first task was handed out');

      const gate = gated.arm();
      const body = JSON.stringify({
        taskId: first.taskId,
        workflowInstanceId: runId,
        workerId: 'gone',
        status: 'COMPLETED',
        outputData: { done: 1 },
      });
      // The request's own connection, as the server holds it (fetch's keep-alive ones stay open).
      const accepted = new Promise<Socket>((resolve) => server.app.server.once('connection', resolve));
      const hungUp = new Promise<void>((resolve) => {
        const req = request(`${base}/api/tasks/update-v2`, {
          method: 'POST',
          agent: false,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        });
        req.on('error', () => resolve());
        req.on('close', () => resolve());
        req.end(body);
        void gate.entered.then(() => req.destroy());
      });
      await hungUp;
      const socket = await accepted;
      // The server has seen the connection go before the transaction runs.
      await eventually(
        () => Promise.resolve(socket.destroyed ? true : undefined),
        'the connection to close on the server',
      );
      gate.release();

      const run = await eventually(async () => {
        const res = await fetch(`${base}/api/workflow/${runId}`);
        const r = (await res.json()) as {
          tasks: Array<{ referenceTaskName: string; status: string; workerId?: string }>;
        };
        return r.tasks.find((t) => t.referenceTaskName === 'two' && t.status === 'SCHEDULED') ? r : undefined;
      }, 'the result applied and the next task put back');
      assert.deepEqual(
        run.tasks.map((t) => [t.referenceTaskName, t.status]),
        [
          ['one', 'COMPLETED'],
          ['two', 'SCHEDULED'],
        ],
      );
      // Back in the queue: the next poll takes it.
      const next = (await (
        await fetch(`${base}/api/tasks/poll/batch/hang_step?count=1&timeout=1000&workerid=other`)
      ).json()) as Array<{ referenceTaskName: string; workerId: string; status: string }>;
      assert.deepEqual(
        next.map((t) => [t.referenceTaskName, t.workerId, t.status]),
        [['two', 'other', 'IN_PROGRESS']],
      );
    } finally {
      await t.close();
      await opened.cleanup();
    }
  });
});
