import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { JsonObject, TaskRecord, WorkflowMessage, WorkflowTask } from '@baton/protocol';

import { decide } from '../../src/engine/decide.js';
import {
  pauseRejection,
  restartRejection,
  resumeRejection,
  retryRejection,
  skipRejection,
  terminateRejection,
} from '../../src/engine/run-control.js';
import { copyTasksForNewRun } from '../../src/engine/run-copy.js';
import type { EngineEvent } from '../../src/engine/types.js';
import { Engine, simple, T0, workflow } from './helpers.js';

const chain = () =>
  workflow([
    simple('a', { retryCount: 0 }),
    simple('b', { retryCount: 0, inputParameters: { fromA: '${a.output.y}' } }),
    simple('c', { retryCount: 0 }),
  ]);

function message(id: string, n: number): WorkflowMessage {
  return { id, workflowId: 'wf-1', payload: { n }, receivedAt: T0 + n };
}

/** Decides with a mailbox in the context (the executor loads it for runs that read it). */
function sendWithMailbox(engine: Engine, event: EngineEvent, mailbox: WorkflowMessage[]) {
  const decision = decide({ ...engine.context(), mailbox }, event);
  engine.apply(decision);
  return decision;
}

describe('run control events', () => {
  void it('pause stops scheduling, results are still recorded, resume moves on at once', () => {
    const engine = new Engine(chain());
    engine.start();
    const paused = engine.send({ type: 'PAUSE' });
    assert.equal(paused.run.status, 'PAUSED');
    assert.deepEqual(paused.commands, []);
    assert.equal(engine.send({ type: 'PAUSE' }).ignored, true);
    engine.complete('t1', { y: 1 });
    assert.deepEqual(
      engine.tasks.map((t) => [t.referenceTaskName, t.status, t.executed]),
      [['a', 'COMPLETED', false]],
    );
    const resumed = engine.send({ type: 'RESUME' });
    assert.equal(resumed.run.status, 'RUNNING');
    assert.deepEqual(
      resumed.newTasks.map((t) => [t.referenceTaskName, t.inputData]),
      [['b', { fromA: 1 }]],
    );
    assert.equal(engine.send({ type: 'RESUME' }).ignored, true);
  });

  void it('terminate cancels open tasks, removes their messages and timers, records the reason', () => {
    const engine = new Engine(chain());
    engine.start();
    engine.now = T0 + 5;
    const decision = engine.send({ type: 'TERMINATE', reason: 'stop' });
    assert.equal(decision.run.status, 'TERMINATED');
    assert.equal(decision.run.reasonForIncompletion, 'stop');
    assert.equal(decision.run.endTime, T0 + 5);
    assert.deepEqual(
      decision.updatedTasks.map((t) => [t.referenceTaskName, t.status]),
      [['a', 'CANCELED']],
    );
    assert.deepEqual(decision.commands, [{ type: 'CANCEL_TIMERS' }, { type: 'DEQUEUE', taskId: 't1' }]);
    assert.equal(engine.send({ type: 'TERMINATE', reason: 'again' }).ignored, true);
  });

  void it('skip of a scheduled task records its output and moves on; a task not reached is passed over later', () => {
    const engine = new Engine(chain());
    engine.start();
    const skipped = engine.send({ type: 'SKIP_TASK', taskRef: 'a', taskOutput: { y: 'skip' } });
    assert.deepEqual(
      skipped.commands.map((c) => c.type),
      ['DEQUEUE', 'CANCEL_TIMERS', 'ENQUEUE'],
    );
    assert.deepEqual(engine.task('a').outputData, { y: 'skip' });
    assert.deepEqual(engine.task('b').inputData, { fromA: 'skip' });

    const ahead = engine.send({ type: 'SKIP_TASK', taskRef: 'c', taskOutput: { done: 1 } });
    assert.deepEqual(ahead.commands, [], 'nothing moves before the run reaches c');
    assert.equal(engine.task('c').status, 'SKIPPED');
    const end = engine.complete(engine.task('b').taskId);
    assert.equal(end.run.status, 'COMPLETED');
    assert.deepEqual(end.newTasks, []);
  });

  void it('answers why an operation is refused, naming the status', () => {
    const engine = new Engine(chain());
    engine.start();
    const run = engine.run;
    assert.equal(pauseRejection(run), undefined);
    assert.match(resumeRejection(run)!.message, /RUNNING/);
    assert.equal(terminateRejection(run), undefined);
    assert.match(retryRejection(run)!.message, /RUNNING/);
    assert.match(restartRejection(run, 'restarted')!.message, /RUNNING/);
    assert.equal(skipRejection(run, engine.tasks, 'a'), undefined);
    assert.equal(skipRejection(run, engine.tasks, 'c'), undefined);
    assert.equal(skipRejection(run, engine.tasks, 'zz')!.code, 'SKIP_TASK_NOT_IN_DEFINITION');
    const taken: TaskRecord[] = engine.tasks.map((t) => ({ ...t, status: 'IN_PROGRESS' }));
    assert.match(skipRejection(run, taken, 'a')!.message, /IN_PROGRESS/);

    const failed = { ...run, status: 'FAILED' as const };
    assert.match(pauseRejection(failed)!.message, /FAILED/);
    assert.match(terminateRejection(failed)!.message, /FAILED/);
    assert.equal(retryRejection(failed), undefined);
    assert.match(
      retryRejection({ ...failed, links: { retried_by: ['x'] } })!.message,
      /already been retried by x/,
    );
    assert.match(retryRejection({ ...failed, status: 'COMPLETED' })!.message, /COMPLETED/);
    assert.equal(restartRejection(failed, 'rerun'), undefined);
    const fixed = { ...failed, workflowDefinition: { ...failed.workflowDefinition, restartable: false } };
    assert.match(restartRejection(fixed, 'rerun')!.message, /not restartable/);
  });
});

