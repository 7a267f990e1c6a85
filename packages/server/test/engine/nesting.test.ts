import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowTask } from '@baton/protocol';
import { Engine, fork, join, simple, workflow } from './helpers.js';
import { sandboxScripts } from './sandbox-scripts.js';

const testScripts = sandboxScripts();

function loop(ref: string, times: number, loopOver: WorkflowTask[]): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'DO_WHILE',
    loopCondition: `$.${ref}['iteration'] < ${times}`,
    loopOver,
  };
}
function switchOn(ref: string, param: string, cases: Record<string, WorkflowTask[]>): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'SWITCH',
    evaluatorType: 'value-param',
    expression: 'v',
    inputParameters: { v: `\${workflow.input.${param}}` },
    decisionCases: cases,
  };
}

function engineFor(tasks: WorkflowTask[], input: Record<string, unknown> = {}): Engine {
  const engine = new Engine(workflow(tasks), { input: input as never });
  engine.scripts = testScripts;
  return engine;
}

/** Completes every open worker task, in seq order, until none is left or `max` rounds. */
function drain(engine: Engine, max = 100): string[] {
  const done: string[] = [];
  for (let i = 0; i < max; i++) {
    const next = engine.open().find((t) => t.queueName !== undefined);
    if (!next) break;
    engine.complete(next.taskId, { ref: next.referenceTaskName });
    done.push(next.referenceTaskName);
  }
  return done;
}

