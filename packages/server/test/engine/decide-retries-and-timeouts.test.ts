import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { RetryLogic, TaskDef, TimeoutPolicy } from '@baton/protocol';

import { mayHoldTaskTimers } from '../../src/engine/attempt-timers.js';
import type { Command, Decision, FiredTimer, TimerKind } from '../../src/engine/types.js';
import { Engine, T0, simple, workflow } from './helpers.js';

/** The ARM_TIMER commands of a decision, by kind. */
function armed(decision: Decision, kind: TimerKind): FiredTimer[] {
  return decision.commands
    .filter((c): c is Extract<Command, { type: 'ARM_TIMER' }> => c.type === 'ARM_TIMER')
    .filter((c) => c.timer.kind === kind)
    .map((c) => ({ ...c.timer, workflowId: decision.run.workflowId }));
}

function only<T>(items: readonly T[], what: string): T {
  assert.equal(items.length, 1, `expected one ${what}, got ${items.length}`);
  return items[0]!;
}

function def(extra: Partial<TaskDef> = {}): TaskDef {
  return { name: 'work', retryCount: 2, retryDelaySeconds: 5, responseTimeoutSeconds: 30, ...extra };
}

/** A run of one worker task `a` (type `work`) followed by `b`. */
function engineWith(extra: Partial<TaskDef> = {}, optional = false): Engine {
  return new Engine(workflow([simple('a', { name: 'work', optional }), simple('b')]), {}, [def(extra)]);
}

/** Marks a task handed out to a worker (what the hand-out writes). */
function handOut(engine: Engine, taskId: string, workerId = 'w1'): void {
  engine.tasks = engine.tasks.map((t) =>
    t.taskId === taskId
      ? { ...t, status: 'IN_PROGRESS', pollCount: t.pollCount + 1, workerId, startTime: engine.now }
      : t,
  );
}

function responseTimer(engine: Engine, taskId: string, dueAt: number): FiredTimer {
  const task = engine.tasks.find((t) => t.taskId === taskId)!;
  return {
    timerId: `rt-${taskId}`,
    workflowId: engine.run.workflowId,
    kind: 'RESPONSE_TIMEOUT',
    taskId,
    dueAt,
    payload: { seconds: 30, pollCount: task.pollCount, workerId: task.workerId ?? 'w1' },
  };
}

function fire(engine: Engine, timer: FiredTimer): Decision {
  engine.now = Math.max(engine.now, timer.dueAt);
  return engine.send({ type: 'TIMER', timer });
}

function commandTypes(decision: Decision): string[] {
  return decision.commands.map((c) => c.type);
}

