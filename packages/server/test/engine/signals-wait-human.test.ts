import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { WorkflowTask } from '@baton/protocol';

import { Engine, simple, workflow } from './helpers.js';

const wait = (ref: string, inputParameters: Record<string, unknown> = {}): WorkflowTask => ({
  name: ref,
  taskReferenceName: ref,
  type: 'WAIT',
  inputParameters: inputParameters as never,
});
const human = (ref: string): WorkflowTask => ({ name: ref, taskReferenceName: ref, type: 'HUMAN' });

describe('signals to WAIT and HUMAN', () => {
  void it('an untimed WAIT takes the signal: its status, the payload as output, and the run moves on', () => {
    const engine = new Engine(
      workflow([wait('w'), simple('after', { inputParameters: { got: '${w.output.ok}' } })]),
    );
    engine.start();
    const decision = engine.send({ type: 'SIGNAL', status: 'COMPLETED', output: { ok: 7 } });
    assert.equal(decision.ignored, false);
    assert.equal(engine.task('w').status, 'COMPLETED');
    assert.deepEqual(engine.task('w').outputData, { ok: 7 });
    assert.deepEqual(engine.task('after').inputData, { got: 7 });
  });

  void it('a timed WAIT is passed by; the next blocked task takes the signal', () => {
    const engine = new Engine(
      workflow([
        {
          name: 'fork',
          taskReferenceName: 'fork',
          type: 'FORK_JOIN',
          forkTasks: [[wait('timed', { duration: '1 hours' })], [human('h')]],
        },
        { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['timed', 'h'] },
      ]),
    );
    engine.start();
    engine.send({ type: 'SIGNAL', status: 'COMPLETED', output: { by: 'ann' } });
    assert.equal(engine.task('timed').status, 'IN_PROGRESS');
    assert.equal(engine.task('h').status, 'COMPLETED');
    assert.deepEqual(engine.task('h').outputData, { by: 'ann' });
    assert.equal(
      engine.send({ type: 'SIGNAL', status: 'COMPLETED', output: {} }).ignored,
      true,
      'nothing blocked is left',
    );
  });

  void it('a failing signal fails the HUMAN task and the run, naming the signal', () => {
    const engine = new Engine(workflow([human('h'), simple('after')]));
    engine.start();
    engine.send({ type: 'SIGNAL', status: 'FAILED', output: { no: true } });
    assert.equal(engine.task('h').status, 'FAILED');
    assert.equal(engine.task('h').reasonForIncompletion, 'Signaled FAILED');
    assert.equal(engine.run.status, 'FAILED');
  });

  void it('a paused run records the signal and schedules nothing until resumed', () => {
    const engine = new Engine(workflow([wait('w'), simple('after')]));
    engine.start();
    engine.send({ type: 'PAUSE' });
    engine.send({ type: 'SIGNAL', status: 'COMPLETED', output: {} });
    assert.equal(engine.task('w').status, 'COMPLETED');
    assert.equal(engine.tasks.length, 1);
    engine.send({ type: 'RESUME' });
    assert.equal(engine.task('after').status, 'SCHEDULED');
  });
});