void describe('nesting', () => {
  void it('a switch choosing a fork', () => {
    const engine = engineFor(
      [
        switchOn('sw', 'mode', {
          par: [fork('f', [[simple('a')], [simple('b')]]), join('j', ['a', 'b'])],
          seq: [simple('s')],
        }),
        simple('after'),
      ],
      { mode: 'par' },
    );
    engine.start();
    assert.deepEqual(
      engine.tasks.map((t) => t.referenceTaskName),
      ['sw', 'f', 'a', 'b', 'j'],
    );
    assert.deepEqual(drain(engine), ['a', 'b', 'after']);
    assert.equal(engine.task('j').status, 'COMPLETED');
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('a fork inside a loop: every iteration has its own branches and JOIN (joinOn with __N)', () => {
    const engine = engineFor([
      loop('l', 2, [fork('f', [[simple('a')], [simple('b')]]), join('j', ['a', 'b'])]),
      simple('after'),
    ]);
    engine.start();
    assert.deepEqual(
      engine.tasks.map((t) => t.referenceTaskName),
      ['l', 'f__1', 'a__1', 'b__1', 'j__1'],
    );
    assert.deepEqual(engine.task('j__1').inputData.joinOn, ['a__1', 'b__1']);
    assert.deepEqual(drain(engine), ['a__1', 'b__1', 'a__2', 'b__2', 'after']);
    assert.deepEqual(engine.task('j__2').outputData, { a__2: { ref: 'a__2' }, b__2: { ref: 'b__2' } });
    assert.deepEqual(engine.task('l').outputData['2'], {
      f: {},
      a: { ref: 'a__2' },
      b: { ref: 'b__2' },
      j: { a__2: { ref: 'a__2' }, b__2: { ref: 'b__2' } },
    });
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('a loop inside a fork branch: the JOIN waits for the loop', () => {
    const engine = engineFor([
      fork('f', [[loop('l', 3, [simple('a')])], [simple('b')]]),
      join('j', ['l', 'b']),
    ]);
    engine.start();
    assert.deepEqual(drain(engine), ['a__1', 'b', 'a__2', 'a__3']);
    assert.equal(engine.task('j').status, 'COMPLETED');
    assert.equal((engine.task('j').outputData.l as { iteration: number }).iteration, 3);
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('a JOIN on a switch waits for the branch the switch started', () => {
    const engine = engineFor(
      [
        fork('f', [[switchOn('sw', 'k', { x: [simple('x1'), simple('x2')] })], [simple('b')]]),
        join('j', ['sw', 'b']),
      ],
      { k: 'x' },
    );
    engine.start();
    engine.complete(engine.task('b').taskId);
    engine.complete(engine.task('x1').taskId);
    assert.equal(engine.task('j').status, 'IN_PROGRESS');
    engine.complete(engine.task('x2').taskId);
    assert.equal(engine.task('j').status, 'COMPLETED');
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('a switch inside a loop takes a branch per iteration', () => {
    const body: WorkflowTask = {
      name: 'sw',
      taskReferenceName: 'sw',
      type: 'SWITCH',
      evaluatorType: 'javascript',
      expression: '$.i % 2 === 0 ? "even" : "odd"',
      inputParameters: { i: '${l.output.iteration}' },
      decisionCases: { even: [simple('e')], odd: [simple('o')] },
    };
    const engine = engineFor([loop('l', 3, [body, simple('tail')])]);
    engine.start();
    assert.deepEqual(drain(engine), ['o__1', 'tail__1', 'e__2', 'tail__2', 'o__3', 'tail__3']);
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('nested loops: refs carry both iterations (ref__outer__inner)', () => {
    const engine = engineFor([loop('outer', 2, [loop('inner', 2, [simple('a')])])]);
    engine.start();
    assert.deepEqual(drain(engine), ['a__1__1', 'a__1__2', 'a__2__1', 'a__2__2']);
    assert.equal(engine.task('inner__2').iteration, 2);
    assert.equal(engine.task('a__2__1').iteration, 1);
    assert.equal(engine.task('outer').status, 'COMPLETED');
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('a dynamic fork inside a loop suffixes the forked refs', () => {
    const dyn: WorkflowTask = {
      name: 'dyn',
      taskReferenceName: 'dyn',
      type: 'FORK_JOIN_DYNAMIC',
      inputParameters: { forkTaskName: 'w', forkTaskInputs: [1, 2] },
    };
    const engine = engineFor([loop('l', 2, [dyn, join('j', [])])]);
    engine.start();
    assert.deepEqual(engine.task('j__1').inputData.joinOn, ['_w_0__1', '_w_1__1']);
    assert.deepEqual(drain(engine), ['_w_0__1', '_w_1__1', '_w_0__2', '_w_1__2']);
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('re-deciding a finished step schedules nothing twice (idempotent)', () => {
    const engine = engineFor([
      loop('l', 2, [fork('f', [[simple('a')], [simple('b')]]), join('j', ['a', 'b'])]),
    ]);
    engine.start();
    const again = engine.send({ type: 'DECIDE' });
    assert.deepEqual(again.newTasks, []);
    assert.deepEqual(again.updatedTasks, []);
  });

  void it('a run re-walked from copies of its completed tasks schedules only what is missing', () => {
    const engine = engineFor(
      [
        switchOn('sw', 'k', { x: [fork('f', [[simple('a')], [simple('b')]]), join('j', ['a', 'b'])] }),
        simple('after'),
      ],
      {
        k: 'x',
      },
    );
    engine.start();
    engine.complete(engine.task('a').taskId, { v: 1 });
    // Copy the ended tasks, as retry does, un-acted-on; the open ones are left out.
    const copy = engineFor([], {});
    copy.run = { ...engine.run, workflowId: 'wf-2' };
    copy.tasks = engine.tasks
      .filter((t) => t.status === 'COMPLETED')
      .map((t) => ({ ...t, executed: false, workflowInstanceId: 'wf-2' }));
    const decision = copy.send({ type: 'DECIDE' });
    assert.deepEqual(
      decision.newTasks.map((t) => t.referenceTaskName),
      ['b', 'j'],
    );
  });

  void it('a re-walked SET_VARIABLE applies its variables again', () => {
    const engine = engineFor([
      { name: 'set', taskReferenceName: 'set', type: 'SET_VARIABLE', inputParameters: { v: 1 } },
      simple('after'),
    ]);
    engine.start();
    const copy = engineFor([]);
    copy.run = { ...engine.run, workflowId: 'wf-2', variables: {} };
    copy.tasks = [{ ...engine.task('set'), executed: false, workflowInstanceId: 'wf-2' }];
    const decision = copy.send({ type: 'DECIDE' });
    assert.deepEqual(copy.run.variables, { v: 1 });
    assert.deepEqual(
      decision.newTasks.map((t) => t.referenceTaskName),
      ['after'],
    );
  });

  void it('a SKIPPED container is passed over whole', () => {
    const engine = engineFor([switchOn('sw', 'k', { x: [simple('x1')] }), simple('after')], { k: 'x' });
    engine.start();
    // The switch as a skip operation records it (nothing chosen), not yet acted on.
    engine.tasks = [{ ...engine.task('sw'), status: 'SKIPPED', executed: false, outputData: {} }];
    const decision = engine.send({ type: 'DECIDE' });
    assert.deepEqual(
      decision.newTasks.map((t) => t.referenceTaskName),
      ['after'],
    );
  });
});