void describe('decide: retry logic, exact delays', () => {
  const cases: Array<{ logic: RetryLogic; extra: Partial<TaskDef>; random?: number; delays: number[] }> = [
    { logic: 'FIXED', extra: { retryDelaySeconds: 5 }, delays: [5_000, 5_000, 5_000] },
    {
      logic: 'LINEAR_BACKOFF',
      extra: { retryDelaySeconds: 5, backoffScaleFactor: 3 },
      delays: [15_000, 30_000, 45_000],
    },
    { logic: 'EXPONENTIAL_BACKOFF', extra: { retryDelaySeconds: 5 }, delays: [5_000, 10_000, 20_000] },
    {
      logic: 'EXPONENTIAL_BACKOFF',
      extra: { retryDelaySeconds: 5, maxRetryDelaySeconds: 12 },
      delays: [5_000, 10_000, 12_000],
    },
    {
      logic: 'FIXED',
      extra: { retryDelaySeconds: 5, backoffJitterMs: 400 },
      random: 0.25,
      delays: [5_100, 5_100, 5_100],
    },
  ];
  for (const c of cases) {
    void it(`${c.logic} ${JSON.stringify(c.extra)}: ${c.delays.join(', ')} ms`, () => {
      const engine = engineWith({ retryCount: 3, retryLogic: c.logic, ...c.extra });
      engine.randomValue = c.random ?? 0;
      engine.start();
      const seen: number[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const current = engine.task('a');
        engine.now += 1000;
        const decision = engine.fail(current.taskId);
        const next = only(decision.newTasks, 'new attempt');
        assert.equal(next.retryCount, attempt + 1);
        assert.equal(next.retriedTaskId, current.taskId);
        const enqueue = decision.commands.find((cmd) => cmd.type === 'ENQUEUE');
        assert.ok(enqueue?.type === 'ENQUEUE');
        seen.push(enqueue.visibleAt - engine.now);
      }
      assert.deepEqual(seen, c.delays);
    });
  }

  void it('FAILED_WITH_TERMINAL_ERROR is never retried and is no dead letter: run FAILED, message dropped', () => {
    const engine = engineWith({ retryCount: 5 });
    engine.start();
    const decision = engine.result('t1', 'FAILED_WITH_TERMINAL_ERROR', { reasonForIncompletion: 'bad card' });
    assert.deepEqual(decision.newTasks, []);
    assert.equal(decision.run.status, 'FAILED');
    assert.equal(
      decision.run.reasonForIncompletion,
      "Task a failed with status: FAILED_WITH_TERMINAL_ERROR and reason: 'bad card'",
    );
    // Requeueing it would only repeat the failure the worker called terminal.
    assert.ok(!commandTypes(decision).includes('DEAD_LETTER'));
    assert.ok(commandTypes(decision).includes('DEQUEUE'));
  });

  void it('a reason that arrives in quotes is quoted once', () => {
    const engine = engineWith({ retryCount: 0 });
    engine.start();
    const decision = engine.result('t1', 'FAILED', { reasonForIncompletion: "'card declined'" });
    assert.equal(
      decision.run.reasonForIncompletion,
      "Task a failed with status: FAILED and reason: 'card declined'",
    );
  });

  void it('optional: exhausted ends COMPLETED_WITH_ERRORS, the message is dead-lettered and the run goes on', () => {
    const engine = engineWith({ retryCount: 0 }, true);
    engine.start();
    const decision = engine.fail('t1', 'nope');
    assert.equal(decision.run.status, 'RUNNING');
    assert.equal(engine.task('a').status, 'COMPLETED_WITH_ERRORS');
    assert.equal(engine.task('b').status, 'SCHEDULED');
    assert.ok(commandTypes(decision).includes('DEAD_LETTER'));
  });
});

void describe('decide: timers armed with the state they guard', () => {
  void it('a queued attempt arms its poll, task and total timeouts, counted from when it is visible', () => {
    const engine = engineWith({ pollTimeoutSeconds: 5, timeoutSeconds: 60, totalTimeoutSeconds: 200 });
    const start = engine.start();
    assert.equal(only(armed(start, 'POLL_TIMEOUT'), 'poll timer').dueAt, T0 + 5_000);
    assert.equal(only(armed(start, 'TASK_TIMEOUT'), 'task timer').dueAt, T0 + 60_000);
    assert.equal(only(armed(start, 'TOTAL_TIMEOUT'), 'total timer').dueAt, T0 + 200_000);
    assert.equal(armed(start, 'POLL_TIMEOUT')[0]!.taskId, 't1');

    // The retry is visible 5 s later: poll and task timeouts count from then, the total from the first attempt.
    engine.now = T0 + 10_000;
    const retry = engine.fail('t1');
    assert.equal(only(armed(retry, 'POLL_TIMEOUT'), 'poll timer').dueAt, T0 + 15_000 + 5_000);
    assert.equal(only(armed(retry, 'TASK_TIMEOUT'), 'task timer').dueAt, T0 + 15_000 + 60_000);
    assert.equal(only(armed(retry, 'TOTAL_TIMEOUT'), 'total timer').dueAt, T0 + 200_000);
  });

  void it('no timeout configured, no timer; the workflow timeout is armed when the run starts', () => {
    const engine = new Engine(workflow([simple('a')], { timeoutSeconds: 90 }));
    const start = engine.start();
    assert.deepEqual(
      start.commands.filter((c) => c.type === 'ARM_TIMER').map((c) => c.type === 'ARM_TIMER' && c.timer.kind),
      ['WORKFLOW_TIMEOUT'],
    );
    assert.equal(only(armed(start, 'WORKFLOW_TIMEOUT'), 'workflow timer').dueAt, T0 + 90_000);
  });
});

