import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { WorkflowDef } from '@baton/protocol';
import { checkWorkflowDef } from '../../src/engine/validation/check-workflow-def.js';
import { Engine } from './helpers.js';
import { sandboxScripts } from './sandbox-scripts.js';

const testScripts = sandboxScripts();

/**
 * Definitions in the shape Conductor serializes them (every WorkflowTask with all its default
 * fields: empty `decisionCases`, `forkTasks`, `loopOver`, `joinOn`, …), as in its test-harness
 * resources. Each must register unchanged and run as Conductor runs it.
 */
function fixture(name: string): WorkflowDef {
  const url = new URL(`../../../test/fixtures/conductor/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as WorkflowDef;
}

const emptyFields = {
  inputParameters: {},
  decisionCases: {},
  defaultCase: [],
  forkTasks: [],
  joinOn: [],
  loopOver: [],
  defaultExclusiveJoinTask: [],
  optional: false,
  startDelay: 0,
  asyncComplete: false,
};

const checkContext = { taskDefNames: new Set<string>(), scripts: testScripts };

function engineFor(name: string, input: Record<string, unknown>): Engine {
  const def = fixture(name);
  assert.deepEqual(checkWorkflowDef(def, checkContext), [], `${name} registers`);
  const engine = new Engine(def, { input: input as never });
  engine.scripts = testScripts;
  engine.start();
  return engine;
}

/** Completes the open worker tasks one at a time (seq order); answers their refs. */
function work(engine: Engine, output: Record<string, unknown> = {}): string[] {
  const done: string[] = [];
  for (;;) {
    const next = engine.open().find((t) => t.queueName !== undefined);
    if (!next) return done;
    engine.complete(next.taskId, { ...output, from: next.referenceTaskName });
    done.push(next.referenceTaskName);
  }
}

void describe("Conductor's definitions", () => {
  void it('a DO_WHILE holding a fork and join: iterations with refs __N, JOIN per iteration', () => {
    const engine = engineFor('loop_with_fork.json', { loop: 2 });
    assert.deepEqual(work(engine), [
      'fixture_task_0__1',
      'fixture_task_1__1',
      'fixture_task_2__1',
      'fixture_task_0__2',
      'fixture_task_1__2',
      'fixture_task_2__2',
    ]);
    assert.deepEqual(engine.task('join__2').inputData.joinOn, ['fixture_task_1__2', 'fixture_task_2__2']);
    assert.equal(engine.run.status, 'COMPLETED');
    assert.deepEqual(engine.run.output, { iterations: 2 });
  });

  void it('a javascript SWITCH choosing a fork', () => {
    const engine = engineFor('switch_and_fork.json', { type: 'parallel' });
    assert.deepEqual(
      engine.tasks.map((t) => [t.referenceTaskName, t.taskType, t.status]),
      [
        ['switchTask', 'SWITCH', 'COMPLETED'],
        ['forkx', 'FORK', 'COMPLETED'],
        ['fixture_task_1', 'fixture_task_1', 'SCHEDULED'],
        ['fixture_task_2', 'fixture_task_2', 'SCHEDULED'],
        ['joinx', 'JOIN', 'IN_PROGRESS'],
      ],
    );
    assert.deepEqual(work(engine), ['fixture_task_1', 'fixture_task_2', 'fixture_task_5']);
    assert.deepEqual(engine.task('fixture_task_5').inputData, { case: 'parallel' });
    assert.equal(engine.run.status, 'COMPLETED');
    assert.deepEqual(engine.run.output, { case: ['parallel'] });
  });

  void it('the same SWITCH taking its single-task case', () => {
    const engine = engineFor('switch_and_fork.json', { type: 'other' });
    assert.deepEqual(work(engine), ['fixture_task_3', 'fixture_task_5']);
  });

  void it('a value-param SWITCH: its case, or the default', () => {
    assert.deepEqual(work(engineFor('value_param_switch_default.json', { case: 'c' })), ['fixture_task_1']);
    assert.deepEqual(work(engineFor('value_param_switch_default.json', { case: 'x' })), ['fixture_task_2']);
  });

  void it('a dynamic fork from a task list and an input map', () => {
    const engine = engineFor('dynamic_fork.json', {
      // As Conductor's clients send them: every WorkflowTask field, empty lists included.
      dynamicTasks: [
        { name: 'fixture_task_2', taskReferenceName: 'xdt1', ...emptyFields },
        { name: 'fixture_task_3', taskReferenceName: 'xdt2', type: 'SIMPLE', ...emptyFields },
      ],
      dynamicTasksInput: { xdt1: { k1: 'v1' }, xdt2: { k2: 'v2' } },
    });
    assert.deepEqual(engine.task('xdt1').inputData, { k1: 'v1' });
    assert.deepEqual(work(engine), ['xdt1', 'xdt2', 'fixture_task_4']);
    assert.deepEqual(engine.task('fixture_task_4').inputData, {
      joined: { xdt1: { from: 'xdt1' }, xdt2: { from: 'xdt2' } },
    });
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('a DECISION followed by an EXCLUSIVE_JOIN', () => {
    const a = engineFor('decision_exclusive_join.json', { decision: 'a' });
    assert.deepEqual(work(a), ['fixture_task_1']);
    assert.deepEqual(a.run.output, { picked: { from: 'fixture_task_1' } });
    const b = engineFor('decision_exclusive_join.json', { decision: 'b' });
    assert.deepEqual(work(b), ['fixture_task_2']);
    assert.deepEqual(b.run.output, { picked: { from: 'fixture_task_2' } });
  });

  void it('SET_VARIABLE then TERMINATE: output from the variables, later tasks never run', () => {
    const engine = engineFor('set_variable_terminate.json', { var: 'v' });
    assert.equal(engine.run.status, 'COMPLETED');
    assert.deepEqual(engine.run.output, { result: 'v' });
    assert.deepEqual(engine.run.variables, { var: 'v' });
    assert.deepEqual(
      engine.tasks.map((t) => t.referenceTaskName),
      ['set_variable_1', 'terminate0'],
    );
  });

  void it('a fork nested in a fork branch, joined by the outer JOIN through the inner one (tasks in scheduling order, as ForkJoinSpec "nested fork join workflow success flow")', () => {
    const engine = engineFor('nested_fork_join.json', {});
    assert.deepEqual(
      engine.tasks.map((t) => t.referenceTaskName),
      ['fork1', 't11', 'fork2', 't12', 't13', 'join2', 'join1'],
    );
    assert.deepEqual(work(engine), ['t11', 't12', 't13', 't14', 't15']);
    assert.equal(engine.task('join2').status, 'COMPLETED');
    assert.deepEqual(Object.keys(engine.task('join1').outputData), ['t11', 'join2']);
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('a DO_WHILE holding a SWITCH (with a default case) and a SET_VARIABLE', () => {
    const engine = engineFor('loop_with_switch.json', { loop: 3 });
    assert.deepEqual(work(engine), ['fixture_task_2__1', 'fixture_task_1__2', 'fixture_task_2__3']);
    assert.equal(engine.run.status, 'COMPLETED');
    assert.deepEqual(engine.run.output, { last: 3 });
    assert.deepEqual(engine.task('loopTask').outputData['2'], {
      switchTask: { evaluationResult: ['even'], selectedCase: 'even' },
      fixture_task_1: { from: 'fixture_task_1__2' },
      set_last: {},
    });
  });
});
