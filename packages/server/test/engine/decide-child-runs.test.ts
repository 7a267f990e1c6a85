import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { WorkflowStatus, WorkflowTask } from '@baton/protocol';
import { Engine, simple, workflow } from './helpers.js';

const sub = (extra: Partial<WorkflowTask> = {}): WorkflowTask => ({
  name: 'child',
  taskReferenceName: 'child',
  type: 'SUB_WORKFLOW',
  subWorkflowParam: { name: 'leaf', version: 2 },
  inputParameters: { n: '${workflow.input.n}' },
  ...extra,
});

function started(extra: Partial<WorkflowTask> = {}): Engine {
  const engine = new Engine(workflow([sub(extra), simple('after')]), {
    input: { n: 3 },
    correlationId: 'corr',
    taskToDomain: { leaf_work: 'blue' },
    priority: 7,
  });
  engine.start();
  return engine;
}

describe('SUB_WORKFLOW in the interpreter', () => {
  it('opens the task IN_PROGRESS and asks for the child in the same decision', () => {
    const engine = new Engine(workflow([sub(), simple('after')]), {
      input: { n: 3 },
      taskToDomain: { leaf_work: 'blue' },
      priority: 7,
    });
    const decision = engine.start();
    const task = engine.task('child');
    assert.equal(task.status, 'IN_PROGRESS');
    assert.equal(task.taskType, 'SUB_WORKFLOW');
    assert.equal(task.subWorkflowId, 't2');
    assert.deepEqual(task.outputData, { subWorkflowId: 't2' });
    assert.equal(task.inputData.subWorkflowName, 'leaf');
    assert.equal(task.inputData.subWorkflowVersion, 2);
    assert.deepEqual(task.inputData.workflowInput, { n: 3 });
    assert.deepEqual(decision.commands, [
      {
        type: 'START_CHILD',
        taskId: task.taskId,
        childWorkflowId: 't2',
        name: 'leaf',
        version: 2,
        input: { n: 3 },
        taskToDomain: { leaf_work: 'blue' },
        priority: 7,
      },
    ]);
  });

  it('takes the latest version when none (or 0) is given, and the param’s taskToDomain and priority', () => {
    const engine = new Engine(
      workflow([
        sub({ subWorkflowParam: { name: 'leaf', version: 0, taskToDomain: { '*': 'red' }, priority: 60 } }),
      ]),
    );
    const command = engine.start().commands[0];
    assert.equal(command?.type, 'START_CHILD');
    assert.ok(command?.type === 'START_CHILD');
    assert.equal(command.version, undefined);
    assert.deepEqual(command.taskToDomain, { '*': 'red' });
    assert.equal(command.priority, 60);
  });

  it('passes an inline definition untouched (its expressions belong to the child)', () => {
    const inline = workflow([simple('w', { inputParameters: { v: '${workflow.input.v}' } })], {
      name: 'inline_leaf',
    });
    const engine = new Engine(workflow([sub({ subWorkflowParam: { workflowDefinition: inline } })]));
    const command = engine.start().commands[0];
    assert.ok(command?.type === 'START_CHILD');
    assert.equal(command.name, 'inline_leaf');
    assert.deepEqual(command.definition, inline);
  });

  const endings: [WorkflowStatus, string, string][] = [
    ['COMPLETED', 'COMPLETED', 'RUNNING'],
    ['FAILED', 'FAILED', 'FAILED'],
    ['TERMINATED', 'CANCELED', 'TERMINATED'],
    ['TIMED_OUT', 'TIMED_OUT', 'TIMED_OUT'],
  ];
  for (const [childStatus, taskStatus, runStatus] of endings) {
    it(`a child that ends ${childStatus} ends the task ${taskStatus} (run ${runStatus})`, () => {
      const engine = started();
      const task = engine.task('child');
      engine.send({
        type: 'CHILD_ENDED',
        taskId: task.taskId,
        childWorkflowId: 't2',
        status: childStatus,
        output: { x: 1 },
        ...(childStatus !== 'COMPLETED' && { reason: 'why' }),
        child: 'leaf.2/t2',
      });
      const ended = engine.task('child');
      assert.equal(ended.status, taskStatus);
      assert.deepEqual(ended.outputData, { x: 1, subWorkflowId: 't2' });
      assert.equal(engine.run.status, runStatus);
      if (childStatus === 'COMPLETED') {
        assert.equal(ended.reasonForIncompletion, undefined);
        assert.equal(engine.task('after').status, 'SCHEDULED');
      } else {
        assert.equal(ended.reasonForIncompletion, 'Sub workflow leaf.2/t2 failure reason: why');
      }
    });
  }

  it('ignores an end for another child or a task already ended', () => {
    const engine = started();
    const taskId = engine.task('child').taskId;
    const other = engine.send({
      type: 'CHILD_ENDED',
      taskId,
      childWorkflowId: 'someone-else',
      status: 'COMPLETED',
      output: {},
      child: 'x',
    });
    assert.equal(other.ignored, true);
  });

  it('a run that ends while its child is open cancels the task and terminates the child', () => {
    const engine = started();
    const decision = engine.send({ type: 'PARENT_ENDED', reason: 'stop' });
    assert.equal(engine.run.status, 'TERMINATED');
    assert.equal(engine.run.reasonForIncompletion, 'stop');
    assert.equal(engine.task('child').status, 'CANCELED');
    assert.deepEqual(
      decision.commands.filter((c) => c.type === 'TERMINATE_CHILD'),
      [
        {
          type: 'TERMINATE_CHILD',
          childWorkflowId: 't2',
          reason: 'Parent workflow has been terminated with reason: stop',
        },
      ],
    );
    assert.equal(engine.send({ type: 'PARENT_ENDED', reason: 'again' }).ignored, true);
  });

  it('a child that could not be started fails the task and drops its id', () => {
    const engine = started();
    engine.send({
      type: 'CHILD_NOT_STARTED',
      taskId: engine.task('child').taskId,
      reason: 'No such workflow found by name: leaf',
    });
    const task = engine.task('child');
    assert.equal(task.status, 'FAILED');
    assert.equal(task.subWorkflowId, undefined);
    assert.deepEqual(task.outputData, {});
    assert.equal(engine.run.status, 'FAILED');
    assert.equal(
      engine.run.reasonForIncompletion,
      "Task child failed with status: FAILED and reason: 'No such workflow found by name: leaf'",
    );
  });

  it('fails the task when no name and no definition are given', () => {
    const engine = new Engine(workflow([sub({ subWorkflowParam: { name: '${workflow.input.missing}' } })]));
    engine.start();
    assert.equal(engine.task('child').status, 'FAILED');
    assert.equal(engine.run.status, 'FAILED');
  });
});