void describe('decide: poll, task and total timeouts under each timeoutPolicy', () => {
  const kinds: Array<{ kind: TimerKind; extra: Partial<TaskDef>; reason: string; handOut: boolean }> = [
    {
      kind: 'POLL_TIMEOUT',
      extra: { pollTimeoutSeconds: 5 },
      reason: 'no poll within pollTimeoutSeconds (5s)',
      handOut: false,
    },
    {
      kind: 'TASK_TIMEOUT',
      extra: { timeoutSeconds: 40 },
      reason: 'not completed within timeoutSeconds (40s)',
      handOut: true,
    },
    {
      kind: 'TOTAL_TIMEOUT',
      extra: { totalTimeoutSeconds: 100 },
      reason: 'attempts took longer than totalTimeoutSeconds (100s)',
      handOut: true,
    },
  ];
  for (const k of kinds) {
    const setup = (policy: TimeoutPolicy): { engine: Engine; timer: FiredTimer } => {
      const engine = engineWith({ ...k.extra, timeoutPolicy: policy });
      const timer = only(armed(engine.start(), k.kind), k.kind);
      if (k.handOut) handOut(engine, 't1');
      return { engine, timer };
    };

    void it(`${k.kind} under RETRY: the attempt is TIMED_OUT and retried${k.kind === 'TOTAL_TIMEOUT' ? ' (none: the total is spent)' : ''}`, () => {
      const { engine, timer } = setup('RETRY');
      const decision = fire(engine, timer);
      const old = decision.updatedTasks.find((t) => t.taskId === 't1')!;
      assert.equal(old.status, 'TIMED_OUT');
      assert.equal(old.reasonForIncompletion, k.reason);
      assert.equal(decision.commands[0]?.type, 'DEQUEUE');
      if (k.kind === 'TOTAL_TIMEOUT') {
        assert.deepEqual(decision.newTasks, []);
        assert.equal(decision.run.status, 'TIMED_OUT');
        assert.ok(commandTypes(decision).includes('DEAD_LETTER'));
      } else {
        const retry = only(decision.newTasks, 'retry');
        assert.equal(retry.retriedTaskId, 't1');
        assert.equal(old.retried, true);
        assert.equal(decision.run.status, 'RUNNING');
        const enqueue = decision.commands.find((c) => c.type === 'ENQUEUE');
        assert.ok(enqueue?.type === 'ENQUEUE');
        assert.equal(enqueue.visibleAt, engine.now + 5_000, 'the retry delay applies');
      }
    });

    void it(`${k.kind} under RETRY with no retries left: the task stays TIMED_OUT, dead-lettered, and the run is TIMED_OUT`, () => {
      const engine = engineWith({ ...k.extra, timeoutPolicy: 'RETRY', retryCount: 0 });
      const timer = only(armed(engine.start(), k.kind), k.kind);
      if (k.handOut) handOut(engine, 't1');
      const decision = fire(engine, timer);
      assert.equal(engine.task('a').status, 'TIMED_OUT');
      assert.deepEqual(decision.newTasks, []);
      assert.equal(decision.run.status, 'TIMED_OUT');
      assert.equal(
        decision.run.reasonForIncompletion,
        `Task a failed with status: TIMED_OUT and reason: '${k.reason}'`,
      );
      assert.ok(commandTypes(decision).includes('DEAD_LETTER'));
    });

    void it(`${k.kind} under TIME_OUT_WF: the run is TIMED_OUT, saying which timeout`, () => {
      const { engine, timer } = setup('TIME_OUT_WF');
      const decision = fire(engine, timer);
      assert.equal(decision.run.status, 'TIMED_OUT');
      assert.equal(decision.run.reasonForIncompletion, `Task a timed out: ${k.reason}`);
      assert.deepEqual(decision.run.failedReferenceTaskNames, ['a']);
      assert.equal(engine.task('a').status, 'TIMED_OUT');
      assert.deepEqual(decision.newTasks, []);
      assert.ok(!commandTypes(decision).includes('DEAD_LETTER'));
    });

    void it(`${k.kind} under ALERT_ONLY: an alert on the task and an ALERT command; it keeps waiting`, () => {
      const { engine, timer } = setup('ALERT_ONLY');
      const before = engine.task('a').status;
      const decision = fire(engine, timer);
      const task = engine.task('a');
      assert.equal(task.status, before);
      assert.deepEqual(task.alerts, [
        { kind: k.kind, time: engine.now, message: `Task a timed out: ${k.reason}` },
      ]);
      assert.deepEqual(decision.commands, [
        {
          type: 'ALERT',
          alert: {
            kind: k.kind,
            workflowId: engine.run.workflowId,
            workflowName: 'wf',
            taskId: 't1',
            taskRef: 'a',
            taskType: 'work',
            message: `Task a timed out: ${k.reason}`,
          },
        },
      ]);
      assert.equal(decision.run.status, 'RUNNING');
    });
  }

  void it('a poll timeout after the task was polled is stale and ignored', () => {
    const engine = engineWith({ pollTimeoutSeconds: 5 });
    const timer = only(armed(engine.start(), 'POLL_TIMEOUT'), 'poll timer');
    handOut(engine, 't1');
    assert.equal(fire(engine, timer).ignored, true);
  });

  void it('a timer of a task that has ended is ignored', () => {
    const engine = engineWith({ timeoutSeconds: 40 });
    const timer = only(armed(engine.start(), 'TASK_TIMEOUT'), 'task timer');
    engine.complete('t1');
    assert.equal(fire(engine, timer).ignored, true);
  });

  void it('a retry that would start after totalTimeoutSeconds is not made', () => {
    const engine = engineWith({ totalTimeoutSeconds: 20, retryDelaySeconds: 15 });
    engine.start();
    engine.now = T0 + 6_000;
    const decision = engine.fail('t1', 'flaky');
    assert.deepEqual(decision.newTasks, [], 'T0+6s+15s is past the 20 s total');
    assert.equal(decision.run.status, 'FAILED');
  });
});

