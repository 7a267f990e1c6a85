import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { RunRecord, TaskDef, TaskRecord } from '@baton/protocol';

import { decide } from '../../src/engine/decide.js';
import type { Command, Decision, FiredTimer } from '../../src/engine/types.js';
import { lifecycleEvents, lifecycleSink } from '../../src/events/lifecycle-events.js';
import { Engine, simple, workflow } from '../engine/helpers.js';

/** The lifecycle events the interpreter's real decisions produce, one per change, in order. */

function step(engine: Engine, send: () => Decision): string[] {
  const before: RunRecord = engine.run;
  const beforeTasks: TaskRecord[] = engine.tasks;
  const decision = send();
  return lifecycleEvents(before, beforeTasks, decision).map((e) =>
    e.task ? `${e.type}:${e.task.referenceTaskName}` : e.type,
  );
}

function started(engine: Engine): string[] {
  const decision = engine.send({ type: 'START' });
  return lifecycleEvents(undefined, [], decision).map((e) =>
    e.task ? `${e.type}:${e.task.referenceTaskName}` : e.type,
  );
}

function armed(decision: Decision, kind: string, workflowId: string): FiredTimer {
  const command = decision.commands.find(
    (c): c is Extract<Command, { type: 'ARM_TIMER' }> => c.type === 'ARM_TIMER' && c.timer.kind === kind,
  );
  assert.ok(command, `a ${kind} timer`);
  return { ...command.timer, workflowId, payload: command.timer.payload ?? {} };
}

const work = (extra: Partial<TaskDef> = {}): TaskDef => ({
  name: 'work',
  retryCount: 0,
  responseTimeoutSeconds: 600,
  ...extra,
});

void describe('lifecycle events of decisions', () => {
  void it('a task timing out under TIME_OUT_WF: task.timed_out, then workflow.timed_out', () => {
    const engine = new Engine(
      workflow([simple('a', { name: 'work' })], { workflowStatusListenerEnabled: true }),
      {},
      [work({ timeoutSeconds: 10, timeoutPolicy: 'TIME_OUT_WF' })],
    );
    const start = engine.send({ type: 'START' });
    assert.deepEqual(
      lifecycleEvents(undefined, [], start).map((e) => e.type),
      ['workflow.started', 'task.scheduled'],
    );
    engine.tasks = engine.tasks.map((t) => ({
      ...t,
      status: 'IN_PROGRESS',
      startTime: engine.now,
      pollCount: 1,
    }));
    const timer = armed(start, 'TASK_TIMEOUT', engine.run.workflowId);
    engine.now = timer.dueAt;
    assert.deepEqual(
      step(engine, () => engine.send({ type: 'TIMER', timer })),
      ['task.timed_out:a', 'workflow.timed_out'],
    );
  });

  void it('the workflow timeout, a termination, a retried attempt', () => {
    const timed = new Engine(workflow([simple('a', { name: 'work' })], { timeoutSeconds: 60 }), {}, [work()]);
    const start = timed.send({ type: 'START' });
    const timer = armed(start, 'WORKFLOW_TIMEOUT', timed.run.workflowId);
    timed.now = timer.dueAt;
    assert.deepEqual(
      step(timed, () => timed.send({ type: 'TIMER', timer })),
      ['task.canceled:a', 'workflow.timed_out'],
    );

    const stopped = new Engine(workflow([simple('a', { name: 'work' })]), {}, [work()]);
    assert.deepEqual(started(stopped), ['workflow.started', 'task.scheduled:a']);
    assert.deepEqual(
      step(stopped, () => stopped.send({ type: 'PAUSE' })),
      ['workflow.paused'],
    );
    assert.deepEqual(
      step(stopped, () => stopped.send({ type: 'TERMINATE', reason: 'enough' })),
      ['task.canceled:a', 'workflow.terminated'],
    );

    const retried = new Engine(workflow([simple('a', { name: 'work' })]), {}, [
      work({ retryCount: 1, retryDelaySeconds: 0 }),
    ]);
    started(retried);
    const first = retried.tasks[0]!;
    assert.deepEqual(
      step(retried, () =>
        retried.send({
          type: 'TASK_RESULT',
          result: {
            taskId: first.taskId,
            workflowInstanceId: retried.run.workflowId,
            status: 'FAILED',
            reasonForIncompletion: 'x',
          },
        }),
      ),
      ['task.failed:a', 'task.scheduled:a'],
    );
  });

  void it('says where events go only for definitions that opt in', () => {
    const engine = new Engine(workflow([simple('a')]));
    assert.equal(lifecycleSink(engine.run), undefined);
    const on = new Engine(workflow([simple('a')], { workflowStatusListenerEnabled: true }));
    assert.equal(lifecycleSink(on.run), 'baton:workflow_status');
    const sink = new Engine(
      workflow([simple('a')], {
        workflowStatusListenerEnabled: true,
        workflowStatusListenerSink: 'nats:runs',
      }),
    );
    assert.equal(lifecycleSink(sink.run), 'nats:runs');
  });
});

void describe('EVENT kind and instruction texts in decide (pure)', () => {
  void it('EVENT emits PUBLISH_EVENT with Conductor output fields; asyncComplete keeps it open', () => {
    const engine = new Engine(
      workflow([
        {
          name: 'e',
          taskReferenceName: 'e',
          type: 'EVENT',
          sink: 'conductor',
          inputParameters: { k: '${workflow.input.k}' },
        },
        { name: 'f', taskReferenceName: 'f', type: 'EVENT', sink: 'amqp:out', asyncComplete: true },
      ]),
      { input: { k: 7 }, correlationId: 'c1' },
    );
    const decision = engine.send({ type: 'START' });
    const publish = decision.commands.filter((c) => c.type === 'PUBLISH_EVENT');
    assert.equal(publish.length, 2);
    const [first, second] = publish;
    assert.equal(first?.sink, `baton:${engine.run.workflowName}:e`);
    assert.equal(first?.payload.k, 7);
    assert.equal(first?.payload.correlationId, 'c1');
    assert.equal(first?.payload.workflowInstanceId, engine.run.workflowId);
    assert.equal(first?.messageId, engine.tasks[0]?.taskId);
    assert.equal(second?.sink, 'amqp:out');
    assert.deepEqual(
      engine.tasks.map((t) => t.status),
      ['COMPLETED', 'IN_PROGRESS'],
    );
  });

  void it('HUMAN carries the named text and ${instructions.NAME} resolves from the context', () => {
    const engine = new Engine(
      workflow([
        { name: 'h', taskReferenceName: 'h', type: 'HUMAN', instructions: 'review' },
        { name: 'i', taskReferenceName: 'i', type: 'NOOP', inputParameters: { t: '${instructions.review}' } },
      ]),
    );
    const ctx = { ...engine.plainContext(), instructions: { review: 'Check it' } };
    const decision = decide(ctx, { type: 'START' });
    assert.equal(decision.newTasks[0]?.inputData.instructions, 'Check it');
    assert.equal(decision.newTasks[0]?.inputData.instructionsName, 'review');
    // Without texts (none registered), the name stays as given.
    const plain = decide(engine.plainContext(), { type: 'START' });
    assert.equal(plain.newTasks[0]?.inputData.instructions, 'review');
  });
});
