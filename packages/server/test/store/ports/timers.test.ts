import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { openPostgresStore } from '../../../src/store-postgres/postgres-store.js';
import type { TimerRecord } from '../../../src/store/store.js';
import { storeCases } from '../../helpers/stores.js';
import { storeSuite } from '../../helpers/store-suite.js';
import { T0, enqueueTasks, message, uid } from '../fixtures.js';

function timer(overrides: Partial<TimerRecord> = {}): TimerRecord {
  return {
    timerId: uid('timer-'),
    workflowId: uid('run-'),
    kind: 'TASK_TIMEOUT',
    dueAt: T0,
    payload: {},
    ...overrides,
  };
}

for (const c of storeCases()) {
  void describe(`store timers (${c.name})`, () => {
    const { store, opened: h } = storeSuite(c);
    // Each test works far from the others in time, so due timers of one never show up in another.
    let base = T0;
    const era = (): number => (base += 10_000_000);
    const claim = (now: number, limit = 100, leaseMs = 1000) =>
      store.transaction((tx) => tx.claimDueTimers({ now, limit, leaseMs }));
    const cleanup = async (now: number): Promise<void> => {
      for (const t of await claim(now + 1_000_000_000, 10_000))
        await store.transaction((tx) => tx.deleteTimer(t.timerId));
    };

    void it('arms, lists and reads back a timer whole', async () => {
      const at = era();
      const t = timer({ taskId: uid('task-'), dueAt: at + 5, payload: { pollCount: 2, workerId: 'w' } });
      await store.transaction((tx) => tx.armTimers([t], at));
      const [got] = await store.read((tx) => tx.listTimers({ workflowId: t.workflowId }));
      assert.deepEqual(got, { ...t, claimedUntil: null, createTime: at });
      assert.deepEqual(await store.read((tx) => tx.listTimers({ taskIds: [t.taskId!] })), [got]);
      await cleanup(at);
    });

    void it('claims due timers earliest first, leases them, and not again until the lease lapses', async () => {
      const at = era();
      const run = uid('run-');
      const late = timer({ workflowId: run, dueAt: at + 30, timerId: `${run}-c` });
      const early = timer({ workflowId: run, dueAt: at + 10, timerId: `${run}-a` });
      const future = timer({ workflowId: run, dueAt: at + 1000 });
      await store.transaction((tx) => tx.armTimers([late, early, future], at));
      assert.equal(await store.read((tx) => tx.nextTimerDueAt()), at + 10);
      assert.deepEqual(await claim(at + 5), [], 'nothing due yet');
      const got = await claim(at + 30, 100, 500);
      assert.deepEqual(
        got.map((t) => [t.timerId, t.claimedUntil]),
        [
          [early.timerId, at + 530],
          [late.timerId, at + 530],
        ],
      );
      assert.deepEqual(await claim(at + 100), [], 'leased timers are not claimed again');
      // The lease end is the next time something may be claimed.
      assert.equal(await store.read((tx) => tx.nextTimerDueAt()), at + 530);
      // The claimer died: after the lease another node claims them again.
      assert.deepEqual(
        (await claim(at + 530)).map((t) => t.timerId),
        [early.timerId, late.timerId],
      );
      assert.equal(await store.transaction((tx) => tx.deleteTimer(early.timerId)), true);
      assert.equal(await store.transaction((tx) => tx.deleteTimer(early.timerId)), false, 'fires once');
      await cleanup(at);
    });

    void it('limits a claim to the batch size', async () => {
      const at = era();
      const run = uid('run-');
      await store.transaction((tx) =>
        tx.armTimers(
          Array.from({ length: 5 }, (_, i) => timer({ workflowId: run, dueAt: at + i })),
          at,
        ),
      );
      assert.equal((await claim(at + 10, 3)).length, 3);
      assert.equal((await claim(at + 10, 3)).length, 2);
      await cleanup(at);
    });

    void it('re-arming a timer id replaces it and drops its lease', async () => {
      const at = era();
      const t = timer({ dueAt: at });
      await store.transaction((tx) => tx.armTimers([t], at));
      assert.equal((await claim(at)).length, 1);
      await store.transaction((tx) => tx.armTimers([{ ...t, dueAt: at + 50 }], at));
      const [got] = await store.read((tx) => tx.listTimers({ workflowId: t.workflowId }));
      assert.equal(got?.dueAt, at + 50);
      assert.equal(got?.claimedUntil, null);
      await cleanup(at);
    });

    void it('cancels by run, by tasks and by kinds', async () => {
      const at = era();
      const run = uid('run-');
      const taskA = uid('task-');
      const taskB = uid('task-');
      const a1 = timer({ workflowId: run, taskId: taskA, kind: 'POLL_TIMEOUT' });
      const a2 = timer({ workflowId: run, taskId: taskA, kind: 'RESPONSE_TIMEOUT' });
      const b1 = timer({ workflowId: run, taskId: taskB, kind: 'RESPONSE_TIMEOUT' });
      const wf = timer({ workflowId: run, kind: 'WORKFLOW_TIMEOUT' });
      const other = timer({ kind: 'WORKFLOW_TIMEOUT' });
      await store.transaction((tx) => tx.armTimers([a1, a2, b1, wf, other], at));
      const ids = async () =>
        (await store.read((tx) => tx.listTimers({ workflowId: run }))).map((t) => t.timerId).sort();

      assert.equal(
        await store.transaction((tx) => tx.cancelTimers({ taskIds: [taskA], kinds: ['POLL_TIMEOUT'] })),
        1,
      );
      assert.deepEqual(await ids(), [a2.timerId, b1.timerId, wf.timerId].sort());
      assert.equal(
        await store.transaction((tx) => tx.cancelTimers({ workflowId: run, taskIds: [taskA, taskB] })),
        2,
      );
      assert.deepEqual(await ids(), [wf.timerId]);
      assert.equal(await store.transaction((tx) => tx.cancelTimers({ workflowId: run, taskIds: [] })), 0);
      assert.equal(await store.transaction((tx) => tx.cancelTimers({ workflowId: run })), 1);
      assert.deepEqual(await ids(), []);
      assert.equal((await store.read((tx) => tx.listTimers({ workflowId: other.workflowId }))).length, 1);
      await assert.rejects(
        store.transaction((tx) => tx.cancelTimers({})),
        /needs a workflowId or taskIds/,
      );
      await cleanup(at);
    });

    void it('a cancelled timer never fires and nothing is next', async () => {
      const at = era();
      const t = timer({ dueAt: at });
      await store.transaction((tx) => tx.armTimers([t], at));
      await store.transaction((tx) => tx.cancelTimers({ workflowId: t.workflowId }));
      assert.deepEqual(await claim(at + 1), []);
      assert.equal(await store.read((tx) => tx.nextTimerDueAt()), undefined);
    });

    void it('lists dead-lettered messages of the given queues only', async () => {
      const q1 = uid('q-');
      const q2 = uid('q-');
      const dead = message(q1, { taskId: uid('dead-') });
      const alive = message(q1, { taskId: uid('alive-') });
      const elsewhere = message(q2, { taskId: uid('else-') });
      await store.transaction(async (tx) => {
        await enqueueTasks(tx, [dead, alive, elsewhere], T0);
        await tx.deadLetterMessage(dead.taskId);
        await tx.deadLetterMessage(elsewhere.taskId);
      });
      const got = await store.read((tx) => tx.deadLetteredMessages([q1]));
      assert.deepEqual(
        got.map((m) => [m.taskId, m.deadLettered]),
        [[dead.taskId, true]],
      );
      assert.deepEqual(await store.read((tx) => tx.deadLetteredMessages([])), []);
    });

    if (c.name === 'postgres')
      void it('two nodes claiming at once never get the same timer', async () => {
        const at = era();
        const run = uid('run-');
        const all = Array.from({ length: 200 }, (_, i) => timer({ workflowId: run, dueAt: at + (i % 7) }));
        await store.transaction((tx) => tx.armTimers(all, at));
        const other = openPostgresStore({ url: h.url!, poolSize: 5 });
        try {
          // Whether both nodes win a share of a free-for-all drain depends on scheduling, so the
          // overlap is forced instead: node 0 keeps its claim's transaction open while node 1
          // claims. Node 1 must skip the rows node 0 holds rather than wait for them (waiting would
          // never end here) and still find due timers.
          const overlap = await store.transaction(async (tx) => {
            const first = await tx.claimDueTimers({ now: at + 10, limit: 7, leaseMs: 60_000 });
            const second = await other.transaction((tx2) =>
              tx2.claimDueTimers({ now: at + 10, limit: 7, leaseMs: 60_000 }),
            );
            return [first.map((t) => t.timerId), second.map((t) => t.timerId)] as const;
          });
          assert.equal(overlap[0].length, 7);
          assert.equal(overlap[1].length, 7, 'the second node found due timers beside the held ones');
          const nodes = [store, other];
          const taken: string[][] = [[...overlap[0]], [...overlap[1]]];
          await Promise.all(
            nodes.flatMap((node, n) =>
              [0, 1, 2].map(async () => {
                for (;;) {
                  const got = await node.transaction((tx) =>
                    tx.claimDueTimers({ now: at + 10, limit: 7, leaseMs: 60_000 }),
                  );
                  if (got.length === 0) return;
                  taken[n]!.push(...got.map((t) => t.timerId));
                }
              }),
            ),
          );
          const everything = [...taken[0]!, ...taken[1]!];
          assert.equal(new Set(everything).size, everything.length, 'a timer was claimed twice');
          assert.equal(everything.length, all.length, 'every due timer was claimed');
        } finally {
          await other.close();
        }
        await store.transaction((tx) => tx.cancelTimers({ workflowId: run }));
      });
  });
}
