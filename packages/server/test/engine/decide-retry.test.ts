import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RetryLogic, TaskDef } from '@baton/protocol';
import { Engine, T0, simple, workflow } from './helpers.js';

function retryDef(extra: Partial<TaskDef> = {}): TaskDef {
  return { name: 'work', retryCount: 3, retryDelaySeconds: 10, ...extra };
}

void describe('decide: failures and retries', () => {
  void it('a FAILED task with attempts left gets a new attempt after the retry delay', () => {
    const def = workflow([
      simple('a', { name: 'work', inputParameters: { id: '${CPEWF_TASK_ID}' } }),
      simple('b'),
    ]);
    const engine = new Engine(def, { priority: 3 }, [retryDef()]);
    engine.start();
    engine.tasks = engine.tasks.map((t) => ({ ...t, status: 'IN_PROGRESS', pollCount: 1, workerId: 'w1' }));
    engine.now = T0 + 1000;
    const decision = engine.fail('t1', 'disk full');

    assert.equal(decision.runChanged, false);
    const old = decision.updatedTasks[0]!;
    assert.equal(old.status, 'FAILED');
    assert.equal(old.reasonForIncompletion, 'disk full');
    assert.equal(old.retried, true);
    assert.equal(old.executed, true);
    const retry = decision.newTasks[0]!;
    assert.equal(retry.taskId, 't2');
    assert.equal(retry.referenceTaskName, 'a');
    assert.equal(retry.retryCount, 1);
    assert.equal(retry.retriedTaskId, 't1');
    assert.equal(retry.status, 'SCHEDULED');
    assert.equal(retry.pollCount, 0);
    assert.equal(retry.workerId, undefined);
    assert.equal(retry.reasonForIncompletion, undefined);
    assert.equal(retry.seq, 2);
    assert.equal(retry.scheduledTime, T0 + 1000);
    assert.deepEqual(retry.inputData, { id: 't2' }, 'input re-resolved for the new attempt');
    assert.deepEqual(decision.commands, [
      { type: 'DEQUEUE', taskId: 't1' },
      {
        type: 'ENQUEUE',
        taskId: 't2',
        queueName: 'work',
        taskRef: 'a',
        attempt: 2,
        priority: 3,
        visibleAt: T0 + 1000 + 10_000,
        lockMs: 3_600_000,
      },
    ]);
  });

  const delayCases: Array<{
    logic: RetryLogic;
    extra?: Partial<TaskDef>;
    random?: number;
    delays: number[];
  }> = [
    { logic: 'FIXED', delays: [10_000, 10_000, 10_000] },
    { logic: 'LINEAR_BACKOFF', extra: { backoffScaleFactor: 2 }, delays: [20_000, 40_000, 60_000] },
    { logic: 'EXPONENTIAL_BACKOFF', delays: [10_000, 20_000, 40_000] },
    { logic: 'EXPONENTIAL_BACKOFF', extra: { maxRetryDelaySeconds: 25 }, delays: [10_000, 20_000, 25_000] },
    { logic: 'FIXED', extra: { backoffJitterMs: 1000 }, random: 0.5, delays: [10_500, 10_500, 10_500] },
    {
      logic: 'LINEAR_BACKOFF',
      extra: { backoffJitterMs: 999, maxRetryDelaySeconds: 15 },
      random: 0.9999,
      delays: [10_998, 15_998, 15_998],
    },
  ];
  for (const c of delayCases) {
    void it(`retry delays: ${c.logic} ${JSON.stringify(c.extra ?? {})} random=${c.random ?? 0}`, () => {
      const engine = new Engine(workflow([simple('a', { name: 'work' })]), {}, [
        retryDef({ retryLogic: c.logic, ...c.extra }),
      ]);
      engine.randomValue = c.random ?? 0;
      engine.start();
      const seen: number[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const current = engine.task('a');
        assert.equal(current.retryCount, attempt);
        const decision = engine.fail(current.taskId);
        const enqueue = decision.commands.find((cmd) => cmd.type === 'ENQUEUE');
        assert.ok(enqueue?.type === 'ENQUEUE');
        assert.equal(enqueue.attempt, attempt + 2);
        seen.push(enqueue.visibleAt - engine.now);
      }
      assert.deepEqual(seen, c.delays);
      // The fourth failure exhausts retryCount 3.
      const last = engine.fail(engine.task('a').taskId);
      assert.equal(last.run.status, 'FAILED');
    });
  }

  void it('a retry shows its backoff without the jitter as callbackAfterSeconds (RetryPolicySpec)', () => {
    const engine = new Engine(workflow([simple('a', { name: 'work' })]), {}, [
      retryDef({ retryLogic: 'FIXED', retryDelaySeconds: 60, backoffJitterMs: 5000 }),
    ]);
    engine.randomValue = 0.9;
    engine.start();
    const decision = engine.fail(engine.task('a').taskId);
    const enqueue = decision.commands.find((cmd) => cmd.type === 'ENQUEUE');
    assert.ok(enqueue?.type === 'ENQUEUE');
    assert.equal(enqueue.visibleAt - engine.now, 64_500, 'the message waits out the jitter');
    assert.equal(engine.task('a').callbackAfterSeconds, 60);
  });

  void it('the workflow task retryCount overrides the task definition', () => {
    const engine = new Engine(workflow([simple('a', { name: 'work', retryCount: 0 })]), {}, [retryDef()]);
    engine.start();
    const decision = engine.fail('t1');
    assert.equal(decision.run.status, 'FAILED');
    assert.deepEqual(decision.newTasks, []);
  });

  void it('without a task definition the defaults apply: 3 retries, 60 s apart', () => {
    const engine = new Engine(workflow([simple('a')]));
    engine.start();
    for (let i = 0; i < 3; i++) {
      const decision = engine.fail(engine.task('a').taskId);
      const enqueue = decision.commands.find((cmd) => cmd.type === 'ENQUEUE');
      assert.ok(enqueue?.type === 'ENQUEUE');
      assert.equal(enqueue.visibleAt, engine.now + 60_000);
    }
    assert.equal(engine.fail(engine.task('a').taskId).run.status, 'FAILED');
  });

  void it('FAILED_WITH_TERMINAL_ERROR is never retried', () => {
    const engine = new Engine(workflow([simple('a', { name: 'work' }), simple('b')]), {}, [retryDef()]);
    engine.start();
    engine.now = T0 + 3000;
    const decision = engine.result('t1', 'FAILED_WITH_TERMINAL_ERROR', {
      reasonForIncompletion: 'bad input',
    });
    assert.deepEqual(decision.newTasks, []);
    assert.equal(decision.run.status, 'FAILED');
    assert.equal(
      decision.run.reasonForIncompletion,
      "Task a failed with status: FAILED_WITH_TERMINAL_ERROR and reason: 'bad input'",
    );
    assert.equal(decision.run.endTime, T0 + 3000);
  });

  void it('exhausted: the run FAILS with Conductor reason and names, and other open tasks are canceled', () => {
    const engine = new Engine(workflow([simple('a', { name: 'work' }), simple('b')]), {}, [
      retryDef({ retryCount: 0 }),
    ]);
    engine.start();
    // A second open task (as a fork would have) must be canceled with the run.
    engine.tasks = [
      ...engine.tasks,
      {
        ...engine.tasks[0]!,
        taskId: 'other',
        referenceTaskName: 'b',
        seq: 2,
        taskType: 'b_type',
        status: 'IN_PROGRESS',
      },
    ];
    engine.now = T0 + 4000;
    const decision = engine.fail('t1', 'boom');
    const run = decision.run;
    assert.equal(run.status, 'FAILED');
    assert.equal(run.reasonForIncompletion, "Task a failed with status: FAILED and reason: 'boom'");
    assert.equal(run.endTime, T0 + 4000);
    assert.deepEqual(run.failedReferenceTaskNames, ['a']);
    assert.deepEqual(run.failedTaskNames, ['work']);
    const other = decision.updatedTasks.find((t) => t.taskId === 'other')!;
    assert.equal(other.status, 'CANCELED');
    assert.equal(other.endTime, T0 + 4000);
    assert.deepEqual(decision.commands, [
      { type: 'DEQUEUE', taskId: 't1' },
      // Retries exhausted: the message is dead-lettered (this wins over the DEQUEUE).
      {
        type: 'DEAD_LETTER',
        taskId: 't1',
        queueName: 'work',
        taskRef: 'a',
        attempt: 1,
        priority: 0,
        lockMs: 3_600_000,
      },
      { type: 'DEQUEUE', taskId: 'other' },
    ]);
    assert.deepEqual(decision.newTasks, []);
  });

  void it('a failure without a reason reads null, as Conductor prints it', () => {
    const engine = new Engine(workflow([simple('a', { retryCount: 0 })]));
    engine.start();
    const decision = engine.result('t1', 'FAILED');
    assert.equal(decision.run.reasonForIncompletion, "Task a failed with status: FAILED and reason: 'null'");
  });

  void it('a TIMED_OUT task with no attempts left times the run out (Conductor)', () => {
    const engine = new Engine(workflow([simple('a', { retryCount: 0 })]));
    engine.start();
    engine.tasks = engine.tasks.map((t) => ({ ...t, status: 'TIMED_OUT', reasonForIncompletion: 'slow' }));
    const decision = engine.send({ type: 'DECIDE' });
    assert.equal(decision.run.status, 'TIMED_OUT');
    assert.equal(
      decision.run.reasonForIncompletion,
      "Task a failed with status: TIMED_OUT and reason: 'slow'",
    );
  });

  void it('a TIMED_OUT task with attempts left is retried', () => {
    const engine = new Engine(workflow([simple('a', { name: 'work' })]), {}, [retryDef()]);
    engine.start();
    engine.tasks = engine.tasks.map((t) => ({ ...t, status: 'TIMED_OUT' }));
    const decision = engine.send({ type: 'DECIDE' });
    assert.equal(decision.newTasks[0]!.retryCount, 1);
    assert.equal(decision.run.status, 'RUNNING');
  });

  void it('an optional task that fails for good becomes COMPLETED_WITH_ERRORS and the run moves on', () => {
    const engine = new Engine(workflow([simple('a', { name: 'work', optional: true }), simple('b')]), {}, [
      retryDef({ retryCount: 0 }),
    ]);
    engine.start();
    const decision = engine.fail('t1', 'meh');
    assert.equal(decision.run.status, 'RUNNING');
    const a = decision.updatedTasks[0]!;
    assert.equal(a.status, 'COMPLETED_WITH_ERRORS');
    assert.equal(a.reasonForIncompletion, 'meh');
    assert.equal(decision.newTasks[0]!.referenceTaskName, 'b');
    const done = engine.complete('t2', { ok: 1 });
    assert.equal(done.run.status, 'COMPLETED');
  });

  void it('an optional task is still retried first', () => {
    const engine = new Engine(workflow([simple('a', { name: 'work', optional: true }), simple('b')]), {}, [
      retryDef({ retryCount: 1 }),
    ]);
    engine.start();
    const first = engine.fail('t1');
    assert.equal(first.newTasks[0]!.referenceTaskName, 'a');
    const second = engine.fail('t2');
    assert.equal(second.updatedTasks[0]!.status, 'COMPLETED_WITH_ERRORS');
    assert.equal(second.newTasks[0]!.referenceTaskName, 'b');
  });

  void it('the failed run output is the failed task output when there are no outputParameters', () => {
    const engine = new Engine(workflow([simple('a', { retryCount: 0 })]));
    engine.start();
    const decision = engine.result('t1', 'FAILED', { outputData: { error: 'x' } });
    assert.deepEqual(decision.run.output, { error: 'x' });
  });
});
