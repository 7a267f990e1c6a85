import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowTask } from '@baton/protocol';
import { Engine, T0, simple, workflow } from './helpers.js';

function node(type: string, ref: string, extra: Partial<WorkflowTask> = {}): WorkflowTask {
  return { name: ref, taskReferenceName: ref, type, ...extra };
}

void describe('SET_VARIABLE', () => {
  void it('merges its input into workflow.variables, visible to the next task and the output', () => {
    const engine = new Engine(
      workflow(
        [
          node('SET_VARIABLE', 'set', { inputParameters: { user: '${workflow.input.user}', n: 1 } }),
          simple('use', { inputParameters: { who: '${workflow.variables.user}' } }),
        ],
        { variables: { keep: true, n: 0 }, outputParameters: { vars: '${workflow.variables}' } },
      ),
      { input: { user: 'ann' } },
    );
    const decision = engine.start();
    assert.equal(decision.runChanged, true);
    assert.deepEqual(engine.run.variables, { keep: true, n: 1, user: 'ann' });
    assert.equal(engine.task('set').status, 'COMPLETED');
    assert.equal(engine.task('set').taskType, 'SET_VARIABLE');
    assert.deepEqual(engine.task('use').inputData, { who: 'ann' });
    engine.complete(engine.task('use').taskId);
    assert.deepEqual(engine.run.output, { vars: { keep: true, n: 1, user: 'ann' } });
  });

  void it("over 256 KB: nothing changes and the task fails with Conductor's message", () => {
    const big = 'x'.repeat(256 * 1024);
    const engine = new Engine(workflow([node('SET_VARIABLE', 'set', { inputParameters: { big } })]));
    engine.start();
    const set = engine.task('set');
    assert.equal(set.status, 'FAILED_WITH_TERMINAL_ERROR');
    assert.equal(
      set.reasonForIncompletion,
      `The variables payload size: ${big.length + 10} of workflow: wf-1 is greater than the permissible limit: 256 kilobytes`,
    );
    assert.deepEqual(engine.run.variables, {});
    assert.equal(engine.run.status, 'FAILED');
  });
});

void describe('TERMINATE', () => {
  const terminate = (params: Record<string, unknown>) =>
    node('TERMINATE', 'stop', { inputParameters: params as never });

  void it('COMPLETED: the run completes with workflowOutput and the default reason; open tasks canceled', () => {
    const engine = new Engine(
      workflow([
        {
          name: 'fork',
          taskReferenceName: 'fork',
          type: 'FORK_JOIN',
          forkTasks: [
            [simple('slow')],
            [terminate({ terminationStatus: 'COMPLETED', workflowOutput: { result: { testvalue: true } } })],
          ],
        },
        { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['slow', 'stop'] },
      ]),
    );
    engine.start();
    const stop = engine.task('stop');
    assert.equal(stop.status, 'COMPLETED');
    assert.deepEqual(stop.outputData, { result: { testvalue: true } });
    assert.equal(engine.run.status, 'COMPLETED');
    assert.equal(engine.run.reasonForIncompletion, `Workflow is COMPLETED by TERMINATE task: ${stop.taskId}`);
    assert.deepEqual(engine.run.output, { result: { testvalue: true } });
    assert.equal(engine.task('slow').status, 'CANCELED');
    assert.equal(engine.task('join').status, 'CANCELED');
  });

  void it('FAILED with a reason; a non-object output is wrapped', () => {
    const engine = new Engine(
      workflow([
        terminate({ terminationStatus: 'FAILED', terminationReason: 'bad input', workflowOutput: 7 }),
        simple('never'),
      ]),
    );
    engine.start();
    assert.equal(engine.run.status, 'FAILED');
    assert.equal(engine.run.reasonForIncompletion, 'bad input');
    assert.deepEqual(engine.run.output, { output: 7 });
    assert.deepEqual(engine.run.failedReferenceTaskNames, []);
    assert.equal(engine.tasks.length, 1);
  });

  void it('TERMINATED', () => {
    const engine = new Engine(workflow([terminate({ terminationStatus: '${workflow.input.s}' })]), {
      input: { s: 'TERMINATED' },
    });
    engine.start();
    assert.equal(engine.run.status, 'TERMINATED');
  });

  void it('an unknown status fails the task (and the run)', () => {
    const engine = new Engine(workflow([terminate({ terminationStatus: 'PAUSED' })]));
    engine.start();
    assert.equal(engine.task('stop').status, 'FAILED_WITH_TERMINAL_ERROR');
    assert.equal(
      engine.task('stop').reasonForIncompletion,
      'terminationStatus must be one of COMPLETED, FAILED, TERMINATED, got "PAUSED"',
    );
    assert.equal(engine.run.status, 'FAILED');
  });
});