void describe('decide: lock expiry (RESPONSE_TIMEOUT)', () => {
  for (const policy of ['RETRY', 'TIME_OUT_WF', 'ALERT_ONLY'] as const) {
    void it(`the attempt is TIMED_OUT naming the worker and the next one is queued at once (policy ${policy})`, () => {
      const engine = engineWith({ timeoutPolicy: policy });
      engine.start();
      engine.now = T0 + 1_000;
      handOut(engine, 't1', 'worker-7');
      const decision = fire(engine, responseTimer(engine, 't1', T0 + 31_000));
      const old = decision.updatedTasks.find((t) => t.taskId === 't1')!;
      assert.equal(old.status, 'TIMED_OUT');
      assert.equal(
        old.reasonForIncompletion,
        'no result within responseTimeoutSeconds (30s) from worker worker-7',
      );
      assert.equal(old.retried, true);
      const next = only(decision.newTasks, 'new attempt');
      assert.equal(next.status, 'SCHEDULED');
      assert.equal(next.retryCount, 1);
      assert.equal(next.retriedTaskId, 't1');
      assert.equal(decision.run.status, 'RUNNING');
      assert.deepEqual(decision.commands.slice(0, 2), [
        { type: 'DEQUEUE', taskId: 't1' },
        {
          type: 'ENQUEUE',
          taskId: next.taskId,
          queueName: 'work',
          taskRef: 'a',
          attempt: 2,
          priority: 0,
          visibleAt: T0 + 31_000,
          lockMs: 30_000,
        },
      ]);
    });
  }

  void it('with no retries left the task stays TIMED_OUT, its message is dead-lettered and the run is TIMED_OUT (Conductor)', () => {
    const engine = engineWith({ retryCount: 0 });
    engine.start();
    handOut(engine, 't1', 'w9');
    const decision = fire(engine, responseTimer(engine, 't1', T0 + 30_000));
    const task = engine.task('a');
    assert.equal(task.status, 'TIMED_OUT');
    assert.equal(task.reasonForIncompletion, 'no result within responseTimeoutSeconds (30s) from worker w9');
    assert.deepEqual(decision.newTasks, []);
    assert.equal(decision.run.status, 'TIMED_OUT');
    assert.deepEqual(decision.run.failedReferenceTaskNames, ['a']);
    assert.equal(
      decision.run.reasonForIncompletion,
      "Task a failed with status: TIMED_OUT and reason: 'no result within responseTimeoutSeconds (30s) from worker w9'",
    );
    assert.deepEqual(
      decision.commands.filter((c) => c.type === 'DEQUEUE' || c.type === 'DEAD_LETTER'),
      [
        { type: 'DEQUEUE', taskId: 't1' },
        {
          type: 'DEAD_LETTER',
          taskId: 't1',
          queueName: 'work',
          taskRef: 'a',
          attempt: 1,
          priority: 0,
          lockMs: 30_000,
        },
      ],
    );
  });

  void it('the last attempt of an optional task times out: COMPLETED_WITH_ERRORS, dead-lettered, and the run goes on', () => {
    const engine = engineWith({ retryCount: 0 }, true);
    engine.start();
    handOut(engine, 't1', 'w9');
    const decision = fire(engine, responseTimer(engine, 't1', T0 + 30_000));
    assert.equal(engine.task('a').status, 'COMPLETED_WITH_ERRORS');
    assert.equal(decision.run.status, 'RUNNING');
    assert.ok(commandTypes(decision).includes('DEAD_LETTER'));
    assert.equal(only(decision.newTasks, 'next step').referenceTaskName, 'b');
  });

  void it('every attempt times out: each is TIMED_OUT, the last one times the run out', () => {
    const engine = engineWith({ retryCount: 2 });
    engine.start();
    const statuses: string[] = [];
    let decision: Decision | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      const open = engine.tasks.find((t) => t.status === 'SCHEDULED')!;
      handOut(engine, open.taskId, 'w1');
      decision = fire(engine, responseTimer(engine, open.taskId, engine.now + 30_000));
      statuses.push(engine.tasks.find((t) => t.taskId === open.taskId)!.status);
    }
    assert.deepEqual(statuses, ['TIMED_OUT', 'TIMED_OUT', 'TIMED_OUT']);
    assert.equal(decision?.run.status, 'TIMED_OUT');
    assert.equal(engine.tasks.length, 3);
  });

  void it('in a paused run the attempt times out, and the next one is made when the run resumes', () => {
    const engine = engineWith();
    engine.start();
    handOut(engine, 't1', 'w1');
    engine.run = { ...engine.run, status: 'PAUSED' };
    const paused = fire(engine, responseTimer(engine, 't1', T0 + 30_000));
    assert.equal(engine.task('a').status, 'TIMED_OUT');
    assert.deepEqual(paused.newTasks, []);
    engine.run = { ...engine.run, status: 'RUNNING' };
    const resumed = engine.send({ type: 'DECIDE' });
    assert.equal(only(resumed.newTasks, 'new attempt').retriedTaskId, 't1');
  });

  void it('a response timer of an earlier hand-out, or of a task back on its queue, is ignored', () => {
    const engine = engineWith();
    engine.start();
    handOut(engine, 't1');
    const first = responseTimer(engine, 't1', T0 + 30_000);
    handOut(engine, 't1'); // handed out again (pollCount 2): the first timer is stale
    assert.equal(fire(engine, first).ignored, true);
    engine.tasks = engine.tasks.map((t) => ({ ...t, status: 'SCHEDULED' }));
    assert.equal(fire(engine, responseTimer(engine, 't1', engine.now)).ignored, true);
  });

  void it('an extended lease moves the lock, which is the response deadline (no timer)', () => {
    const engine = engineWith();
    engine.start();
    handOut(engine, 't1', 'w1');
    engine.now = T0 + 20_000;
    const decision = engine.result('t1', 'IN_PROGRESS', { extendLease: true });
    assert.deepEqual(decision.commands, [
      { type: 'EXTEND_LOCK', taskId: 't1', lockedUntil: T0 + 20_000 + 30_000 },
    ]);
    assert.equal(armed(decision, 'RESPONSE_TIMEOUT').length, 0);
  });
});