describe('PULL_WORKFLOW_MESSAGES and signals', () => {
  const pullDef = (params: JsonObject = {}) =>
    workflow([
      { name: 'pull', taskReferenceName: 'pull', type: 'PULL_WORKFLOW_MESSAGES', inputParameters: params },
      simple('after', { inputParameters: { got: '${pull.output.count}' } }),
    ]);

  void it('takes waiting messages at once, oldest first, up to batchSize', () => {
    const engine = new Engine(pullDef({ batchSize: 2 }));
    const decision = sendWithMailbox(engine, { type: 'START' }, [
      message('m1', 1),
      message('m2', 2),
      message('m3', 3),
    ]);
    const pull = engine.task('pull');
    assert.equal(pull.status, 'COMPLETED');
    assert.equal(pull.outputData.count, 2);
    assert.deepEqual(decision.commands[0], { type: 'TAKE_MESSAGES', messageIds: ['m1', 'm2'] });
    assert.deepEqual(engine.task('after').inputData, { got: 2 });
  });

  void it('a blocking reader waits; new messages or a signal wake it; a non-blocking one completes empty', () => {
    const engine = new Engine(pullDef());
    sendWithMailbox(engine, { type: 'START' }, []);
    assert.equal(engine.task('pull').status, 'IN_PROGRESS');
    assert.equal(sendWithMailbox(engine, { type: 'MAILBOX' }, []).ignored, true);
    const woken = sendWithMailbox(engine, { type: 'MAILBOX' }, [message('m1', 1)]);
    assert.equal(engine.task('pull').status, 'COMPLETED');
    assert.deepEqual(
      woken.commands.map((c) => c.type),
      ['TAKE_MESSAGES', 'ENQUEUE'],
    );

    const signaled = new Engine(pullDef());
    sendWithMailbox(signaled, { type: 'START' }, []);
    const decision = sendWithMailbox(
      signaled,
      { type: 'SIGNAL', status: 'COMPLETED', output: { n: 9 }, messageId: 'm9' },
      [message('m9', 9)],
    );
    assert.deepEqual((signaled.task('pull').outputData.messages as Array<{ id: string }>)[0]?.id, 'm9');
    assert.equal(decision.ignored, false);
    assert.equal(
      sendWithMailbox(signaled, { type: 'SIGNAL', status: 'COMPLETED', output: {} }, []).ignored,
      true,
      'nothing blocked: the signal changes nothing',
    );

    const nonBlocking = new Engine(pullDef({ blocking: false }));
    sendWithMailbox(nonBlocking, { type: 'START' }, []);
    assert.deepEqual(nonBlocking.task('pull').outputData, { messages: [], count: 0 });
  });
});

