import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { Command } from '../../src/engine/index.js';
import { Engine, simple, workflow } from './helpers.js';

/**
 * The `START_RUN` timer (engine/timer-events.ts): a run start the executor's loop guard put off
 * (decisions/linked-runs.ts) is asked for again when the timer fires, while its task still waits
 * for it, and never for a task that has moved on.
 */
void describe('START_RUN timer', () => {
  const def = () =>
    workflow([
      { name: 'child', taskReferenceName: 'child', type: 'SUB_WORKFLOW', subWorkflowParam: { name: 'leaf' } },
      simple('after'),
    ]);

  /** A run whose SUB_WORKFLOW asked for its child, and the START_CHILD it asked with. */
  function started(): { engine: Engine; command: Extract<Command, { type: 'START_CHILD' }> } {
    const engine = new Engine(def());
    const decision = engine.start();
    const command = decision.commands.find((c) => c.type === 'START_CHILD');
    assert.ok(command?.type === 'START_CHILD');
    return { engine, command };
  }

  const fire = (engine: Engine, command: Command, taskId = engine.task('child').taskId) =>
    engine.timer({
      timerId: 'put-off',
      kind: 'START_RUN',
      dueAt: engine.now,
      taskId,
      payload: { command: command as never },
    });

  void it('asks for the same start again while the task waits for its child', () => {
    const { engine, command } = started();
    const decision = fire(engine, command);
    assert.equal(decision.ignored, false);
    assert.deepEqual(
      decision.commands.filter((c) => c.type === 'START_CHILD'),
      [command],
    );
    assert.equal(engine.task('child').status, 'IN_PROGRESS');
  });

  void it('asks for it in a paused run too: the task was under way before the pause', () => {
    const { engine, command } = started();
    engine.send({ type: 'PAUSE' });
    assert.equal(engine.run.status, 'PAUSED');
    const decision = fire(engine, command);
    assert.deepEqual(
      decision.commands.filter((c) => c.type === 'START_CHILD'),
      [command],
    );
  });

  void it('is ignored once the task has ended, or when it waits for another child', () => {
    const ended = started();
    ended.engine.send({
      type: 'CHILD_ENDED',
      taskId: ended.engine.task('child').taskId,
      childWorkflowId: ended.command.childWorkflowId,
      status: 'COMPLETED',
      output: {},
      child: 'leaf',
    });
    assert.equal(ended.engine.task('child').status, 'COMPLETED');
    assert.equal(fire(ended.engine, ended.command).ignored, true);

    const other = started();
    const stale = { ...other.command, childWorkflowId: 'an-earlier-child' };
    const decision = fire(other.engine, stale);
    assert.equal(decision.commands.filter((c) => c.type === 'START_CHILD').length, 0);
  });

  void it('is ignored when the run has ended', () => {
    const { engine, command } = started();
    engine.send({ type: 'TERMINATE', reason: 'stop' });
    assert.equal(fire(engine, command).ignored, true);
  });
});
