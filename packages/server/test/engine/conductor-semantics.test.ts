import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskDef, WorkflowTask } from '@baton/protocol';
import type { Command, Decision, FiredTimer, TimerKind } from '../../src/engine/types.js';
import { Engine, fork, join, simple, T0, workflow } from './helpers.js';

/**
 * Conductor's semantics that its own integration specs assert, decided without a database:
 * permissive tasks (ForkJoinSpec, WorkflowAndTaskConfigurationSpec), SUB_WORKFLOW retried under
 * its task definition (ForkJoinSpec), a dynamic fork with wrong-shaped input
 * (DynamicForkJoinSpec), and the failed task names of a run (WorkflowAndTaskConfigurationSpec).
 */

const noRetry = (name: string): TaskDef => ({
  name,
  retryCount: 0,
  timeoutSeconds: 0,
  responseTimeoutSeconds: 60,
});
const perm = (ref: string, extra: Partial<WorkflowTask> = {}) => simple(ref, { permissive: true, ...extra });
const shape = (engine: Engine) => engine.tasks.map((t) => [t.referenceTaskName, t.status]);

void describe('permissive tasks (ForkJoinSpec, WorkflowAndTaskConfigurationSpec)', () => {
  void it('ForkJoinSpec "fork join permissive failure flow": a failed branch waits for the other, then the JOIN fails the run', () => {
    const def = workflow([
      fork('fanouttask', [[perm('t1')], [perm('t2')]]),
      join('fanouttask_join', ['t1', 't2']),
      simple('t3'),
    ]);
    const engine = new Engine(def, {}, [noRetry('t1_type'), noRetry('t2_type')]);
    engine.start();
    engine.fail(engine.task('t1').taskId, 'Failed...');
    assert.equal(engine.run.status, 'RUNNING');
    assert.deepEqual(shape(engine), [
      ['fanouttask', 'COMPLETED'],
      ['t1', 'FAILED'],
      ['t2', 'SCHEDULED'],
      ['fanouttask_join', 'IN_PROGRESS'],
    ]);
    engine.complete(engine.task('t2').taskId);
    assert.equal(engine.run.status, 'FAILED');
    assert.deepEqual(shape(engine), [
      ['fanouttask', 'COMPLETED'],
      ['t1', 'FAILED'],
      ['t2', 'COMPLETED'],
      ['fanouttask_join', 'FAILED'],
    ]);
    assert.equal(engine.task('fanouttask_join').reasonForIncompletion, 'Failed...');
    assert.match(
      engine.run.reasonForIncompletion ?? '',
      /^Task fanouttask_join failed with status: FAILED and reason: 'Failed\.\.\.'$/,
    );
    assert.deepEqual(engine.run.failedReferenceTaskNames, ['t1', 'fanouttask_join']);
  });

  void it('ForkJoinSpec "retrying a failed permissive fork join" (first part): what follows a permissive failure runs; the run fails once every branch ended', () => {
    const def = workflow([
      fork('fanouttask', [[perm('t1'), perm('t3')], [perm('t2')]]),
      join('fanouttask_join', ['t3', 't2']),
      perm('t4'),
    ]);
    const engine = new Engine(def, {}, ['t1_type', 't2_type', 't3_type', 't4_type'].map(noRetry));
    engine.start();
    engine.complete(engine.task('t1').taskId);
    assert.deepEqual(shape(engine), [
      ['fanouttask', 'COMPLETED'],
      ['t1', 'COMPLETED'],
      ['t2', 'SCHEDULED'],
      ['fanouttask_join', 'IN_PROGRESS'],
      ['t3', 'SCHEDULED'],
    ]);
    engine.fail(engine.task('t2').taskId, 'Failed....');
    assert.equal(engine.run.status, 'RUNNING');
    assert.equal(engine.task('fanouttask_join').status, 'IN_PROGRESS');
    engine.fail(engine.task('t3').taskId, 'Failed....');
    assert.equal(engine.run.status, 'FAILED');
    assert.deepEqual(shape(engine), [
      ['fanouttask', 'COMPLETED'],
      ['t1', 'COMPLETED'],
      ['t2', 'FAILED'],
      ['fanouttask_join', 'FAILED'],
      ['t3', 'FAILED'],
    ]);
  });

  void it('WorkflowAndTaskConfigurationSpec "permissive task": retried, then what follows runs, and the run fails when it would complete', () => {
    const def = workflow([perm('task_permissive'), simple('integration_task_2')]);
    const retryOnce: TaskDef = { ...noRetry('task_permissive_type'), retryCount: 1, retryDelaySeconds: 0 };
    const engine = new Engine(def, {}, [retryOnce]);
    engine.start();
    engine.fail(engine.task('task_permissive').taskId, 'NETWORK ERROR');
    assert.deepEqual(shape(engine), [
      ['task_permissive', 'FAILED'],
      ['task_permissive', 'SCHEDULED'],
    ]);
    engine.fail(engine.task('task_permissive').taskId, 'NETWORK ERROR');
    assert.equal(engine.run.status, 'RUNNING');
    assert.deepEqual(shape(engine), [
      ['task_permissive', 'FAILED'],
      ['task_permissive', 'FAILED'],
      ['integration_task_2', 'SCHEDULED'],
    ]);
    engine.complete(engine.task('integration_task_2').taskId);
    assert.equal(engine.run.status, 'FAILED');
    assert.equal(
      engine.run.reasonForIncompletion,
      "Task task_permissive failed with status: FAILED and reason: 'NETWORK ERROR'",
    );
    assert.deepEqual(engine.run.failedReferenceTaskNames, ['task_permissive']);
    assert.equal(engine.task('integration_task_2').status, 'COMPLETED');
  });

  void it('WorkflowAndTaskConfigurationSpec "permissive optional task": optional wins (COMPLETED_WITH_ERRORS), the run completes', () => {
    const def = workflow([perm('task_optional', { optional: true }), simple('integration_task_2')]);
    const engine = new Engine(def, {}, [noRetry('task_optional_type')]);
    engine.start();
    engine.fail(engine.task('task_optional').taskId, 'NETWORK ERROR');
    assert.equal(engine.task('task_optional').status, 'COMPLETED_WITH_ERRORS');
    engine.complete(engine.task('integration_task_2').taskId);
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('a permissive failure the JOIN does not wait on lets the JOIN complete; the run fails at its end', () => {
    const def = workflow([
      fork('f', [[perm('a1'), simple('a2')], [simple('b1')]]),
      join('j', ['a2', 'b1']),
      simple('last'),
    ]);
    const engine = new Engine(def, {}, [noRetry('a1_type')]);
    engine.start();
    engine.fail(engine.task('a1').taskId, 'no');
    engine.complete(engine.task('a2').taskId);
    engine.complete(engine.task('b1').taskId);
    assert.equal(engine.task('j').status, 'COMPLETED');
    assert.equal(engine.run.status, 'RUNNING');
    engine.complete(engine.task('last').taskId);
    assert.equal(engine.run.status, 'FAILED');
    assert.equal(engine.run.reasonForIncompletion, "Task a1 failed with status: FAILED and reason: 'no'");
  });
});

void describe('SUB_WORKFLOW retried under its task definition (ForkJoinSpec "sub workflow task using task definition")', () => {
  const def = () =>
    workflow([
      fork('fanouttask', [
        [
          {
            name: 'sub_workflow_task',
            taskReferenceName: 'st1',
            type: 'SUB_WORKFLOW',
            subWorkflowParam: { name: 'sub_workflow' },
          },
        ],
        [simple('t2')],
      ]),
      join('fanouttask_join', ['st1', 't2']),
    ]);
  const childFails = (engine: Engine) => {
    const st1 = engine.task('st1');
    return engine.send({
      type: 'CHILD_ENDED',
      taskId: st1.taskId,
      childWorkflowId: st1.subWorkflowId ?? '',
      status: 'FAILED',
      output: {},
      reason: 'Failed....',
      child: 'sub_workflow',
    });
  };

  void it('a failed child gets a new attempt, which starts a new child run; the run goes on when it completes', () => {
    const engine = new Engine(def(), {}, [{ ...noRetry('sub_workflow_task'), retryCount: 1 }]);
    engine.start();
    const first = engine.task('st1');
    const decision = childFails(engine);
    assert.equal(engine.run.status, 'RUNNING');
    assert.deepEqual(
      engine.tasks.map((t) => [t.taskType, t.status]),
      [
        ['FORK', 'COMPLETED'],
        ['SUB_WORKFLOW', 'FAILED'],
        ['t2_type', 'SCHEDULED'],
        ['JOIN', 'IN_PROGRESS'],
        ['SUB_WORKFLOW', 'IN_PROGRESS'],
      ],
    );
    const retried = engine.task('st1');
    assert.equal(retried.retryCount, 1);
    assert.equal(retried.retriedTaskId, first.taskId);
    assert.notEqual(retried.subWorkflowId, first.subWorkflowId);
    const start = decision.commands.find((c) => c.type === 'START_CHILD');
    assert.ok(start && start.type === 'START_CHILD' && start.childWorkflowId === retried.subWorkflowId);
    engine.send({
      type: 'CHILD_ENDED',
      taskId: retried.taskId,
      childWorkflowId: retried.subWorkflowId ?? '',
      status: 'COMPLETED',
      output: {},
      child: 'sub_workflow',
    });
    engine.complete(engine.task('t2').taskId);
    assert.equal(engine.run.status, 'COMPLETED');
    assert.deepEqual(engine.run.failedReferenceTaskNames, ['st1']);
  });

  void it('without a task definition a failed child is final, as in Conductor', () => {
    const engine = new Engine(def());
    engine.start();
    childFails(engine);
    assert.equal(engine.run.status, 'FAILED');
    assert.equal(engine.all('st1').length, 1);
  });
});

void describe('dynamic fork with wrong-shaped input (DynamicForkJoinSpec "fail when task input is invalid")', () => {
  const def = () =>
    workflow([
      simple('dt1'),
      {
        name: 'dynamicfanouttask',
        taskReferenceName: 'dynamicfanouttask',
        type: 'FORK_JOIN_DYNAMIC',
        dynamicForkTasksParam: 'dynamicTasks',
        dynamicForkTasksInputParamName: 'dynamicTasksInput',
        inputParameters: {
          dynamicTasks: '${dt1.output.dynamicTasks}',
          dynamicTasksInput: '${dt1.output.dynamicTasksInput}',
        },
      },
      join('dynamicfanouttask_join', []),
    ]);
  const dynamicTasks = [simple('xdt1'), simple('xdt2')] as unknown as never;

  void it('an entry of dynamicTasksInput that is not a map fails the run with a reason; no FORK task is made', () => {
    const engine = new Engine(def());
    engine.start();
    engine.complete(engine.task('dt1').taskId, {
      dynamicTasks,
      dynamicTasksInput: { xdt1: 'v1', xdt2: 'v2' },
    });
    assert.equal(engine.run.status, 'FAILED');
    assert.deepEqual(shape(engine), [['dt1', 'COMPLETED']]);
    assert.match(
      engine.run.reasonForIncompletion ?? '',
      /^Tasks could not be dynamically forked due to invalid input/,
    );
  });

  void it('a dynamicTasksInput that is a string fails the run with a reason', () => {
    const engine = new Engine(def());
    engine.start();
    engine.complete(engine.task('dt1').taskId, { dynamicTasks, dynamicTasksInput: 'xdt1' });
    assert.equal(engine.run.status, 'FAILED');
    assert.match(
      engine.run.reasonForIncompletion ?? '',
      /^Input to the dynamically forked tasks is not a map/,
    );
  });

  void it("an entry's map is added to the forked task's own inputParameters", () => {
    const engine = new Engine(def());
    engine.start();
    const own = [simple('xdt1', { inputParameters: { a: 1, b: 1 } })] as unknown as never;
    engine.complete(engine.task('dt1').taskId, { dynamicTasks: own, dynamicTasksInput: { xdt1: { b: 2 } } });
    assert.deepEqual(engine.task('xdt1').inputData, { a: 1, b: 2 });
  });
});

void describe('failed task names of a run (WorkflowAndTaskConfigurationSpec)', () => {
  void it('a run that completes lists the tasks that failed before a retry succeeded', () => {
    const retryOnce: TaskDef = { ...noRetry('a_type'), retryCount: 1, retryDelaySeconds: 0 };
    const engine = new Engine(workflow([simple('a'), simple('b')]), {}, [retryOnce]);
    engine.start();
    engine.fail(engine.task('a').taskId, 'once');
    engine.complete(engine.task('a').taskId);
    engine.complete(engine.task('b').taskId);
    assert.equal(engine.run.status, 'COMPLETED');
    assert.deepEqual(engine.run.failedReferenceTaskNames, ['a']);
    assert.deepEqual(engine.run.failedTaskNames, ['a_type']);
  });
});

void describe('task order in a run (ForkJoinSpec, DoWhileSpec): scheduling order, as Conductor lists tasks', () => {
  void it('a DO_WHILE heading a fork branch starts its first iteration before the next branch and the JOIN', () => {
    const loop: WorkflowTask = {
      name: 'loop',
      taskReferenceName: 'loop',
      type: 'DO_WHILE',
      loopCondition: 'false',
      loopOver: [simple('step')],
    };
    const engine = new Engine(workflow([fork('f', [[loop], [simple('b')]]), join('j', ['loop', 'b'])]));
    engine.start();
    assert.deepEqual(
      engine.tasks.map((t) => t.referenceTaskName),
      ['f', 'loop', 'step__1', 'b', 'j'],
    );
  });

  void it('a fork nested in a branch lists its branch heads and JOIN before the outer JOIN', () => {
    const inner = fork('f2', [[simple('x')], [simple('y')]]);
    const engine = new Engine(
      workflow([fork('f1', [[simple('a')], [inner, join('j2', ['x', 'y'])]]), join('j1', ['a', 'j2'])]),
    );
    engine.start();
    assert.deepEqual(
      engine.tasks.map((t) => t.referenceTaskName),
      ['f1', 'a', 'f2', 'x', 'y', 'j2', 'j1'],
    );
  });
});

void describe('a retried child resumes its parent (SubWorkflowRetrySpec): CHILD_RETRIED', () => {
  const def = () =>
    workflow([
      { name: 'child', taskReferenceName: 'child', type: 'SUB_WORKFLOW', subWorkflowParam: { name: 'leaf' } },
      simple('after'),
    ]);
  const failed = () => {
    const engine = new Engine(def());
    engine.start();
    const task = engine.task('child');
    engine.send({
      type: 'CHILD_ENDED',
      taskId: task.taskId,
      childWorkflowId: task.subWorkflowId ?? '',
      status: 'FAILED',
      output: {},
      reason: 'no',
      child: 'leaf.1/x',
    });
    assert.equal(engine.run.status, 'FAILED');
    return { engine, task };
  };

  void it('the run returns to RUNNING, the task follows the new child, and the run goes on when it completes', () => {
    const { engine, task } = failed();
    const decision = engine.send({
      type: 'CHILD_RETRIED',
      taskId: task.taskId,
      previousChildId: task.subWorkflowId ?? '',
      childWorkflowId: 'c2',
    });
    assert.equal(engine.run.status, 'RUNNING');
    assert.equal(engine.run.reasonForIncompletion, undefined);
    assert.deepEqual(engine.run.failedReferenceTaskNames, []);
    assert.equal(engine.run.reopened?.length, 1);
    const reopened = engine.task('child');
    assert.equal(reopened.taskId, task.taskId);
    assert.equal(reopened.status, 'IN_PROGRESS');
    assert.equal(reopened.subWorkflowId, 'c2');
    assert.ok(!decision.commands.some((c) => c.type === 'START_CHILD'), 'the new child exists already');
    engine.send({
      type: 'CHILD_ENDED',
      taskId: task.taskId,
      childWorkflowId: 'c2',
      status: 'COMPLETED',
      output: {},
      child: 'leaf.1/c2',
    });
    engine.complete(engine.task('after').taskId);
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('a run whose end canceled the SUB_WORKFLOW itself (timed out, terminated): the task follows the new child, no second child (SubWorkflowSpec)', () => {
    const engine = new Engine(def());
    engine.start();
    const task = engine.task('child');
    engine.send({ type: 'TERMINATE', reason: 'run timed out' });
    assert.equal(engine.task('child').status, 'CANCELED');
    const decision = engine.send({
      type: 'CHILD_RETRIED',
      taskId: task.taskId,
      previousChildId: task.subWorkflowId ?? '',
      childWorkflowId: 'c2',
    });
    assert.equal(engine.run.status, 'RUNNING');
    const attempts = engine.tasks.filter((t) => t.referenceTaskName === 'child');
    assert.equal(attempts.length, 1, 'one SUB_WORKFLOW task, following the new child');
    assert.equal(attempts[0]?.status, 'IN_PROGRESS');
    assert.equal(attempts[0]?.subWorkflowId, 'c2');
    assert.ok(!decision.commands.some((c) => c.type === 'START_CHILD'), 'no second child run');
  });

  void it('ignored for another child, or a run that is not ended', () => {
    const { engine, task } = failed();
    const other = engine.send({
      type: 'CHILD_RETRIED',
      taskId: task.taskId,
      previousChildId: 'x',
      childWorkflowId: 'c2',
    });
    assert.equal(other.ignored, true);
    const running = new Engine(def());
    running.start();
    const open = running.task('child');
    const ignored = running.send({
      type: 'CHILD_RETRIED',
      taskId: open.taskId,
      previousChildId: open.subWorkflowId ?? '',
      childWorkflowId: 'c2',
    });
    assert.equal(ignored.ignored, true);
  });
});

/** The timers a decision armed of `kind`, as they fire. */
function armedTimers(decision: Decision, kind: TimerKind): FiredTimer[] {
  return decision.commands
    .filter((c): c is Extract<Command, { type: 'ARM_TIMER' }> => c.type === 'ARM_TIMER')
    .filter((c) => c.timer.kind === kind)
    .map((c) => ({ ...c.timer, workflowId: decision.run.workflowId }));
}

void describe('WAIT under its task definition (WorkflowAndTaskConfigurationSpec)', () => {
  // WorkflowTestUtil's `waitTimeout` task definition and simple_wait_task_workflow_integration_test.json.
  const waitTimeout: TaskDef = {
    name: 'waitTimeout',
    timeoutSeconds: 2,
    responseTimeoutSeconds: 2,
    retryCount: 1,
    timeoutPolicy: 'RETRY',
    retryDelaySeconds: 10,
  };
  const def = workflow([
    { name: 'waitTimeout', taskReferenceName: 'wait0', type: 'WAIT', inputParameters: {} },
    simple('t1'),
  ]);

  void it('"wait time out task based simple workflow": the WAIT times out, a new attempt waits, its completion moves the run on', () => {
    const engine = new Engine(def, {}, [waitTimeout]);
    const started = engine.start();
    assert.deepEqual(shape(engine), [['wait0', 'IN_PROGRESS']]);
    const [timeout] = armedTimers(started, 'TASK_TIMEOUT');
    assert.ok(timeout, 'the WAIT armed its task timeout');
    assert.equal(timeout.dueAt, T0 + 2_000);
    engine.now = timeout.dueAt;
    const fired = engine.timer(timeout);
    assert.equal(engine.run.status, 'RUNNING');
    assert.deepEqual(shape(engine), [
      ['wait0', 'TIMED_OUT'],
      ['wait0', 'SCHEDULED'],
    ]);
    assert.equal(engine.tasks[1]?.taskType, 'WAIT');
    assert.equal(engine.tasks[1]?.retryCount, 1);
    assert.equal(engine.tasks[1]?.retriedTaskId, engine.tasks[0]?.taskId);
    // The new attempt starts waiting after the retry delay, and times out again 2 s later.
    const [startTimer] = armedTimers(fired, 'WAIT');
    assert.equal(startTimer?.dueAt, T0 + 12_000);
    assert.equal(armedTimers(fired, 'TASK_TIMEOUT')[0]?.dueAt, T0 + 14_000);
    engine.complete(engine.tasks[1].taskId);
    assert.deepEqual(shape(engine), [
      ['wait0', 'TIMED_OUT'],
      ['wait0', 'COMPLETED'],
      ['t1', 'SCHEDULED'],
    ]);
    engine.complete(engine.task('t1').taskId);
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('a retried WAIT starts waiting once its delay is over; with no attempt left the timeout times the run out', () => {
    const engine = new Engine(def, {}, [waitTimeout]);
    const [first] = armedTimers(engine.start(), 'TASK_TIMEOUT');
    engine.now = first!.dueAt;
    const retried = engine.timer(first!);
    const [startTimer] = armedTimers(retried, 'WAIT');
    engine.now = startTimer!.dueAt;
    engine.timer(startTimer!);
    assert.equal(engine.task('wait0').status, 'IN_PROGRESS');
    const [second] = armedTimers(retried, 'TASK_TIMEOUT');
    engine.now = second!.dueAt;
    engine.timer(second!);
    assert.deepEqual(shape(engine), [
      ['wait0', 'TIMED_OUT'],
      ['wait0', 'TIMED_OUT'],
    ]);
    assert.equal(engine.run.status, 'TIMED_OUT');
  });

  void it('a WAIT without a task definition arms no timeout and is never retried', () => {
    const engine = new Engine(def);
    assert.deepEqual(armedTimers(engine.start(), 'TASK_TIMEOUT'), []);
    engine.fail(engine.task('wait0').taskId);
    assert.deepEqual(shape(engine), [['wait0', 'FAILED']]);
    assert.equal(engine.run.status, 'FAILED');
  });
});