void describe('NOOP', () => {
  void it('completes at once and the run moves on', () => {
    const engine = new Engine(workflow([node('NOOP', 'n'), simple('after')]));
    const decision = engine.start();
    assert.deepEqual(
      decision.newTasks.map((t) => [t.referenceTaskName, t.taskType, t.status, t.endTime]),
      [
        ['n', 'NOOP', 'COMPLETED', T0],
        ['after', 'after_type', 'SCHEDULED', 0],
      ],
    );
  });
});

void describe('DYNAMIC', () => {
  const dynamic = node('DYNAMIC', 'dyn', {
    dynamicTaskNameParam: 'taskToRun',
    inputParameters: { taskToRun: '${workflow.input.which}', file: 'a.txt' },
  });

  void it('schedules a worker task of the name its input gives', () => {
    const engine = new Engine(workflow([dynamic]), { input: { which: 'encode' } }, [
      { name: 'encode', responseTimeoutSeconds: 30 },
    ]);
    const decision = engine.start();
    const task = engine.task('dyn');
    assert.equal(task.taskType, 'encode');
    assert.equal(task.queueName, 'encode');
    assert.equal(task.responseTimeoutSeconds, 30);
    assert.deepEqual(task.inputData, { taskToRun: 'encode', file: 'a.txt' });
    assert.deepEqual(
      decision.commands.map((c) => c.type === 'ENQUEUE' && c.queueName),
      ['encode'],
    );
  });

  void it('retries keep the chosen name', () => {
    const engine = new Engine(workflow([{ ...dynamic, retryCount: 1 }]), { input: { which: 'encode' } });
    engine.start();
    engine.fail(engine.task('dyn').taskId);
    assert.equal(engine.all('dyn').length, 2);
    assert.equal(engine.task('dyn').taskType, 'encode');
  });

  void it("no name: the run fails with Conductor's message", () => {
    const engine = new Engine(workflow([dynamic]));
    engine.start();
    assert.equal(engine.run.status, 'FAILED');
    assert.equal(
      engine.run.reasonForIncompletion,
      'Cannot map a dynamic task based on the parameter and input. Parameter= taskToRun, input= {taskToRun=null, file=a.txt}',
    );
  });
});

