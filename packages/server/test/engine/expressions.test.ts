import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonValue, TaskRecord } from '@baton/protocol';
import {
  buildExpressionDocument,
  referencedTaskRefs,
  resolveParameters,
  resolveValue,
} from '../../src/engine/expressions.js';
import { deepFreeze, newRun, simple, workflow } from './helpers.js';

const run = newRun(workflow([simple('t1'), simple('my-task')]), {
  input: {
    n: 5,
    name: 'ann',
    flag: true,
    nothing: null,
    key: 'name',
    list: [
      { id: 'a', price: 5 },
      { id: 'b', price: 50 },
    ],
    obj: { x: 1 },
  },
  correlationId: 'corr-1',
});

function task(ref: string, extra: Partial<TaskRecord>): TaskRecord {
  return {
    taskId: `${ref}-id`,
    workflowInstanceId: run.workflowId,
    workflowType: 'wf',
    taskType: 'T',
    taskDefName: 'T',
    referenceTaskName: ref,
    status: 'COMPLETED',
    seq: 1,
    retryCount: 0,
    inputData: {},
    outputData: {},
    pollCount: 1,
    scheduledTime: 1,
    startTime: 2,
    endTime: 3,
    updateTime: 3,
    startDelayInSeconds: 0,
    callbackAfterSeconds: 0,
    responseTimeoutSeconds: 10,
    retried: false,
    executed: true,
    workflowPriority: 0,
    iteration: 0,
    workflowTask: simple(ref),
    ...extra,
  };
}

const tasks = deepFreeze([
  task('t1', { taskId: 'old', status: 'FAILED', outputData: { items: [{ v: 'old' }] }, retried: true }),
  task('t1', {
    seq: 2,
    retryCount: 1,
    outputData: { items: [{ v: 1, tag: 'x' }, { v: 2 }], text: 'hi' },
    workerId: 'w-7',
  }),
  task('my-task', { seq: 3, outputData: { v: 9 } }),
  task('loop__2', { seq: 4, iteration: 2, outputData: { round: 2 } }),
]);
const doc = buildExpressionDocument(deepFreeze(run), tasks);

