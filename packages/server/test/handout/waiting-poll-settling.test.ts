import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { describe, it } from 'node:test';

import type { Store } from '../../src/store/store.js';
import { testApp } from '../helpers/app.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { eventually } from '../helpers/http-target.js';
import { storeCases } from '../helpers/stores.js';

/**
 * A store whose next grouped transaction (a start's, a result's), once armed, stops after its
 * work is done and before it commits, until the test lets it go; `fail` makes it throw there
 * instead of going on, as a commit that fails would.
 */
function gatedStore(store: Store): {
  store: Store;
  arm(fail?: boolean): { entered: Promise<void>; release(): void };
} {
  let armed: { enter: () => void; gate: Promise<void>; fail: boolean } | undefined;
  const gated = new Proxy(store, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (prop !== 'transaction' || typeof value !== 'function') {
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return (fn: (tx: unknown) => Promise<unknown>, options?: { group?: boolean }) => {
        const waiting = options?.group === true ? armed : undefined;
        if (waiting) armed = undefined;
        const held = async (tx: unknown): Promise<unknown> => {
          const out = await fn(tx);
          if (waiting) {
            waiting.enter();
            await waiting.gate;
            if (waiting.fail) throw new Error('the commit failed (injected)');
          }
          return out;
        };
        return (value as (...a: unknown[]) => unknown).apply(target, [waiting ? held : fn, options]);
      };
    },
  });
  return {
    store: gated,
    arm(fail = false) {
      let enter!: () => void;
      let release!: () => void;
      const entered = new Promise<void>((r) => (enter = r));
      const gate = new Promise<void>((r) => (release = r));
      armed = { enter, gate, fail };
      return { entered, release };
    },
  };
}

/** How long a poll of at most 5 s may take to answer before the test fails (not hangs). */
const POLL_ANSWER_MS = 15_000;

interface WireTask {
  taskId: string;
  workflowInstanceId: string;
  referenceTaskName: string;
  workerId: string;
  status: string;
}