describe('task copies for retry and rerun', () => {
  function record(
    ref: string,
    seq: number,
    status: TaskRecord['status'],
    workflowTask: WorkflowTask,
  ): TaskRecord {
    return {
      taskId: `old-${seq}`,
      workflowInstanceId: 'old',
      workflowType: 'wf',
      taskType: 'X',
      taskDefName: 'X',
      referenceTaskName: ref,
      status,
      seq,
      retryCount: 0,
      inputData: {},
      outputData: { ref },
      pollCount: 1,
      scheduledTime: T0,
      startTime: T0,
      endTime: T0,
      updateTime: T0,
      startDelayInSeconds: 0,
      callbackAfterSeconds: 0,
      responseTimeoutSeconds: 0,
      retried: false,
      executed: true,
      workflowPriority: 0,
      iteration: 0,
      workflowTask,
    };
  }
  let ids = 0;
  const newId = () => `new-${++ids}`;

  void it('copies successful tasks, not the failed ones nor the containers holding them (forks, loops)', () => {
    const x1 = simple('x1');
    const x2 = simple('x2');
    const y1 = simple('y1');
    const l1 = simple('l1');
    const l2 = simple('l2');
    const fork: WorkflowTask = {
      name: 'fork',
      taskReferenceName: 'fork',
      type: 'FORK_JOIN',
      forkTasks: [[x1, x2], [y1]],
    };
    const join: WorkflowTask = {
      name: 'join',
      taskReferenceName: 'join',
      type: 'JOIN',
      joinOn: ['x2', 'y1'],
    };
    const loop: WorkflowTask = {
      name: 'loop',
      taskReferenceName: 'loop',
      type: 'DO_WHILE',
      loopOver: [l1, l2],
    };
    const first = simple('first');
    const def = workflow([first, fork, join, loop]);
    const tasks = [
      record('first', 1, 'COMPLETED', first),
      record('fork', 2, 'COMPLETED', fork),
      record('x1', 3, 'COMPLETED', x1),
      record('y1', 4, 'COMPLETED', y1),
      { ...record('x2', 5, 'FAILED', x2), retried: true },
      record('x2', 6, 'FAILED', x2),
      record('join', 7, 'CANCELED', join),
    ];
    const copies = copyTasksForNewRun({ definition: def, tasks, newWorkflowId: 'new', newId });
    assert.deepEqual(
      copies.map((t) => [t.referenceTaskName, t.status, t.seq, t.executed, t.workflowInstanceId]),
      [
        ['first', 'COMPLETED', 1, false, 'new'],
        ['x1', 'COMPLETED', 2, false, 'new'],
        ['y1', 'COMPLETED', 3, false, 'new'],
      ],
    );
    assert.ok(copies.every((t) => t.taskId.startsWith('new-')));
    assert.deepEqual(copies[1]?.outputData, { ref: 'x1' });

    const loopTasks = [
      record('first', 1, 'COMPLETED', first),
      record('loop', 2, 'FAILED', loop),
      record('l1__1', 3, 'COMPLETED', l1),
      record('l2__1', 4, 'COMPLETED', l2),
      record('l1__2', 5, 'COMPLETED', l1),
      record('l2__2', 6, 'FAILED', l2),
    ];
    assert.deepEqual(
      copyTasksForNewRun({ definition: def, tasks: loopTasks, newWorkflowId: 'new', newId }).map(
        (t) => t.referenceTaskName,
      ),
      ['first', 'l1__1', 'l2__1', 'l1__2'],
    );
  });

  void it('rerun copies what ran before the named task, not its containers', () => {
    const x1 = simple('x1');
    const y1 = simple('y1');
    const fork: WorkflowTask = {
      name: 'fork',
      taskReferenceName: 'fork',
      type: 'FORK_JOIN',
      forkTasks: [[x1], [y1]],
    };
    const first = simple('first');
    const def = workflow([first, fork, simple('last')]);
    const tasks = [
      record('first', 1, 'COMPLETED', first),
      record('fork', 2, 'COMPLETED', fork),
      record('x1', 3, 'COMPLETED', x1),
      record('y1', 4, 'COMPLETED', y1),
      record('last', 5, 'COMPLETED', simple('last')),
    ];
    const copies = copyTasksForNewRun({ definition: def, tasks, newWorkflowId: 'new', newId, fromRef: 'y1' });
    assert.deepEqual(
      copies.map((t) => t.referenceTaskName),
      ['first', 'x1'],
    );
  });

  void it('a run started over the copies schedules only what did not succeed', () => {
    const engine = new Engine(chain());
    engine.start();
    engine.complete('t1', { y: 'kept' });
    engine.fail(engine.task('b').taskId);
    assert.equal(engine.run.status, 'FAILED');
    const copies = copyTasksForNewRun({
      definition: engine.run.workflowDefinition,
      tasks: engine.tasks,
      newWorkflowId: 'wf-1',
      newId,
    });
    const next = new Engine(chain());
    next.tasks = copies;
    const decision = next.start();
    assert.deepEqual(
      decision.newTasks.map((t) => [t.referenceTaskName, t.inputData]),
      [['b', { fromA: 'kept' }]],
    );
    assert.deepEqual(
      decision.updatedTasks.map((t) => [t.referenceTaskName, t.executed]),
      [['a', true]],
    );
  });
});