void describe('decide: workflow timeout', () => {
  void it('TIME_OUT_WF: the run is TIMED_OUT in Conductor words and open tasks are canceled', () => {
    const engine = new Engine(workflow([simple('a')], { timeoutSeconds: 90 }));
    const timer = only(armed(engine.start(), 'WORKFLOW_TIMEOUT'), 'workflow timer');
    const decision = fire(engine, timer);
    assert.equal(decision.run.status, 'TIMED_OUT');
    assert.equal(
      decision.run.reasonForIncompletion,
      'Workflow timed out after 90 seconds. Timeout configured as 90 seconds. Timeout policy configured to TIME_OUT_WF',
    );
    assert.equal(engine.task('a').status, 'CANCELED');
    assert.ok(commandTypes(decision).includes('DEQUEUE'));
  });

  void it('ALERT_ONLY: an alert on the run and an ALERT command; the run goes on', () => {
    const engine = new Engine(workflow([simple('a')], { timeoutSeconds: 90, timeoutPolicy: 'ALERT_ONLY' }));
    const timer = only(armed(engine.start(), 'WORKFLOW_TIMEOUT'), 'workflow timer');
    const decision = fire(engine, timer);
    assert.equal(decision.run.status, 'RUNNING');
    assert.equal(decision.run.alerts?.length, 1);
    assert.equal(decision.run.alerts?.[0]?.kind, 'WORKFLOW_TIMEOUT');
    assert.deepEqual(commandTypes(decision), ['ALERT']);
  });

  void it('a timer of an ended run is ignored', () => {
    const engine = new Engine(workflow([simple('a')], { timeoutSeconds: 90 }));
    const timer = only(armed(engine.start(), 'WORKFLOW_TIMEOUT'), 'workflow timer');
    engine.complete(engine.task('a').taskId);
    assert.equal(engine.run.status, 'COMPLETED');
    assert.equal(fire(engine, timer).ignored, true);
  });
});

