import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskResult } from '@baton/protocol';
import type { Decision } from '../../src/engine/types.js';
import { Engine, T0, fork, join, simple, workflow } from './helpers.js';

/** A fork of three branches (two steps in the first), its join, and a step after. */
const def = () =>
  workflow([
    fork('fork', [[simple('a1'), simple('a2')], [simple('b1')], [simple('c1')]]),
    join('join', ['a2', 'b1', 'c1']),
    simple('after'),
  ]);

function started(): Engine {
  // b1's type is not retried: its failure fails the run.
  const engine = new Engine(def(), {}, [{ name: 'b1_type', retryCount: 0, responseTimeoutSeconds: 60 }]);
  engine.start();
  engine.now = T0 + 1000;
  return engine;
}

function results(engine: Engine, ...results: Array<[string, TaskResult['status'], string?]>): Decision {
  return engine.send({
    type: 'TASK_RESULTS',
    results: results.map(([ref, status, reason]) => ({
      result: {
        taskId: engine.task(ref).taskId,
        workflowInstanceId: engine.run.workflowId,
        status,
        ...(status === 'COMPLETED' && { outputData: { from: ref } }),
        ...(reason !== undefined && { reasonForIncompletion: reason }),
      },
    })),
  });
}

void describe('decide: several results of one run as one decision (TASK_RESULTS)', () => {
  void it('leaves the run as the same results one after the other would, in one decision', () => {
    const together = started();
    const decision = results(together, ['a1', 'COMPLETED'], ['b1', 'COMPLETED'], ['c1', 'COMPLETED']);
    const apart = started();
    for (const ref of ['a1', 'b1', 'c1']) apart.complete(apart.task(ref).taskId, { from: ref });
    assert.deepEqual(together.tasks, apart.tasks);
    assert.deepEqual(together.run, apart.run);
    assert.equal(decision.ignored, false);
    assert.equal(decision.ignoredResults, undefined);
    // All three ended, and the first branch moved on to its second step, in the one decision.
    assert.deepEqual(
      decision.updatedTasks.map((t) => [t.referenceTaskName, t.status]),
      [
        ['a1', 'COMPLETED'],
        ['b1', 'COMPLETED'],
        ['c1', 'COMPLETED'],
      ],
    );
    assert.deepEqual(
      decision.newTasks.map((t) => [t.referenceTaskName, t.status]),
      [['a2', 'SCHEDULED']],
    );
  });

  void it('moves the run on after each result: the join ends and the next step starts in the same decision', () => {
    const together = started();
    together.complete(together.task('a1').taskId, { from: 'a1' });
    const decision = results(together, ['a2', 'COMPLETED'], ['b1', 'COMPLETED'], ['c1', 'COMPLETED']);
    assert.equal(together.task('join').status, 'COMPLETED');
    assert.deepEqual(
      decision.newTasks.map((t) => [t.referenceTaskName, t.status]),
      [['after', 'SCHEDULED']],
    );
    const apart = started();
    for (const ref of ['a1', 'a2', 'b1', 'c1']) apart.complete(apart.task(ref).taskId, { from: ref });
    assert.deepEqual(together.tasks, apart.tasks);
  });

  void it('ignores a result for a task that has ended, and applies the others', () => {
    const engine = started();
    engine.complete(engine.task('b1').taskId, { from: 'b1' });
    const decision = results(engine, ['b1', 'COMPLETED'], ['c1', 'COMPLETED']);
    assert.equal(decision.ignored, false);
    assert.deepEqual(decision.ignoredResults, [engine.task('b1').taskId]);
    assert.equal(engine.task('c1').status, 'COMPLETED');
    const none = results(engine, ['b1', 'COMPLETED'], ['c1', 'COMPLETED']);
    assert.equal(none.ignored, true, 'every result ignored: the decision is');
  });

  void it('a result that fails the run leaves the later ones ignored, as each in turn would', () => {
    const together = started();
    const decision = results(together, ['b1', 'FAILED', 'boom'], ['c1', 'COMPLETED']);
    assert.equal(together.run.status, 'FAILED');
    assert.deepEqual(decision.ignoredResults, [together.task('c1').taskId]);
    const apart = started();
    apart.fail(apart.task('b1').taskId, 'boom');
    const late = apart.complete(apart.task('c1').taskId, { from: 'c1' });
    assert.equal(late.ignored, true);
    assert.deepEqual(together.tasks, apart.tasks);
    assert.deepEqual(together.run, apart.run);
  });
});