describe('START_WORKFLOW in the interpreter', () => {
  const startTask = (startWorkflow: unknown): WorkflowTask => ({
    name: 'kick',
    taskReferenceName: 'kick',
    type: 'START_WORKFLOW',
    inputParameters: { startWorkflow: startWorkflow as never },
  });

  it('asks for the run, inheriting correlationId and taskToDomain', () => {
    const engine = new Engine(workflow([startTask({ name: 'other', input: { a: '${workflow.input.a}' } })]), {
      input: { a: 1 },
      correlationId: 'corr',
      taskToDomain: { '*': 'x' },
    });
    const decision = engine.start();
    assert.equal(engine.task('kick').status, 'IN_PROGRESS');
    assert.deepEqual(decision.commands, [
      {
        type: 'START_WORKFLOW',
        taskId: engine.task('kick').taskId,
        workflowId: 't2',
        name: 'other',
        input: { a: 1 },
        correlationId: 'corr',
        taskToDomain: { '*': 'x' },
        priority: 0,
      },
    ]);
  });

  const failures: [string, unknown, string][] = [
    ['missing', undefined, "Missing 'startWorkflow' in input data."],
    [
      'without a name',
      { input: {} },
      "startWorkflow validation failed. 'name' -> Workflow name cannot be null or empty. ",
    ],
    [
      'with a bad priority',
      { name: 'x', priority: 120 },
      "startWorkflow validation failed. 'priority' -> priority: 120 should be minimum 0 and maximum 99. ",
    ],
  ];
  for (const [name, request, reason] of failures) {
    it(`fails the task when the request is ${name}`, () => {
      const engine = new Engine(workflow([startTask(request)]));
      engine.start();
      assert.equal(engine.task('kick').status, 'FAILED');
      assert.equal(engine.task('kick').reasonForIncompletion, reason);
    });
  }
});
