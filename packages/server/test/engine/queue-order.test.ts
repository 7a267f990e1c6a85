import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { TaskDef } from '@baton/protocol';

import { queuedAt } from '../../src/engine/queue-order.js';
import type { Command, Decision } from '../../src/engine/types.js';
import { Engine, T0, fork, join, simple, workflow } from './helpers.js';

type Enqueue = Extract<Command, { type: 'ENQUEUE' }>;

function enqueued(decision: Decision): Enqueue[] {
  return decision.commands.filter((c): c is Enqueue => c.type === 'ENQUEUE');
}

function armedAt(decision: Decision, kind: string): number[] {
  return decision.commands.flatMap((c) =>
    c.type === 'ARM_TIMER' && c.timer.kind === kind ? [c.timer.dueAt] : [],
  );
}

void describe('queuedAt: where a task stands in its queue', () => {
  void it('strictly in the order queued without a lead', () => {
    assert.equal(queuedAt(T0 + 9_000, T0, 0), T0 + 9_000);
    assert.equal(queuedAt(T0 + 9_000, T0, 0, 0), T0 + 9_000);
  });

  void it('as if queued up to the lead earlier, never before its run began', () => {
    assert.equal(queuedAt(T0 + 9_000, T0, 0, 60_000), T0, 'the run began 9 s ago: at its start');
    assert.equal(queuedAt(T0 + 90_000, T0, 0, 60_000), T0 + 30_000, 'the lead is the bound');
  });

  void it('a delayed task from the end of its delay, and a run stamped ahead of this clock at once', () => {
    assert.equal(queuedAt(T0 + 9_000, T0, 5_000, 60_000), T0 + 14_000);
    assert.equal(queuedAt(T0, T0 + 2_000, 0, 60_000), T0, 'visible now, not in 2 s');
  });
});

void describe('decide: a worker task queued with its run’s lead', () => {
  const taskDef: TaskDef = {
    name: 'work',
    retryCount: 1,
    retryDelaySeconds: 5,
    responseTimeoutSeconds: 30,
    pollTimeoutSeconds: 10,
    timeoutSeconds: 60,
  };
  const def = workflow([
    simple('first', { name: 'work' }),
    fork('fork', [[simple('a', { name: 'work' })], [simple('b', { name: 'work' })]]),
    join('join', ['a', 'b']),
  ]);

  void it('stands where its run began, and its timeouts count from now', () => {
    const engine = new Engine(def, {}, [taskDef]);
    engine.queueRunAgeMs = 60_000;
    const [first] = enqueued(engine.start());
    assert.equal(first?.visibleAt, T0);

    engine.now = T0 + 7_000;
    const branches = engine.complete('t1');
    assert.deepEqual(
      enqueued(branches).map((c) => [c.taskRef, c.visibleAt]),
      [
        ['a', T0],
        ['b', T0],
      ],
    );
    // The poll and task timeouts are the task's own, from when it can first be handed out.
    assert.deepEqual(armedAt(branches, 'POLL_TIMEOUT'), [T0 + 17_000, T0 + 17_000]);
    assert.deepEqual(armedAt(branches, 'TASK_TIMEOUT'), [T0 + 67_000, T0 + 67_000]);

    // A retry waits out its delay and is ordered from then.
    engine.now = T0 + 8_000;
    const retry = engine.fail(enqueued(branches)[0]!.taskId);
    assert.deepEqual(
      enqueued(retry).map((c) => [c.taskRef, c.visibleAt]),
      [['a', T0 + 13_000]],
    );
  });

  void it('goes at most the lead ahead of where it was queued', () => {
    const engine = new Engine(def, {}, [taskDef]);
    engine.queueRunAgeMs = 2_000;
    engine.start();
    engine.now = T0 + 7_000;
    assert.deepEqual(
      enqueued(engine.complete('t1')).map((c) => c.visibleAt),
      [T0 + 5_000, T0 + 5_000],
    );
  });

  void it('in a child run, stands where the run that started it stood', () => {
    const engine = new Engine(def, {}, [taskDef]);
    engine.queueRunAgeMs = 60_000;
    // A SUB_WORKFLOW child started 20 s into its parent's run.
    engine.now = T0 + 20_000;
    engine.run.createTime = T0 + 20_000;
    engine.run.queueSince = T0;
    assert.equal(enqueued(engine.start())[0]?.visibleAt, T0);
  });

  void it('without a lead, queued at the time of the decision', () => {
    const engine = new Engine(def, {}, [taskDef]);
    engine.start();
    engine.now = T0 + 7_000;
    assert.deepEqual(
      enqueued(engine.complete('t1')).map((c) => c.visibleAt),
      [T0 + 7_000, T0 + 7_000],
    );
  });
});
