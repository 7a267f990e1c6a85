import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MAX_SCRIPTS_PER_STEP, MAX_TASKS_PER_STEP } from '../../src/bounds/ranges.js';
import { Engine, workflow } from './helpers.js';
import { sandboxScripts } from './sandbox-scripts.js';

/**
 * One decision acts on at most MAX_TASKS_PER_STEP tasks: a loop over tasks that never wait
 * (which would otherwise hold one transaction, and one request, without end) stops there and
 * arms a CONTINUE timer due now; firing it moves the run on from where it stopped.
 */
const scripts = sandboxScripts();

void describe('step budget', () => {
  void it('stops a long synchronous loop at the budget and continues it on the CONTINUE timer', () => {
    // One task acted on per iteration (its NOOP): a list longer than the budget (no script).
    const times = MAX_TASKS_PER_STEP + 500;
    const loop = {
      name: 'loop',
      taskReferenceName: 'loop',
      type: 'DO_WHILE',
      inputParameters: { items: '${workflow.input.items}', keepLastN: 2 },
      loopOver: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }],
    };
    const items = Array.from({ length: times }, (_, i) => i);
    const engine = new Engine(workflow([loop]), { input: { items } });
    engine.scripts = scripts;
    engine.verifyInputs = false;
    const first = engine.start();
    assert.equal(engine.run.status, 'RUNNING');
    const armed = first.commands.filter((c) => c.type === 'ARM_TIMER' && c.timer.kind === 'CONTINUE');
    assert.equal(armed.length, 1, 'a CONTINUE timer is armed');
    const stoppedAt = engine.task('loop').iteration;
    assert.ok(stoppedAt < times, `stopped at iteration ${stoppedAt}`);

    let steps = 0;
    while (engine.run.status === 'RUNNING' && steps < 10) {
      steps++;
      engine.timer({ timerId: `continue-${steps}`, kind: 'CONTINUE', dueAt: engine.now, payload: {} });
    }
    assert.equal(engine.run.status, 'COMPLETED');
    assert.equal(engine.task('loop').iteration, times);
  });

  void it('stops a decision at MAX_SCRIPTS_PER_STEP scripts, so a loop of scripts stays linear', () => {
    const loop = {
      name: 'loop',
      taskReferenceName: 'loop',
      type: 'DO_WHILE',
      inputParameters: { items: '${workflow.input.items}' },
      loopOver: [
        {
          name: 'tick',
          taskReferenceName: 'tick',
          type: 'INLINE',
          inputParameters: { evaluatorType: 'javascript', expression: '1' },
        },
      ],
    };
    const items = Array.from({ length: 300 }, (_, i) => i);
    const engine = new Engine(workflow([loop]), { input: { items } });
    let calls = 0;
    engine.scripts = {
      ...scripts,
      javascript: (source, input) => {
        calls++;
        return scripts.javascript(source, input);
      },
    };
    engine.verifyInputs = false;
    const first = engine.start();
    assert.equal(engine.run.status, 'RUNNING');
    assert.ok(calls <= MAX_SCRIPTS_PER_STEP + 2, `${calls} scripts in the first decision`);
    assert.equal(
      first.commands.filter((c) => c.type === 'ARM_TIMER' && c.timer.kind === 'CONTINUE').length,
      1,
    );
    let steps = 0;
    while (engine.run.status === 'RUNNING' && steps < 100) {
      steps++;
      calls = 0;
      engine.timer({ timerId: `continue-${steps}`, kind: 'CONTINUE', dueAt: engine.now, payload: {} });
      assert.ok(calls <= MAX_SCRIPTS_PER_STEP + 2, `${calls} scripts in step ${steps}`);
    }
    assert.equal(engine.run.status, 'COMPLETED');
    assert.equal(engine.task('loop').iteration, items.length);
  });
});
