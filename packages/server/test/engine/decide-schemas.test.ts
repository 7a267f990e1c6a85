import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskDef } from '@baton/protocol';
import { Engine, simple, workflow } from './helpers.js';

const inputSchema = {
  type: 'object',
  required: ['amount'],
  properties: { amount: { type: 'number' }, currency: { type: 'string', enum: ['EUR', 'USD'] } },
};
const outputSchema = {
  type: 'object',
  required: ['receipt'],
  properties: { receipt: { type: 'string' } },
};

function payDef(extra: Partial<TaskDef> = {}): TaskDef {
  return { name: 'pay', retryCount: 1, retryDelaySeconds: 0, inputSchema, outputSchema, ...extra };
}

const def = workflow([
  simple('pay', {
    name: 'pay',
    inputParameters: { amount: '${workflow.input.amount}', currency: '${workflow.input.currency}' },
  }),
]);

void describe('decide: task definition schemas', () => {
  void it('a conforming input is queued as usual', () => {
    const engine = new Engine(def, { input: { amount: 12, currency: 'EUR' } }, [payDef()]);
    const decision = engine.start();
    assert.equal(decision.newTasks[0]?.status, 'SCHEDULED');
    assert.equal(decision.commands[0]?.type, 'ENQUEUE');
  });

  void it('a bad input fails the task before it is queued, with path and message, and fails the run', () => {
    const engine = new Engine(def, { input: { amount: 'twelve', currency: 'GBP' } }, [payDef()]);
    const decision = engine.start();
    const task = decision.newTasks[0]!;
    assert.equal(task.status, 'FAILED_WITH_TERMINAL_ERROR');
    assert.match(task.reasonForIncompletion ?? '', /inputSchema/);
    assert.match(task.reasonForIncompletion ?? '', /\/amount must be number/);
    assert.match(task.reasonForIncompletion ?? '', /\/currency must be equal to one of the allowed values/);
    assert.ok(!decision.commands.some((c) => c.type === 'ENQUEUE'), 'never queued');
    assert.equal(decision.newTasks.length, 1, 'no retry: the same input would fail again');
    assert.equal(decision.run.status, 'FAILED');
    assert.match(decision.run.reasonForIncompletion ?? '', /Task pay failed .*\/amount must be number/);
  });

  void it('an optional task with a bad input completes with errors and the run goes on', () => {
    const optional = workflow([
      simple('pay', { name: 'pay', optional: true, inputParameters: { amount: 'x' } }),
      simple('next'),
    ]);
    const engine = new Engine(optional, {}, [payDef()]);
    const decision = engine.start();
    assert.equal(engine.task('pay').status, 'COMPLETED_WITH_ERRORS');
    assert.equal(engine.task('next').status, 'SCHEDULED');
    assert.equal(decision.run.status, 'RUNNING');
  });

  void it('a bad output fails the attempt (FAILED) and a retry is made', () => {
    const engine = new Engine(def, { input: { amount: 1, currency: 'USD' } }, [payDef()]);
    engine.start();
    const decision = engine.complete('t1', { receipt: 42 });
    const failed = decision.updatedTasks.find((t) => t.taskId === 't1')!;
    assert.equal(failed.status, 'FAILED');
    assert.match(failed.reasonForIncompletion ?? '', /outputSchema: \/receipt must be string/);
    assert.equal(failed.retried, true);
    const retry = decision.newTasks[0]!;
    assert.equal(retry.retryCount, 1);
    assert.equal(retry.status, 'SCHEDULED');
    // The retry's good output completes the run.
    const done = engine.complete(retry.taskId, { receipt: 'r-1' });
    assert.equal(done.run.status, 'COMPLETED');
  });

  void it('enforceSchema: false turns the checks off; a SchemaDef wrapper is unwrapped', () => {
    const off = new Engine(def, { input: { amount: 'x' } }, [payDef({ enforceSchema: false })]);
    assert.equal(off.start().newTasks[0]?.status, 'SCHEDULED');
    const wrapped = new Engine(def, { input: { amount: 'x' } }, [
      payDef({ inputSchema: { name: 'pay-in', type: 'JSON', data: inputSchema } }),
    ]);
    assert.equal(wrapped.start().newTasks[0]?.status, 'FAILED_WITH_TERMINAL_ERROR');
  });

  void it('an inline taskDefinition schema applies as a registered one does', () => {
    const inline = workflow([
      simple('pay', { name: 'pay', inputParameters: { amount: 'x' }, taskDefinition: payDef() }),
    ]);
    assert.equal(new Engine(inline).start().newTasks[0]?.status, 'FAILED_WITH_TERMINAL_ERROR');
  });
});