void describe('decide: requeue of a dead-lettered task', () => {
  void it('reopens it as a new attempt and brings the run it failed back to RUNNING, recording that', () => {
    const engine = engineWith({ retryCount: 0 });
    engine.start();
    engine.now = T0 + 1_000;
    const failed = engine.fail('t1', 'down');
    assert.equal(failed.run.status, 'FAILED');
    engine.now = T0 + 50_000;
    const decision = engine.send({ type: 'REQUEUE_TASK', taskId: 't1' });
    assert.equal(decision.ignored, false);
    assert.equal(decision.run.status, 'RUNNING');
    assert.equal(decision.run.endTime, 0);
    assert.equal(decision.run.reasonForIncompletion, undefined);
    assert.deepEqual(decision.run.failedReferenceTaskNames, []);
    const next = only(decision.newTasks, 'new attempt');
    assert.equal(next.retriedTaskId, 't1');
    assert.equal(next.retryCount, 1);
    assert.deepEqual(decision.run.reopened, [
      {
        time: T0 + 50_000,
        taskId: 't1',
        newTaskId: next.taskId,
        taskRef: 'a',
        previousStatus: 'FAILED',
        previousReason: "Task a failed with status: FAILED and reason: 'down'",
      },
    ]);
    assert.deepEqual(commandTypes(decision), ['DEQUEUE', 'ENQUEUE']);
    // The new attempt completes and the run finishes normally.
    engine.complete(next.taskId);
    engine.complete(engine.task('b').taskId);
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('is ignored when nothing waits on the task any more', () => {
    const engine = engineWith({ retryCount: 0 }, true);
    engine.start();
    engine.fail('t1');
    assert.equal(
      engine.send({ type: 'REQUEUE_TASK', taskId: 't1' }).ignored,
      true,
      'optional: the run went on',
    );
    assert.equal(engine.send({ type: 'REQUEUE_TASK', taskId: 'nope' }).ignored, true);
  });
});

void describe('which ended tasks may hold timers (the executor drops only theirs)', () => {
  const combos: Array<Partial<TaskDef>> = [
    {},
    { timeoutSeconds: 60 },
    { pollTimeoutSeconds: 10 },
    { totalTimeoutSeconds: 600 },
    { timeoutSeconds: 60, pollTimeoutSeconds: 10, totalTimeoutSeconds: 600 },
  ];
  for (const extra of combos) {
    void it(`a worker task with ${JSON.stringify(extra)}: holds timers exactly when its queueing armed any`, () => {
      const engine = engineWith(extra);
      const decision = engine.start();
      const task = engine.task('a');
      const armedAny = decision.commands.some(
        (c) => c.type === 'ARM_TIMER' && c.timer.taskId === task.taskId,
      );
      const defs = new Map([['work', def(extra)]]);
      assert.equal(mayHoldTaskTimers(task, defs), armedAny);
    });
  }

  void it('a WAIT always may; an inline task definition counts as the registered one does', () => {
    const engine = new Engine(
      workflow([
        { name: 'pause', taskReferenceName: 'w', type: 'WAIT', inputParameters: { duration: '1 s' } },
        simple('x', { name: 'free', taskDefinition: { name: 'free', timeoutSeconds: 5 } }),
      ]),
    );
    engine.start();
    assert.equal(mayHoldTaskTimers(engine.task('w'), new Map()), true);
    const x = { ...engine.task('w'), taskType: 'free', workflowTask: simple('x', { name: 'free' }) };
    assert.equal(mayHoldTaskTimers(x, new Map()), false);
    const inline = {
      ...x,
      workflowTask: simple('x', { name: 'free', taskDefinition: { name: 'free', timeoutSeconds: 5 } }),
    };
    assert.equal(mayHoldTaskTimers(inline, new Map()), true);
  });
});
