import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { faultReason } from '../../src/engine/index.js';
import { Engine, fork, join, simple, workflow } from './helpers.js';

/**
 * FAULT (engine/faults.ts): what a run comes to when a decision on it threw. It fails with the
 * reason, its open tasks canceled and its timers with them, without resolving anything.
 */
void describe('a faulted run', () => {
  void it('fails with the reason, cancels every open task and its timers, and names the tasks that failed', () => {
    const engine = new Engine(
      workflow([fork('fork', [[simple('a')], [simple('b')]]), join('join', ['a', 'b'])], {
        outputParameters: { out: '${a.output.x}' },
      }),
    );
    engine.start();
    engine.fail(engine.task('a').taskId);
    const reason = faultReason(new RangeError('Maximum call stack size exceeded'), { type: 'DECIDE' });
    const decision = engine.send({ type: 'FAULT', reason });
    assert.equal(engine.run.status, 'FAILED');
    assert.equal(
      engine.run.reasonForIncompletion,
      'A decision on this run failed (DECIDE): RangeError: Maximum call stack size exceeded. The run was failed so that it does not wait for good; retry it once the cause is fixed',
    );
    assert.equal(engine.run.endTime, engine.now);
    assert.deepEqual(engine.run.output, {}, 'no output resolved');
    assert.equal(engine.task('b').status, 'CANCELED');
    assert.equal(engine.task('join').status, 'CANCELED');
    assert.ok(decision.commands.some((c) => c.type === 'CANCEL_TIMERS' && c.taskId === undefined));
    assert.ok(decision.commands.some((c) => c.type === 'DEQUEUE' && c.taskId === engine.task('b').taskId));
    assert.deepEqual(engine.run.failedReferenceTaskNames, ['a']);
  });

  void it('changes nothing on a run that has ended', () => {
    const engine = new Engine(workflow([simple('a')]));
    engine.start();
    engine.complete(engine.task('a').taskId);
    assert.equal(engine.run.status, 'COMPLETED');
    const decision = engine.send({ type: 'FAULT', reason: 'late' });
    assert.equal(decision.ignored, true);
    assert.equal(engine.run.status, 'COMPLETED');
  });
});