void describe('expressions', () => {
  const cases: Array<{ title: string; value: JsonValue; expected: JsonValue }> = [
    { title: 'typed number', value: '${workflow.input.n}', expected: 5 },
    { title: 'typed boolean', value: '${workflow.input.flag}', expected: true },
    { title: 'typed null', value: '${workflow.input.nothing}', expected: null },
    { title: 'typed object', value: '${workflow.input.obj}', expected: { x: 1 } },
    { title: 'typed array', value: '${t1.output.items}', expected: [{ v: 1, tag: 'x' }, { v: 2 }] },
    { title: 'leading $.', value: '${$.workflow.input.n}', expected: 5 },
    {
      title: 'interpolation',
      value: 'n=${workflow.input.n}, ${workflow.input.name}!',
      expected: 'n=5, ann!',
    },
    { title: 'interpolated object as JSON', value: 'o=${workflow.input.obj}', expected: 'o={"x":1}' },
    { title: 'missing → null', value: '${workflow.input.nope.deeper}', expected: null },
    { title: 'missing task → null', value: '${ghost.output.x}', expected: null },
    { title: 'missing interpolated → "null"', value: 'x=${workflow.input.nope}', expected: 'x=null' },
    { title: 'nested inside-out', value: '${workflow.input.${workflow.input.key}}', expected: 'ann' },
    { title: 'escape', value: '$${workflow.input.n}', expected: '${workflow.input.n}' },
    { title: 'escape next to an expression', value: '$${a} ${workflow.input.n}', expected: '${a} 5' },
    { title: 'empty expression', value: 'a${}b', expected: 'ab' },
    { title: 'index [0]', value: '${t1.output.items[0].v}', expected: 1 },
    { title: 'bracket key', value: "${t1.output['text']}", expected: 'hi' },
    { title: 'deep scan ..', value: '${t1.output..v}', expected: [1, 2] },
    { title: 'wildcard', value: '${workflow.input.list[*].id}', expected: ['a', 'b'] },
    { title: 'filter', value: '${workflow.input.list[?(@.price > 10)].id}', expected: ['b'] },
    { title: 'filter with no match', value: '${workflow.input.list[?(@.price > 100)].id}', expected: [] },
    { title: 'length()', value: '${workflow.input.list.length()}', expected: 2 },
    { title: 'latest attempt of a ref', value: '${t1.retryCount}', expected: 1 },
    {
      title: 'task fields',
      value: '${t1.workerId}/${t1.status}/${t1.taskId}',
      expected: 'w-7/COMPLETED/t1-id',
    },
    { title: 'hyphenated ref', value: '${my-task.output.v}', expected: 9 },
    { title: 'loop ref without __N', value: '${loop.output.round}', expected: 2 },
    {
      title: 'workflow fields',
      value: '${workflow.workflowId}|${workflow.correlationId}|${workflow.status}',
      expected: 'wf-1|corr-1|RUNNING',
    },
    {
      title: 'workflow type and version',
      value: '${workflow.workflowType}:${workflow.version}',
      expected: 'wf:1',
    },
    { title: 'no expression', value: 'plain $ { text }', expected: 'plain $ { text }' },
    { title: 'unclosed', value: 'x ${workflow.input.n', expected: 'x ${workflow.input.n' },
    {
      title: 'recursive into objects and arrays',
      value: { a: ['${workflow.input.n}', { b: '${workflow.input.name}' }], c: 3 },
      expected: { a: [5, { b: 'ann' }], c: 3 },
    },
  ];
  for (const c of cases) {
    void it(c.title, () => {
      assert.deepEqual(resolveValue(c.value, doc), c.expected);
    });
  }

  void it('CPEWF_TASK_ID is the id of the task being made', () => {
    assert.equal(resolveValue('${CPEWF_TASK_ID}', doc, { taskId: 'new-1' }), 'new-1');
    assert.equal(resolveValue('id:${CPEWF_TASK_ID}', doc, { taskId: 'new-1' }), 'id:new-1');
  });

  void it('never reads environment variables', () => {
    process.env.BATON_TEST_SECRET = 'leak';
    try {
      for (const expr of [
        '${BATON_TEST_SECRET}',
        '${HOME}',
        '${PATH}',
        '${NETFLIX_ENV}',
        '${workflow.env.HOME}',
      ]) {
        assert.equal(resolveValue(expr, doc), null, expr);
      }
      const escapeAttempt =
        "${workflow.input.list[?(@.constructor.constructor('return process')().env.BATON_TEST_SECRET)]}";
      assert.deepEqual(resolveValue(escapeAttempt, doc), []);
      assert.equal(resolveValue('${workflow.input.constructor}', doc), null);
      assert.equal(resolveValue('${workflow.input.__proto__}', doc), null);
    } finally {
      delete process.env.BATON_TEST_SECRET;
    }
  });

  void it('copies what it yields: nothing is shared with the records', () => {
    const out = resolveParameters({ o: '${t1.output.items}' }, doc);
    assert.notEqual(out.o, tasks[1]!.outputData.items);
    assert.equal(Object.isFrozen(out.o), false);
  });

  void it('does not change the parameters it is given', () => {
    const params = deepFreeze({ a: '${workflow.input.n}', b: ['${workflow.input.name}'] });
    resolveParameters(params, doc);
    assert.deepEqual(params, { a: '${workflow.input.n}', b: ['${workflow.input.name}'] });
  });

  void it('referencedTaskRefs: the first segment of every expression, nested ones included', () => {
    assert.deepEqual(
      referencedTaskRefs({
        a: '${t1.output.x} and ${workflow.input.${t2.output.key}}',
        b: ['${$.t3.output}', "${['t4'].output}", '${t5[0]}', '$${escaped.x}', '${CPEWF_TASK_ID}'],
        c: 5,
      }),
      ['t1', 'workflow', 't2', 't3', 't4', 't5', 'CPEWF_TASK_ID'],
    );
  });
});
