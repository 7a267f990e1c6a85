import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Engine, T0, simple, workflow } from './helpers.js';

void describe('decide: task results', () => {
  void it('a completion chains to the next task, with the previous output in its input', () => {
    const def = workflow([
      simple('a'),
      simple('b', {
        inputParameters: { fromA: '${a.output.value}', aId: '${a.taskId}', aStatus: '${a.status}' },
      }),
    ]);
    const engine = new Engine(def);
    engine.start();
    engine.now = T0 + 1000;
    const decision = engine.complete('t1', { value: 42 });

    assert.equal(decision.ignored, false);
    assert.equal(decision.runChanged, false);
    assert.equal(decision.updatedTasks.length, 1);
    const a = decision.updatedTasks[0]!;
    assert.equal(a.status, 'COMPLETED');
    assert.deepEqual(a.outputData, { value: 42 });
    assert.equal(a.endTime, T0 + 1000);
    assert.equal(a.updateTime, T0 + 1000);
    assert.equal(a.executed, true);
    assert.equal(decision.newTasks.length, 1);
    const b = decision.newTasks[0]!;
    assert.equal(b.referenceTaskName, 'b');
    assert.equal(b.seq, 2);
    assert.deepEqual(b.inputData, { fromA: 42, aId: 't1', aStatus: 'COMPLETED' });
    assert.deepEqual(
      decision.commands.map((c) => c.type),
      ['DEQUEUE', 'ENQUEUE'],
    );
    assert.deepEqual(decision.commands[0], { type: 'DEQUEUE', taskId: 't1' });
  });

  void it('the last completion completes the run with the resolved outputParameters', () => {
    const def = workflow([simple('a'), simple('b')], {
      outputParameters: {
        total: '${b.output.total}',
        from: '${workflow.input.who}',
        both: '${a.output.x}-${b.output.total}',
      },
    });
    const engine = new Engine(def, { input: { who: 'me' } });
    engine.start();
    engine.complete('t1', { x: 'A' });
    engine.now = T0 + 5000;
    const decision = engine.complete('t2', { total: 3 });
    assert.equal(decision.runChanged, true);
    assert.equal(decision.run.status, 'COMPLETED');
    assert.equal(decision.run.endTime, T0 + 5000);
    assert.equal(decision.run.updateTime, T0 + 5000);
    assert.deepEqual(decision.run.output, { total: 3, from: 'me', both: 'A-3' });
    assert.deepEqual(decision.commands, [{ type: 'DEQUEUE', taskId: 't2' }]);
  });

  void it('without outputParameters the run output is the last task output', () => {
    const engine = new Engine(workflow([simple('a'), simple('b')]));
    engine.start();
    engine.complete('t1', { x: 1 });
    const decision = engine.complete('t2', { y: 2 });
    assert.equal(decision.run.status, 'COMPLETED');
    assert.deepEqual(decision.run.output, { y: 2 });
  });

  void it('a result keeps workerId and reason, and replaces the output only when given', () => {
    const engine = new Engine(workflow([simple('a'), simple('b')]));
    engine.start();
    const decision = engine.result('t1', 'COMPLETED', { workerId: 'w-9' });
    assert.equal(decision.updatedTasks[0]!.workerId, 'w-9');
    assert.deepEqual(decision.updatedTasks[0]!.outputData, {});
  });

  const ignoredCases: Array<{ title: string; prepare: (e: Engine) => string }> = [
    { title: 'unknown task', prepare: () => 'nope' },
    {
      title: 'task already terminal',
      prepare: (e) => {
        e.complete('t1');
        return 't1';
      },
    },
    {
      title: 'run terminal',
      prepare: (e) => {
        e.run = { ...e.run, status: 'TERMINATED' };
        return 't1';
      },
    },
  ];
  for (const c of ignoredCases) {
    void it(`ignores a result for an ${c.title}`, () => {
      const engine = new Engine(workflow([simple('a'), simple('b')]));
      engine.start();
      const taskId = c.prepare(engine);
      const decision = engine.complete(taskId, { late: true });
      assert.equal(decision.ignored, true);
      assert.equal(decision.runChanged, false);
      assert.deepEqual(decision.newTasks, []);
      assert.deepEqual(decision.updatedTasks, []);
      assert.deepEqual(decision.commands, []);
    });
  }

  void it('IN_PROGRESS with callbackAfterSeconds puts the task back, due after the callback', () => {
    const engine = new Engine(workflow([simple('a'), simple('b')]));
    engine.start();
    engine.tasks = engine.tasks.map((t) => ({ ...t, status: 'IN_PROGRESS', pollCount: 1, workerId: 'w1' }));
    engine.now = T0 + 2000;
    const decision = engine.result('t1', 'IN_PROGRESS', {
      callbackAfterSeconds: 30,
      outputData: { progress: 0.5 },
    });
    assert.equal(decision.ignored, false);
    assert.deepEqual(decision.newTasks, []);
    const task = decision.updatedTasks[0]!;
    assert.equal(task.status, 'SCHEDULED');
    assert.equal(task.callbackAfterSeconds, 30);
    assert.deepEqual(task.outputData, { progress: 0.5 });
    assert.equal(task.executed, false);
    assert.deepEqual(decision.commands, [
      // Back on its queue unlocked: with the lock goes the response deadline.
      { type: 'REQUEUE', taskId: 't1', visibleAt: T0 + 2000 + 30_000 },
    ]);
  });

  void it('IN_PROGRESS with extendLease only extends the lock', () => {
    const engine = new Engine(workflow([simple('a')]), {}, [{ name: 'a_type', responseTimeoutSeconds: 60 }]);
    engine.start();
    engine.tasks = engine.tasks.map((t) => ({ ...t, status: 'IN_PROGRESS', pollCount: 1, workerId: 'w1' }));
    const before = engine.task('a');
    engine.now = T0 + 10_000;
    const decision = engine.result('t1', 'IN_PROGRESS', { extendLease: true, outputData: { ignored: true } });
    assert.deepEqual(decision.commands, [
      // The lock is the response deadline: it moves, and no timer is armed.
      { type: 'EXTEND_LOCK', taskId: 't1', lockedUntil: T0 + 10_000 + 60_000 },
    ]);
    assert.deepEqual(decision.updatedTasks, [{ ...before, updateTime: T0 + 10_000 }]);
    assert.equal(decision.runChanged, false);
  });

  void it('a PAUSED run records the result but schedules nothing until resumed', () => {
    const engine = new Engine(workflow([simple('a'), simple('b')]));
    engine.start();
    engine.run = { ...engine.run, status: 'PAUSED' };
    const paused = engine.complete('t1', { x: 1 });
    assert.equal(paused.updatedTasks[0]!.status, 'COMPLETED');
    assert.equal(paused.updatedTasks[0]!.executed, false);
    assert.deepEqual(paused.newTasks, []);
    assert.deepEqual(paused.commands, [{ type: 'DEQUEUE', taskId: 't1' }]);

    engine.run = { ...engine.run, status: 'RUNNING' };
    const resumed = engine.send({ type: 'DECIDE' });
    assert.equal(resumed.newTasks[0]!.referenceTaskName, 'b');
    assert.equal(resumed.updatedTasks[0]!.executed, true);
  });

  void it('never mutates its inputs (deep-frozen context through a whole run)', () => {
    // Engine.send freezes every context and compares it before and after; a mutation throws.
    const engine = new Engine(
      workflow([simple('a', { inputParameters: { x: '${workflow.input.obj}' } }), simple('b')], {
        outputParameters: { o: '${a.output}' },
      }),
      { input: { obj: { deep: [1, 2] } } },
      [{ name: 'a_type', retryCount: 1, retryDelaySeconds: 0 }],
    );
    engine.start();
    engine.fail('t1');
    engine.complete('t2', { nested: { v: 1 } });
    const done = engine.complete('t3');
    assert.equal(done.run.status, 'COMPLETED');
    assert.deepEqual(done.run.output, { o: { nested: { v: 1 } } });
    assert.equal(Object.isFrozen(done.run.output), false);
  });
});
