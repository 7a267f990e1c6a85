import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskRecord } from '@baton/protocol';
import { Engine, T0, simple, workflow } from './helpers.js';

void describe('decide: START', () => {
  void it('schedules the first task with its resolved input, queue message and record fields', () => {
    const def = workflow(
      [
        simple('first', {
          name: 'encode',
          inputParameters: {
            file: '${workflow.input.file}',
            label: 'file ${workflow.input.file} of ${workflow.correlationId}',
            self: '${CPEWF_TASK_ID}',
            fixed: 7,
          },
        }),
        simple('second'),
      ],
      { inputTemplate: { file: 'default.mp4' } },
    );
    const engine = new Engine(def, { input: { other: 1 }, correlationId: 'c-1', priority: 5 });
    const decision = engine.start();

    assert.equal(decision.ignored, false);
    assert.equal(decision.runChanged, false);
    assert.deepEqual(decision.updatedTasks, []);
    assert.equal(decision.newTasks.length, 1);
    const expected: TaskRecord = {
      taskId: 't1',
      workflowInstanceId: 'wf-1',
      workflowType: 'wf',
      taskType: 'encode',
      taskDefName: 'encode',
      referenceTaskName: 'first',
      status: 'SCHEDULED',
      seq: 1,
      retryCount: 0,
      inputData: { file: 'default.mp4', label: 'file default.mp4 of c-1', self: 't1', fixed: 7 },
      outputData: {},
      pollCount: 0,
      scheduledTime: T0,
      startTime: 0,
      endTime: 0,
      updateTime: T0,
      startDelayInSeconds: 0,
      callbackAfterSeconds: 0,
      responseTimeoutSeconds: 3600,
      retried: false,
      executed: false,
      correlationId: 'c-1',
      workflowPriority: 5,
      iteration: 0,
      workflowTask: def.tasks[0]!,
      queueName: 'encode',
    };
    assert.deepEqual(decision.newTasks[0], expected);
    assert.deepEqual(decision.commands, [
      {
        type: 'ENQUEUE',
        taskId: 't1',
        queueName: 'encode',
        taskRef: 'first',
        attempt: 1,
        priority: 5,
        visibleAt: T0,
        lockMs: 3_600_000,
      },
    ]);
  });

  const queueCases: Array<{
    title: string;
    priority: number;
    taskToDomain: Record<string, string>;
    queue: string;
    domain?: string;
  }> = [
    { title: 'plain', priority: 0, taskToDomain: {}, queue: 'resize' },
    {
      title: 'domain by type',
      priority: 0,
      taskToDomain: { resize: 'eu', '*': 'us' },
      queue: 'eu-resize',
      domain: 'eu',
    },
    {
      title: 'domain by *',
      priority: 0,
      taskToDomain: { other: 'eu', '*': 'us' },
      queue: 'us-resize',
      domain: 'us',
    },
    { title: 'NO_DOMAIN', priority: 0, taskToDomain: { resize: 'NO_DOMAIN' }, queue: 'resize' },
    { title: 'high priority', priority: 50, taskToDomain: {}, queue: 'resize-high' },
    { title: 'below threshold', priority: 49, taskToDomain: {}, queue: 'resize' },
    {
      title: 'domain and high',
      priority: 99,
      taskToDomain: { resize: 'eu' },
      queue: 'eu-resize-high',
      domain: 'eu',
    },
  ];
  for (const c of queueCases) {
    void it(`routes to the right queue: ${c.title}`, () => {
      const engine = new Engine(workflow([simple('a', { name: 'resize' })]), {
        priority: c.priority,
        taskToDomain: c.taskToDomain,
      });
      const decision = engine.start();
      const task = decision.newTasks[0]!;
      assert.equal(task.queueName, c.queue);
      assert.equal(task.domain, c.domain);
      assert.equal(task.workflowPriority, c.priority);
      const command = decision.commands[0];
      assert.ok(command?.type === 'ENQUEUE');
      assert.equal(command.queueName, c.queue);
      assert.equal(command.priority, c.priority);
    });
  }

  void it('uses the task definition: inputTemplate, responseTimeoutSeconds, startDelay', () => {
    const def = workflow([
      simple('a', {
        name: 'resize',
        startDelay: 30,
        inputParameters: { width: '${workflow.input.width}', h: 1 },
      }),
    ]);
    const engine = new Engine(def, { input: {} }, [
      { name: 'resize', responseTimeoutSeconds: 120, inputTemplate: { width: 640, quality: 'high', h: 2 } },
    ]);
    const decision = engine.start();
    const task = decision.newTasks[0]!;
    // width resolved to null, so the template's value replaces it; quality is added; h is kept.
    assert.deepEqual(task.inputData, { width: 640, h: 1, quality: 'high' });
    assert.equal(task.responseTimeoutSeconds, 120);
    assert.equal(task.startDelayInSeconds, 30);
    assert.equal(task.callbackAfterSeconds, 30);
    assert.deepEqual(decision.commands[0], {
      type: 'ENQUEUE',
      taskId: 't1',
      queueName: 'resize',
      taskRef: 'a',
      attempt: 1,
      priority: 0,
      visibleAt: T0 + 30_000,
      lockMs: 120_000,
    });
  });

  void it('an inline taskDefinition wins over the registered one', () => {
    const def = workflow([
      simple('a', { name: 'resize', taskDefinition: { name: 'resize', responseTimeoutSeconds: 5 } }),
    ]);
    const engine = new Engine(def, {}, [{ name: 'resize', responseTimeoutSeconds: 120 }]);
    assert.equal(engine.start().newTasks[0]!.responseTimeoutSeconds, 5);
  });

  void it('schedules a USER_DEFINED task (unknown type with a task definition) like a SIMPLE one', () => {
    const engine = new Engine(
      workflow([{ name: 'billing', taskReferenceName: 'bill', type: 'MY_CUSTOM' }]),
      {},
      [{ name: 'billing' }],
    );
    const decision = engine.start();
    assert.equal(decision.newTasks[0]!.taskType, 'billing');
    assert.equal(decision.newTasks[0]!.queueName, 'billing');
  });

  void it('fails the run when an unknown type has no task definition at run time', () => {
    const engine = new Engine(workflow([{ name: 'billing', taskReferenceName: 'bill', type: 'MY_CUSTOM' }]));
    const decision = engine.start();
    assert.equal(decision.run.status, 'FAILED');
    assert.equal(
      decision.run.reasonForIncompletion,
      'Invalid task specified. Cannot find task by name billing in the task definitions',
    );
    assert.deepEqual(decision.newTasks, []);
  });

  void it('fails the run when it reaches a kind this server does not run', () => {
    const engine = new Engine(workflow([{ name: 'kp', taskReferenceName: 'kp', type: 'KAFKA_PUBLISH' }]));
    const decision = engine.start();
    assert.equal(decision.run.status, 'FAILED');
    assert.equal(
      decision.run.reasonForIncompletion,
      'task type KAFKA_PUBLISH is not supported by this server yet',
    );
  });

  void it('is idempotent: a second START schedules nothing new', () => {
    const engine = new Engine(workflow([simple('a')]));
    engine.start();
    const again = engine.start();
    assert.deepEqual(again.newTasks, []);
    assert.deepEqual(again.commands, []);
    assert.equal(again.runChanged, false);
  });

  void it('a PAUSED run schedules nothing', () => {
    const engine = new Engine(workflow([simple('a')]));
    engine.run = { ...engine.run, status: 'PAUSED' };
    const decision = engine.start();
    assert.deepEqual(decision.newTasks, []);
    assert.deepEqual(decision.commands, []);
    assert.equal(decision.runChanged, false);
  });

  void it('a terminal run schedules nothing', () => {
    const engine = new Engine(workflow([simple('a')]));
    engine.run = { ...engine.run, status: 'TERMINATED' };
    const decision = engine.send({ type: 'DECIDE' });
    assert.deepEqual(decision.newTasks, []);
    assert.deepEqual(decision.commands, []);
  });
});