// A task a transaction hands to a waiting poll is that poll's once the transaction commits, so the
// poll must answer it (or put it back) whatever happens to the poll meanwhile, and a transaction
// that does not commit must leave the poll free to take other work.
for (const storeCase of storeCases()) {
  void describe(`a waiting poll's hand-off settled with its transaction on ${storeCase.name}`, () => {
    async function node(): Promise<{
      base: string;
      gated: ReturnType<typeof gatedStore>;
      waiting(n: number): Promise<true>;
      start(): Promise<Response>;
      server: Awaited<ReturnType<typeof testApp>>['server'];
      close(): Promise<void>;
    }> {
      const opened = await storeCase.open();
      const gated = gatedStore(opened.store);
      const t = await testApp(gated.store, { env: { BATON_PORT: '0' } });
      const base = await t.server.listen();
      const post = (url: string, body: unknown): Promise<Response> =>
        fetch(`${base}${url}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      assert.equal((await post('/api/metadata/taskdefs', workerTaskDefs(['settle_step']))).status, 200);
      const steps = [{ name: 'settle_step', taskReferenceName: 'one', type: 'SIMPLE' }];
      assert.equal((await post('/api/metadata/workflow', workflowDef('settle', steps))).status, 200);
      return {
        base,
        gated,
        server: t.server,
        waiting: (n) =>
          eventually(async () => {
            const text = await (await fetch(`${base}/metrics`)).text();
            return new RegExp(`^baton_polls_waiting ${n}$`, 'm').test(text) ? true : undefined;
          }, `${n} waiting polls`),
        start: () => post('/api/workflow/settle', { input: {} }),
        close: async () => {
          await t.close();
          await opened.cleanup();
        },
      };
    }

    const tasksOf = async (base: string, runId: string): Promise<WireTask[]> =>
      ((await (await fetch(`${base}/api/workflow/${runId}`)).json()) as { tasks: WireTask[] }).tasks;

    void it('puts the task back when the poll’s caller left while the transaction was committing', async () => {
      const n = await node();
      try {
        const accepted = new Promise<Socket>((resolve) => n.server.app.server.once('connection', resolve));
        const req = request(`${n.base}/api/tasks/poll/batch/settle_step?count=1&timeout=5000&workerid=gone`, {
          agent: false,
        });
        const closed = new Promise<void>((resolve) => {
          req.on('error', () => resolve());
          req.on('close', () => resolve());
        });
        req.end();
        const socket = await accepted;
        await n.waiting(1);

        const gate = n.gated.arm();
        const started = n.start();
        // The start has decided, and reserved the waiting poll for its first task: now it leaves.
        await gate.entered;
        req.destroy();
        await closed;
        await eventually(
          () => Promise.resolve(socket.destroyed ? true : undefined),
          'the connection to close on the server',
        );
        gate.release();
        const runId = await (await started).text();

        // Committed for a poll that had gone: back in its queue, for the next poll.
        await eventually(async () => {
          const [task] = await tasksOf(n.base, runId);
          return task?.status === 'SCHEDULED' ? task : undefined;
        }, 'the task put back in its queue');
        const next = (await (
          await fetch(`${n.base}/api/tasks/poll/batch/settle_step?count=1&timeout=1000&workerid=other`)
        ).json()) as WireTask[];
        assert.deepEqual(
          next.map((t) => [t.workflowInstanceId, t.referenceTaskName, t.workerId, t.status]),
          [[runId, 'one', 'other', 'IN_PROGRESS']],
        );
      } finally {
        await n.close();
      }
    });

    void it('answers the task even when the poll’s time ran out while the transaction was committing', async () => {
      const n = await node();
      try {
        const poll = fetch(`${n.base}/api/tasks/poll/batch/settle_step?count=1&timeout=200&workerid=slow`, {
          signal: AbortSignal.timeout(POLL_ANSWER_MS),
        });
        await n.waiting(1);
        const gate = n.gated.arm();
        const started = n.start();
        await gate.entered;
        // Past the poll's 200 ms: it answers nothing only if nothing was reserved in it.
        await new Promise((resolve) => setTimeout(resolve, 400));
        gate.release();
        const runId = await (await started).text();
        const answered = (await (await poll).json()) as WireTask[];
        assert.deepEqual(
          answered.map((t) => [t.workflowInstanceId, t.workerId, t.status]),
          [[runId, 'slow', 'IN_PROGRESS']],
        );
        const [stored] = await tasksOf(n.base, runId);
        assert.equal(stored?.status, 'IN_PROGRESS');
        assert.equal(stored?.workerId, 'slow');
      } finally {
        await n.close();
      }
    });

    void it('leaves the poll waiting for other work when the transaction does not commit', async () => {
      const n = await node();
      try {
        const poll = fetch(`${n.base}/api/tasks/poll/batch/settle_step?count=1&timeout=5000&workerid=w`, {
          signal: AbortSignal.timeout(POLL_ANSWER_MS),
        });
        await n.waiting(1);
        const gate = n.gated.arm(true);
        const failed = n.start();
        await gate.entered;
        gate.release();
        const first = await failed;
        // The start failed (nothing of it committed), or ran again and committed: either way the
        // poll answers exactly the task of the run that exists.
        let runId: string;
        if (first.status === 200) {
          runId = await first.text();
        } else {
          await first.text();
          await n.waiting(1);
          const second = await n.start();
          assert.equal(second.status, 200);
          runId = await second.text();
        }
        const answered = (await (await poll).json()) as WireTask[];
        assert.deepEqual(
          answered.map((t) => [t.workflowInstanceId, t.workerId, t.status]),
          [[runId, 'w', 'IN_PROGRESS']],
        );
        const [stored] = await tasksOf(n.base, runId);
        assert.equal(stored?.status, 'IN_PROGRESS');
        assert.equal(stored?.workerId, 'w');
      } finally {
        await n.close();
      }
    });
  });
}
