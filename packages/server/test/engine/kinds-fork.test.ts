import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowTask } from '@baton/protocol';
import { Engine, fork, join, simple, workflow } from './helpers.js';

function refs(engine: Engine): string[] {
  return engine.tasks.map((t) => t.referenceTaskName);
}

void describe('FORK_JOIN and JOIN', () => {
  const def = () =>
    workflow([
      fork('fork', [[simple('a1'), simple('a2')], [simple('b1')]]),
      join('join', ['a2', 'b1']),
      simple('after', { inputParameters: { joined: '${join.output}' } }),
    ]);

  void it('makes a FORK task (COMPLETED), the head of every branch, then the JOIN (IN_PROGRESS)', () => {
    const engine = new Engine(def());
    const decision = engine.start();
    assert.deepEqual(
      decision.newTasks.map((t) => [t.referenceTaskName, t.taskType, t.status]),
      [
        ['fork', 'FORK', 'COMPLETED'],
        ['a1', 'a1_type', 'SCHEDULED'],
        ['b1', 'b1_type', 'SCHEDULED'],
        ['join', 'JOIN', 'IN_PROGRESS'],
      ],
    );
    assert.deepEqual(engine.task('join').inputData, { joinOn: ['a2', 'b1'] });
    assert.deepEqual(
      decision.commands.map((c) => c.type),
      ['ENQUEUE', 'ENQUEUE'],
    );
  });

  void it('the JOIN waits for every joinOn task, then completes with their outputs and the run goes on', () => {
    const engine = new Engine(def());
    engine.start();
    engine.complete(engine.task('b1').taskId, { b: 1 });
    assert.equal(engine.task('join').status, 'IN_PROGRESS');
    engine.complete(engine.task('a1').taskId, { a: 1 });
    assert.equal(engine.task('join').status, 'IN_PROGRESS');
    const last = engine.complete(engine.task('a2').taskId, { a: 2 });
    const joined = engine.task('join');
    assert.equal(joined.status, 'COMPLETED');
    assert.deepEqual(joined.outputData, { a2: { a: 2 }, b1: { b: 1 } });
    assert.deepEqual(
      last.newTasks.map((t) => t.referenceTaskName),
      ['after'],
    );
    assert.deepEqual(engine.task('after').inputData, { joined: { a2: { a: 2 }, b1: { b: 1 } } });
  });

  void it('a failing branch task fails the run and cancels the JOIN and the other branches', () => {
    const engine = new Engine(def());
    engine.start();
    engine.tasks.forEach(() => undefined);
    const decision = engine.result(engine.task('b1').taskId, 'FAILED_WITH_TERMINAL_ERROR', {
      reasonForIncompletion: 'no',
    });
    assert.equal(engine.run.status, 'FAILED');
    assert.equal(engine.task('join').status, 'CANCELED');
    assert.equal(engine.task('a1').status, 'CANCELED');
    assert.ok(decision.commands.some((c) => c.type === 'DEQUEUE' && c.taskId === engine.task('a1').taskId));
  });

  void it('an optional branch task that fails gives COMPLETED_WITH_ERRORS on the JOIN, and the run completes', () => {
    const engine = new Engine(
      workflow([
        fork('fork', [[simple('a1', { optional: true, retryCount: 0 })], [simple('b1')]]),
        join('join', ['a1', 'b1']),
      ]),
    );
    engine.start();
    engine.complete(engine.task('b1').taskId, { b: 1 });
    engine.fail(engine.task('a1').taskId, 'flaky');
    assert.equal(engine.task('a1').status, 'COMPLETED_WITH_ERRORS');
    const joined = engine.task('join');
    assert.equal(joined.status, 'COMPLETED_WITH_ERRORS');
    assert.equal(joined.reasonForIncompletion, 'a1 completed with errors');
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('a retried branch task keeps the JOIN waiting for the new attempt', () => {
    const engine = new Engine(
      workflow([
        fork('fork', [[simple('a1', { retryCount: 1 })], [simple('b1')]]),
        join('join', ['a1', 'b1']),
      ]),
    );
    engine.start();
    engine.complete(engine.task('b1').taskId);
    engine.fail(engine.task('a1').taskId);
    assert.equal(engine.all('a1').length, 2);
    assert.equal(engine.task('join').status, 'IN_PROGRESS');
    engine.complete(engine.task('a1').taskId, { ok: true });
    assert.equal(engine.task('join').status, 'COMPLETED');
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('a JOIN on a mid-branch task completes without waiting for the rest of that branch', () => {
    const engine = new Engine(
      workflow([fork('fork', [[simple('a1'), simple('a2')], [simple('b1')]]), join('join', ['a1', 'b1'])]),
    );
    engine.start();
    engine.complete(engine.task('a1').taskId);
    engine.complete(engine.task('b1').taskId);
    assert.equal(engine.task('join').status, 'COMPLETED');
    // The run still waits for a2 before it completes.
    assert.equal(engine.run.status, 'RUNNING');
    engine.complete(engine.task('a2').taskId);
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('branches of synchronous tasks complete the fork in one decide', () => {
    const noop = (ref: string): WorkflowTask => ({ name: ref, taskReferenceName: ref, type: 'NOOP' });
    const engine = new Engine(
      workflow([fork('fork', [[noop('n1')], [noop('n2')]]), join('join', ['n1', 'n2'])]),
    );
    engine.start();
    assert.deepEqual(refs(engine), ['fork', 'n1', 'n2', 'join']);
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it("a fork not followed by a JOIN fails the run with Conductor's message", () => {
    const engine = new Engine(workflow([fork('fork', [[simple('a1')]]), simple('x')]));
    engine.start();
    assert.equal(engine.run.status, 'FAILED');
    assert.equal(
      engine.run.reasonForIncompletion,
      'Fork task definition is not followed by a join task.  Check the blueprint',
    );
  });

  void it('results posted for a JOIN are ignored (only the interpreter ends it)', () => {
    const engine = new Engine(def());
    engine.start();
    const decision = engine.complete(engine.task('join').taskId);
    assert.equal(decision.ignored, true);
    assert.equal(engine.task('join').status, 'IN_PROGRESS');
  });

  void it('a fork of 1,000 branches joins once all are done, each result touching only its branch and the JOIN', () => {
    const branches = Array.from({ length: 1000 }, (_, i) => [simple(`b${i}`, { name: 'work' })]);
    const engine = new Engine(
      workflow([
        fork('fork', branches),
        join(
          'join',
          branches.map((b) => b[0]!.taskReferenceName),
        ),
      ]),
    );
    engine.verifyInputs = false;
    const start = engine.start();
    assert.equal(start.newTasks.length, 1002);
    for (let i = 0; i < 1000; i++) {
      const decision = engine.complete(engine.task(`b${i}`).taskId, { i });
      const touched = decision.newTasks.length + decision.updatedTasks.length;
      assert.ok(touched <= 3, `result ${i} touched ${touched} tasks`);
    }
    const joined = engine.task('join');
    assert.equal(joined.status, 'COMPLETED');
    assert.equal(Object.keys(joined.outputData).length, 1000);
    assert.deepEqual(joined.outputData.b999, { i: 999 });
    assert.equal(engine.run.status, 'COMPLETED');
  });
});

void describe('FORK_JOIN_DYNAMIC', () => {
  function dynamicFork(extra: Partial<WorkflowTask>): WorkflowTask {
    return { name: 'dyn', taskReferenceName: 'dyn', type: 'FORK_JOIN_DYNAMIC', ...extra };
  }

  void it('(a) dynamicForkTasksParam + dynamicForkTasksInputParamName: one task per entry, each with its input', () => {
    const engine = new Engine(
      workflow([
        dynamicFork({
          dynamicForkTasksParam: 'tasks',
          dynamicForkTasksInputParamName: 'inputs',
          inputParameters: { tasks: '${workflow.input.tasks}', inputs: '${workflow.input.inputs}' },
        }),
        join('join', []),
      ]),
      {
        input: {
          tasks: [
            { name: 'resize', taskReferenceName: 'r1', type: 'SIMPLE' },
            { name: 'resize', taskReferenceName: 'r2' },
          ],
          inputs: { r1: { w: 100 }, r2: { w: 200 } },
        },
      },
    );
    const decision = engine.start();
    assert.deepEqual(
      decision.newTasks.map((t) => [t.referenceTaskName, t.taskType, t.status]),
      [
        ['dyn', 'FORK', 'COMPLETED'],
        ['r1', 'resize', 'SCHEDULED'],
        ['r2', 'resize', 'SCHEDULED'],
        ['join', 'JOIN', 'IN_PROGRESS'],
      ],
    );
    assert.deepEqual(engine.task('dyn').inputData.forkedTasks, ['r1', 'r2']);
    assert.deepEqual(engine.task('r2').inputData, { w: 200 });
    assert.deepEqual(engine.task('join').inputData.joinOn, ['r1', 'r2']);
    engine.complete(engine.task('r1').taskId, { out: 1 });
    engine.complete(engine.task('r2').taskId, { out: 2 });
    assert.deepEqual(engine.task('join').outputData, { r1: { out: 1 }, r2: { out: 2 } });
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('(b) legacy dynamicForkJoinTasksParam', () => {
    const engine = new Engine(
      workflow([
        dynamicFork({
          dynamicForkJoinTasksParam: 'dynamicTasks',
          inputParameters: { dynamicTasks: '${workflow.input.list}' },
        }),
        join('join', []),
      ]),
      {
        input: {
          list: { dynamicTasks: [{ taskName: 'mail', referenceName: 'm1', input: { to: 'a' } }] },
        },
      },
    );
    engine.start();
    assert.equal(engine.task('m1').taskType, 'mail');
    assert.deepEqual(engine.task('m1').inputData, { to: 'a' });
  });

  void it('(c) forkTaskName + forkTaskInputs: refs _<name>_<i>, inputs with __index', () => {
    const engine = new Engine(
      workflow([
        dynamicFork({ inputParameters: { forkTaskName: 'thumb', forkTaskInputs: [{ f: 'x' }, 'plain'] } }),
        join('join', []),
      ]),
    );
    engine.start();
    assert.deepEqual(engine.task('_thumb_0').inputData, { f: 'x', __index: 0 });
    assert.deepEqual(engine.task('_thumb_1').inputData, { input: 'plain', __index: 1 });
    assert.deepEqual(engine.task('join').inputData.joinOn, ['_thumb_0', '_thumb_1']);
  });

  void it('no tasks: the JOIN completes at once', () => {
    const engine = new Engine(
      workflow([
        dynamicFork({ inputParameters: { forkTaskName: 't', forkTaskInputs: [] } }),
        join('join', []),
      ]),
    );
    engine.start();
    assert.equal(engine.run.status, 'COMPLETED');
  });

  const failures: Array<{
    title: string;
    node: Partial<WorkflowTask>;
    input: Record<string, unknown>;
    reason: string | RegExp;
  }> = [
    {
      title: 'inputs that are not a map',
      node: {
        dynamicForkTasksParam: 'tasks',
        dynamicForkTasksInputParamName: 'inputs',
        inputParameters: { tasks: [{ name: 'x', taskReferenceName: 'x1' }], inputs: ['no'] },
      },
      input: {},
      reason: 'Input to the dynamically forked tasks is not a map -> expecting a map of K,V  but found [no]',
    },
    {
      title: 'a task without a ref',
      node: {
        dynamicForkTasksParam: 'tasks',
        dynamicForkTasksInputParamName: 'inputs',
        inputParameters: { tasks: [{ name: 'x' }], inputs: {} },
      },
      input: {},
      reason: /^A dynamically forked task has no taskReferenceName/,
    },
    {
      title: 'a container kind',
      node: {
        dynamicForkTasksParam: 'tasks',
        dynamicForkTasksInputParamName: 'inputs',
        inputParameters: { tasks: [{ name: 'x', taskReferenceName: 'x1', type: 'DO_WHILE' }], inputs: {} },
      },
      input: {},
      reason: /Dynamically forked task x1 is of type DO_WHILE/,
    },
  ];
  for (const c of failures) {
    void it(`fails the run on ${c.title}`, () => {
      const engine = new Engine(workflow([dynamicFork(c.node), join('join', [])]), {
        input: c.input as never,
      });
      engine.start();
      assert.equal(engine.run.status, 'FAILED');
      if (typeof c.reason === 'string') assert.equal(engine.run.reasonForIncompletion, c.reason);
      else assert.match(engine.run.reasonForIncompletion ?? '', c.reason);
    });
  }

  void it('a fork of exactly maxForkBranches branches runs; one wider fails the run, making no task', () => {
    const forkOf = (width: number, engine?: Engine) => {
      const e =
        engine ??
        new Engine(
          workflow([
            dynamicFork({
              inputParameters: {
                forkTaskName: 't',
                forkTaskInputs: Array.from({ length: width }, (_, i) => i),
              },
            }),
            join('join', []),
          ]),
        );
      e.maxForkBranches = 3;
      e.start();
      return e;
    };
    const atLimit = forkOf(3);
    assert.equal(atLimit.run.status, 'RUNNING');
    assert.deepEqual(refs(atLimit), ['dyn', '_t_0', '_t_1', '_t_2', 'join']);

    const wider = forkOf(4);
    assert.equal(wider.run.status, 'FAILED');
    assert.equal(
      wider.run.reasonForIncompletion,
      'The dynamic fork dyn would make 4 branches, more than the 3 this server allows (BATON_MAX_FORK_BRANCHES): split the work, for example into sub-workflows of at most 3 branches each',
    );
    assert.ok(!refs(wider).some((ref) => ref.startsWith('_t_')), 'no branch was made');

    // The legacy list and the task list forms are bounded the same way.
    const legacy = new Engine(
      workflow([
        dynamicFork({
          dynamicForkJoinTasksParam: 'dt',
          inputParameters: {
            dt: {
              dynamicTasks: Array.from({ length: 4 }, (_, i) => ({ taskName: 'x', referenceName: `x${i}` })),
            },
          },
        }),
        join('join', []),
      ]),
    );
    assert.match(forkOf(0, legacy).run.reasonForIncompletion ?? '', /would make 4 branches, more than the 3/);
  });

  void it("not followed by a JOIN: Conductor's message", () => {
    const engine = new Engine(
      workflow([dynamicFork({ inputParameters: { forkTaskName: 't', forkTaskInputs: [1] } })]),
    );
    engine.start();
    assert.equal(
      engine.run.reasonForIncompletion,
      'Dynamic join definition is not followed by a join task.  Check the workflow definition.',
    );
  });
});

void describe('EXCLUSIVE_JOIN', () => {
  const def = (defaults?: string[]) =>
    workflow([
      {
        name: 'sw',
        taskReferenceName: 'sw',
        type: 'SWITCH',
        evaluatorType: 'value-param',
        expression: 'k',
        inputParameters: { k: '${workflow.input.k}' },
        decisionCases: { a: [simple('a1')], b: [simple('b1')] },
        defaultCase: [simple('d1')],
      },
      {
        name: 'xj',
        taskReferenceName: 'xj',
        type: 'EXCLUSIVE_JOIN',
        joinOn: ['a1', 'b1'],
        ...(defaults && { defaultExclusiveJoinTask: defaults }),
      },
    ]);

  void it('completes with the output of the branch that ran', () => {
    const engine = new Engine(def(), { input: { k: 'b' } });
    engine.start();
    engine.complete(engine.task('b1').taskId, { from: 'b' });
    const xj = engine.task('xj');
    assert.equal(xj.status, 'COMPLETED');
    assert.deepEqual(xj.outputData, { from: 'b' });
    assert.deepEqual(xj.inputData, { joinOn: ['a1', 'b1'], defaultExclusiveJoinTask: [] });
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('falls back to defaultExclusiveJoinTask when no joinOn task ran', () => {
    const engine = new Engine(def(['d1']), { input: { k: 'other' } });
    engine.start();
    engine.complete(engine.task('d1').taskId, { from: 'default' });
    assert.deepEqual(engine.task('xj').outputData, { from: 'default' });
  });

  void it('waits while none of its tasks ran (and nothing else can end it)', () => {
    const engine = new Engine(def(), { input: { k: 'other' } });
    engine.start();
    engine.complete(engine.task('d1').taskId);
    assert.equal(engine.task('xj').status, 'IN_PROGRESS');
    assert.equal(engine.run.status, 'RUNNING');
  });
});
