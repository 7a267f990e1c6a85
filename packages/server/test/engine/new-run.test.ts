import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newRunRecord } from '../../src/engine/new-run.js';
import { deepFreeze, T0, simple, workflow } from './helpers.js';

void describe('newRunRecord', () => {
  void it('makes a RUNNING run with template input, definition variables and empty lists', () => {
    const definition = deepFreeze(
      workflow([simple('a')], {
        version: 4,
        inputTemplate: { size: 10, mode: 'fast' },
        variables: { counter: 0, nested: { a: 1 } },
      }),
    );
    const input = deepFreeze({ size: 3 });
    const run = newRunRecord({
      workflowId: 'id-1',
      definition,
      input,
      correlationId: 'corr',
      priority: 7,
      taskToDomain: { '*': 'eu' },
      idempotencyKey: 'k',
      parentWorkflowId: 'p',
      parentWorkflowTaskId: 'pt',
      now: T0,
    });
    assert.deepEqual(run, {
      workflowId: 'id-1',
      workflowName: 'wf',
      workflowVersion: 4,
      status: 'RUNNING',
      input: { size: 3, mode: 'fast' },
      output: {},
      variables: { counter: 0, nested: { a: 1 } },
      correlationId: 'corr',
      priority: 7,
      taskToDomain: { '*': 'eu' },
      failedReferenceTaskNames: [],
      failedTaskNames: [],
      idempotencyKey: 'k',
      parentWorkflowId: 'p',
      parentWorkflowTaskId: 'pt',
      createTime: T0,
      updateTime: T0,
      endTime: 0,
      links: {},
      workflowDefinition: definition,
    });
    assert.notEqual(run.variables, definition.variables, 'variables are a copy');
    assert.equal(Object.isFrozen(run.variables), false);
  });

  void it('leaves optional fields out when not given', () => {
    const run = newRunRecord({
      workflowId: 'x',
      definition: workflow([simple('a')]),
      input: {},
      priority: 0,
      taskToDomain: {},
      now: 1,
    });
    assert.equal('correlationId' in run, false);
    assert.equal('idempotencyKey' in run, false);
    assert.deepEqual(run.variables, {});
  });
});