void describe('WAIT', () => {
  void it('without duration/until: IN_PROGRESS until a result completes it; no timer', () => {
    const engine = new Engine(workflow([node('WAIT', 'w'), simple('after')]));
    const decision = engine.start();
    assert.equal(engine.task('w').status, 'IN_PROGRESS');
    assert.deepEqual(decision.commands, []);
    engine.result(engine.task('w').taskId, 'IN_PROGRESS', { outputData: { progress: 1 } });
    assert.equal(engine.task('w').status, 'IN_PROGRESS');
    assert.deepEqual(engine.task('w').outputData, { progress: 1 });
    engine.complete(engine.task('w').taskId, { approved: true });
    assert.equal(engine.task('w').status, 'COMPLETED');
    assert.equal(engine.task('after').status, 'SCHEDULED');
  });

  void it('duration arms a WAIT timer; the timer completes the task', () => {
    const engine = new Engine(
      workflow([node('WAIT', 'w', { inputParameters: { duration: '1 minute 30s' } })]),
    );
    const decision = engine.start();
    const wait = engine.task('w');
    assert.equal(wait.status, 'IN_PROGRESS');
    assert.equal(wait.callbackAfterSeconds, 90);
    assert.deepEqual(decision.commands, [
      { type: 'ARM_TIMER', timer: { timerId: 't2', kind: 'WAIT', dueAt: T0 + 90_000, taskId: wait.taskId } },
    ]);
    engine.now = T0 + 90_000;
    const fired = engine.timer({ timerId: 't2', kind: 'WAIT', dueAt: T0 + 90_000, taskId: wait.taskId });
    assert.equal(fired.ignored, false);
    assert.equal(engine.task('w').status, 'COMPLETED');
    assert.equal(engine.task('w').endTime, T0 + 90_000);
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('a timer for a WAIT already completed from outside is ignored', () => {
    const engine = new Engine(
      workflow([node('WAIT', 'w', { inputParameters: { duration: '10s' } }), simple('x')]),
    );
    engine.start();
    const wait = engine.task('w');
    const completed = engine.complete(wait.taskId);
    assert.deepEqual(completed.commands.slice(0, 2), [
      { type: 'DEQUEUE', taskId: wait.taskId },
      { type: 'CANCEL_TIMERS', taskId: wait.taskId, kinds: ['WAIT'] },
    ]);
    const fired = engine.timer({ timerId: 't2', kind: 'WAIT', dueAt: T0 + 10_000, taskId: wait.taskId });
    assert.equal(fired.ignored, true);
  });

  void it('until arms a timer at that time (UTC, or with a zone)', () => {
    const engine = new Engine(
      workflow([node('WAIT', 'w', { inputParameters: { until: '2026-01-01 10:30 +01:00' } })]),
    );
    const decision = engine.start();
    assert.deepEqual(
      decision.commands.map((c) => c.type === 'ARM_TIMER' && c.timer.dueAt),
      [Date.UTC(2026, 0, 1, 9, 30)],
    );
  });

  void it('a time already past completes at once', () => {
    const engine = new Engine(workflow([node('WAIT', 'w', { inputParameters: { until: '2025-12-31' } })]));
    engine.start();
    assert.equal(engine.task('w').status, 'COMPLETED');
    assert.equal(engine.run.status, 'COMPLETED');
  });

  const failures: Array<{ title: string; params: Record<string, string>; reason: string }> = [
    {
      title: 'both duration and until',
      params: { duration: '1s', until: '2030-01-01' },
      reason: "Both 'duration' and 'until' specified. Please provide only one input",
    },
    {
      title: 'an until in no supported format',
      params: { until: '${workflow.input.when}' },
      reason: 'Invalid/Unsupported Wait Until format.  Provided: tomorrow',
    },
    {
      title: 'a duration that does not parse',
      params: { duration: '${workflow.input.when}' },
      reason: 'Not valid duration: tomorrow',
    },
  ];
  for (const c of failures) {
    void it(`fails (terminal) on ${c.title}`, () => {
      const engine = new Engine(workflow([node('WAIT', 'w', { inputParameters: c.params })]), {
        input: { when: 'tomorrow' },
      });
      engine.start();
      assert.equal(engine.task('w').status, 'FAILED_WITH_TERMINAL_ERROR');
      assert.equal(engine.task('w').reasonForIncompletion, c.reason);
      assert.equal(engine.run.status, 'FAILED');
    });
  }
});

void describe('HUMAN', () => {
  void it('waits IN_PROGRESS with instructions and assignee in its input, until completed from outside', () => {
    const engine = new Engine(
      workflow([
        node('HUMAN', 'review', {
          instructions: 'review-guide',
          inputParameters: { assignee: '${workflow.input.reviewer}', doc: 'd-1' },
        }),
        simple('after', { inputParameters: { verdict: '${review.output.verdict}' } }),
      ]),
      { input: { reviewer: 'ann' } },
    );
    const decision = engine.start();
    assert.deepEqual(decision.commands, []);
    const review = engine.task('review');
    assert.equal(review.status, 'IN_PROGRESS');
    assert.equal(review.taskType, 'HUMAN');
    assert.equal(review.queueName, undefined);
    assert.deepEqual(review.inputData, { assignee: 'ann', doc: 'd-1', instructions: 'review-guide' });
    engine.complete(review.taskId, { verdict: 'ok' });
    assert.deepEqual(engine.task('after').inputData, { verdict: 'ok' });
  });

  void it('FAILED from outside fails the run (no retries for HUMAN)', () => {
    const engine = new Engine(workflow([node('HUMAN', 'review')]));
    engine.start();
    engine.fail(engine.task('review').taskId, 'rejected');
    assert.equal(engine.all('review').length, 1);
    assert.equal(engine.run.status, 'FAILED');
    assert.equal(
      engine.run.reasonForIncompletion,
      "Task review failed with status: FAILED and reason: 'rejected'",
    );
  });
});
