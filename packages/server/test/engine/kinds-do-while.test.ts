import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskRecord, WorkflowTask } from '@baton/protocol';
import { MAX_SCRIPTS_PER_STEP } from '../../src/bounds/ranges.js';
import { decide } from '../../src/engine/decide.js';
import type { EngineEvent } from '../../src/engine/types.js';
import { Engine, simple, workflow } from './helpers.js';
import { sandboxScripts } from './sandbox-scripts.js';

const testScripts = sandboxScripts();

export function loop(ref: string, loopOver: WorkflowTask[], extra: Partial<WorkflowTask> = {}): WorkflowTask {
  return {
    name: ref,
    taskReferenceName: ref,
    type: 'DO_WHILE',
    loopCondition: `if ($.${ref}['iteration'] < $.times) { true; } else { false; }`,
    inputParameters: { times: '${workflow.input.times}' },
    loopOver,
    ...extra,
  };
}

function engineFor(def: ReturnType<typeof workflow>, input: Record<string, unknown> = {}): Engine {
  const engine = new Engine(def, { input: input as never });
  engine.scripts = testScripts;
  return engine;
}

void describe('DO_WHILE', () => {
  void it('runs loopOver with refs ref__N until the condition fails; output per iteration', () => {
    const engine = engineFor(
      workflow([
        loop('loop', [simple('a', { inputParameters: { n: '${loop.output.iteration}' } })]),
        simple('after'),
      ]),
      {
        times: 3,
      },
    );
    const start = engine.start();
    assert.deepEqual(
      start.newTasks.map((t) => [t.referenceTaskName, t.status, t.iteration]),
      [
        ['loop', 'IN_PROGRESS', 1],
        ['a__1', 'SCHEDULED', 1],
      ],
    );
    assert.deepEqual(engine.task('a__1').inputData, { n: 1 });
    assert.equal(engine.task('a__1').taskType, 'a_type');
    assert.ok(start.commands.some((c) => c.type === 'ENQUEUE' && c.taskRef === 'a__1'));
    for (let n = 1; n <= 3; n++) {
      assert.equal(engine.task('loop').iteration, n);
      engine.complete(engine.task(`a__${n}`).taskId, { round: n });
    }
    const done = engine.task('loop');
    assert.equal(done.status, 'COMPLETED');
    assert.deepEqual(done.outputData, {
      '1': { a: { round: 1 } },
      '2': { a: { round: 2 } },
      '3': { a: { round: 3 } },
      iteration: 3,
    });
    assert.deepEqual(engine.task('a__3').inputData, { n: 3 });
    assert.equal(engine.task('after').status, 'SCHEDULED');
  });

  void it("the condition sees the inner tasks' latest outputs by their plain refs", () => {
    const engine = engineFor(
      workflow([loop('loop', [simple('a')], { loopCondition: '$.a.more === true', inputParameters: {} })]),
    );
    engine.start();
    engine.complete(engine.task('a__1').taskId, { more: true });
    engine.complete(engine.task('a__2').taskId, { more: false });
    assert.equal(engine.task('loop').status, 'COMPLETED');
    assert.equal(engine.all('a__3').length, 0);
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('expressions inside the loop see the latest iteration of a ref (without __N)', () => {
    const engine = engineFor(
      workflow([loop('loop', [simple('a'), simple('b', { inputParameters: { fromA: '${a.output.v}' } })])]),
      { times: 2 },
    );
    engine.start();
    engine.complete(engine.task('a__1').taskId, { v: 'one' });
    assert.deepEqual(engine.task('b__1').inputData, { fromA: 'one' });
    engine.complete(engine.task('b__1').taskId);
    engine.complete(engine.task('a__2').taskId, { v: 'two' });
    assert.deepEqual(engine.task('b__2').inputData, { fromA: 'two' });
  });

  void it('items: one iteration per item with loopIndex and loopItem; the condition is optional', () => {
    const engine = engineFor(
      workflow([
        {
          name: 'each',
          taskReferenceName: 'each',
          type: 'DO_WHILE',
          items: '${workflow.input.files}',
          loopOver: [
            simple('f', {
              inputParameters: { file: '${each.output.loopItem}', i: '${each.output.loopIndex}' },
            }),
          ],
        },
      ]),
      { files: ['x.png', 'y.png'] },
    );
    engine.start();
    assert.deepEqual(engine.task('f__1').inputData, { file: 'x.png', i: 0 });
    engine.complete(engine.task('f__1').taskId);
    assert.deepEqual(engine.task('f__2').inputData, { file: 'y.png', i: 1 });
    engine.complete(engine.task('f__2').taskId);
    const each = engine.task('each');
    assert.equal(each.status, 'COMPLETED');
    assert.equal(each.outputData.iteration, 2);
    assert.deepEqual(each.inputData.items, ['x.png', 'y.png']);
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('items with a condition stops early when the condition fails', () => {
    const engine = engineFor(
      workflow([
        loop('each', [simple('f')], {
          items: '${workflow.input.list}',
          loopCondition: '$.loopItem !== "stop"',
          inputParameters: {},
        }),
      ]),
      { list: ['a', 'stop', 'c'] },
    );
    engine.start();
    engine.complete(engine.task('f__1').taskId);
    engine.complete(engine.task('f__2').taskId);
    assert.equal(engine.task('each').status, 'COMPLETED');
    assert.equal(engine.all('f__3').length, 0);
  });

  void it('items may also come as input _items (Orkes)', () => {
    const engine = engineFor(
      workflow([
        loop('each', [simple('f', { inputParameters: { v: '${each.output.loopItem}' } })], {
          loopCondition: undefined,
          inputParameters: { _items: '${workflow.input.list}', other: 1 },
        }),
      ]),
      { list: [{ k: 1 }] },
    );
    engine.start();
    assert.deepEqual(engine.task('f__1').inputData, { v: { k: 1 } });
    assert.deepEqual(engine.task('each').inputData, { other: 1, items: [{ k: 1 }] });
    engine.complete(engine.task('f__1').taskId);
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('no items: completes at once with iteration 0', () => {
    const engine = engineFor(
      workflow([loop('each', [simple('f')], { items: '${workflow.input.list}', loopCondition: undefined })]),
      { list: [] },
    );
    engine.start();
    assert.equal(engine.task('each').status, 'COMPLETED');
    assert.deepEqual(engine.task('each').outputData, { iteration: 0 });
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('items that are not a list fail the loop', () => {
    const engine = engineFor(workflow([loop('each', [simple('f')], { items: '${workflow.input.list}' })]), {
      list: 'nope',
    });
    engine.start();
    assert.equal(engine.task('each').status, 'FAILED_WITH_TERMINAL_ERROR');
    assert.equal(
      engine.task('each').reasonForIncompletion,
      'items of DO_WHILE each must be a list, got "nope"',
    );
    assert.equal(engine.run.status, 'FAILED');
  });

  void it('keepLastN keeps only the last N iteration outputs', () => {
    const engine = engineFor(
      workflow([loop('loop', [simple('a')], { inputParameters: { times: 5, keepLastN: 2 } })]),
    );
    engine.start();
    for (let n = 1; n <= 5; n++) engine.complete(engine.task(`a__${n}`).taskId, { n });
    assert.deepEqual(Object.keys(engine.task('loop').outputData).sort(), ['4', '5', 'iteration']);
  });

  void it("a condition that throws fails the loop with Conductor's message, and the run", () => {
    const engine = engineFor(workflow([loop('loop', [simple('a')], { loopCondition: '$.nope.deeper > 1' })]));
    engine.start();
    engine.complete(engine.task('a__1').taskId);
    const failed = engine.task('loop');
    assert.equal(failed.status, 'FAILED_WITH_TERMINAL_ERROR');
    assert.match(
      failed.reasonForIncompletion ?? '',
      /^Unable to evaluate condition \$\.nope\.deeper > 1, exception TypeError: cannot read property 'deeper' of undefined$/,
    );
    assert.equal(engine.run.status, 'FAILED');
  });

  void it('a failing inner task fails the run; a retried one keeps the iteration going', () => {
    const engine = engineFor(workflow([loop('loop', [simple('a', { retryCount: 1 })])]), { times: 1 });
    engine.start();
    engine.fail(engine.task('a__1').taskId);
    const retry = engine.task('a__1');
    assert.equal(retry.retryCount, 1);
    assert.equal(retry.iteration, 1);
    engine.fail(retry.taskId, 'again');
    assert.equal(engine.run.status, 'FAILED');
    assert.deepEqual(engine.run.failedReferenceTaskNames, ['a__1']);
    assert.equal(engine.task('loop').status, 'CANCELED');
  });

  void it('a body of synchronous tasks loops within one decide', () => {
    const engine = engineFor(
      workflow([
        loop(
          'loop',
          [
            {
              name: 'set',
              taskReferenceName: 'set',
              type: 'SET_VARIABLE',
              inputParameters: { last: '${loop.output.iteration}' },
            },
          ],
          {
            inputParameters: { times: 50 },
          },
        ),
      ]),
    );
    engine.start();
    assert.equal(engine.run.status, 'COMPLETED');
    assert.equal(engine.task('loop').outputData.iteration, 50);
    assert.deepEqual(engine.run.variables, { last: 50 });
  });

  void it('results posted for the DO_WHILE task itself are ignored', () => {
    const engine = engineFor(workflow([loop('loop', [simple('a')])]), { times: 2 });
    engine.start();
    assert.equal(engine.complete(engine.task('loop').taskId).ignored, true);
  });
});

/** Counts the task records a decide reads from its context (indexed or iterated). */
function countingTasks(tasks: readonly TaskRecord[]): { tasks: readonly TaskRecord[]; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(tasks as TaskRecord[], {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { tasks: proxy, reads: () => reads };
}

void describe('DO_WHILE: 1,000 iterations', () => {
  void it('each decide reads the loaded tasks once (indexing) and touches only what changed', () => {
    const engine = engineFor(
      workflow([
        loop('loop', [simple('a'), simple('b', { inputParameters: { x: '${a.output.n}' } })], {
          inputParameters: { times: 1000 },
        }),
      ]),
    );
    engine.verifyInputs = false;
    engine.start();
    const beyondIndexing: number[] = [];
    const touched: number[] = [];
    const send = (event: EngineEvent) => {
      const counting = countingTasks(engine.tasks);
      const decision = decide(engine.plainContext(counting.tasks), event);
      beyondIndexing.push(counting.reads() - engine.tasks.length);
      touched.push(decision.newTasks.length + decision.updatedTasks.length);
      engine.apply(decision);
    };
    const result = (ref: string, n: number): EngineEvent => ({
      type: 'TASK_RESULT',
      result: {
        taskId: engine.task(ref).taskId,
        workflowInstanceId: 'wf-1',
        status: 'COMPLETED',
        outputData: { n },
      },
    });
    for (let n = 1; n <= 1000; n++) {
      send(result(`a__${n}`, n));
      send(result(`b__${n}`, n));
    }
    assert.equal(engine.task('loop').status, 'COMPLETED');
    assert.equal(engine.task('loop').iteration, 1000);
    assert.equal(engine.run.status, 'COMPLETED');
    assert.deepEqual(engine.task('b__1000').inputData, { x: 1000 });
    assert.equal(engine.tasks.length, 2001);
    // Beyond the one indexing pass, a decide reads no task of the run: the same at iteration 1
    // as at iteration 1,000.
    assert.deepEqual([...new Set(beyondIndexing)], [0]);
    // And it writes only the tasks it changed: the ended one, the next one, the loop task.
    assert.ok(Math.max(...touched) <= 3, `touched ${Math.max(...touched)}`);
    assert.deepEqual(touched.slice(0, 4), touched.slice(-4, -2).concat(touched.slice(-4, -2)));
  });

  void it('a loop of 1,000 synchronous iterations runs through, its conditions a bounded number per step', () => {
    const engine = engineFor(
      workflow([
        loop('loop', [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }], {
          inputParameters: { times: 1000 },
        }),
      ]),
    );
    engine.verifyInputs = false;
    engine.start();
    // Each condition is a script: a step runs MAX_SCRIPTS_PER_STEP of them, then continues on
    // the CONTINUE timer it armed.
    let steps = 0;
    while (engine.run.status === 'RUNNING' && steps < 1000 / MAX_SCRIPTS_PER_STEP + 2) {
      steps++;
      engine.timer({ timerId: `continue-${steps}`, kind: 'CONTINUE', dueAt: engine.now, payload: {} });
    }
    assert.ok(steps >= Math.floor(1000 / MAX_SCRIPTS_PER_STEP) - 1, `${steps} steps`);
    assert.equal(engine.run.status, 'COMPLETED');
    assert.equal(engine.task('loop').iteration, 1000);
    assert.equal(engine.task('n__1000').iteration, 1000);
  });
});
