import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { JsonObject, WorkflowTask } from '@baton/protocol';

import { MAX_RECORD_DEPTH } from '../../src/bounds/ranges.js';

import { Engine, fork, join, simple, workflow } from './helpers.js';

/**
 * What the engine assembles from other payloads is bounded by `maxOutputBytes`
 * (BATON_PAYLOAD_MAX_BYTES), counted in UTF-8 bytes of its JSON: a JOIN's or DO_WHILE's output
 * (over it the task fails with a terminal error in Conductor's words, keeping no output), a
 * task's input and a run's output (over it the run fails, naming the task or the run).
 */

/** A DO_WHILE over the run's `list` input, one iteration an item (no script needed). */
function eachOf(ref: string, loopOver: WorkflowTask[]): WorkflowTask {
  return { name: ref, taskReferenceName: ref, type: 'DO_WHILE', items: '${workflow.input.list}', loopOver };
}

const forkJoin = () =>
  workflow([
    fork('fork', [[simple('a')], [simple('b')], [simple('c')]]),
    join('join', ['a', 'b', 'c']),
    simple('after'),
  ]);

const outputs = {
  a: { text: 'déjà vu 🎼', n: 1 },
  b: { list: ['x'.repeat(100), null, true] },
  c: { nested: { deep: 'ü' } },
};
const joinedBytes = Buffer.byteLength(JSON.stringify(outputs));

function joined(limit: number): Engine {
  const engine = new Engine(forkJoin());
  engine.maxOutputBytes = limit;
  engine.start();
  for (const ref of ['a', 'b', 'c'] as const) engine.complete(engine.task(ref).taskId, outputs[ref]);
  return engine;
}

void describe('payloads the engine assembles have a bound', () => {
  void it('a JOIN whose output is exactly at the bound completes with it', () => {
    const engine = joined(joinedBytes);
    assert.equal(engine.task('join').status, 'COMPLETED');
    assert.deepEqual(engine.task('join').outputData, outputs);
    assert.equal(engine.task('after').status, 'SCHEDULED');
  });

  void it('one byte over, the JOIN fails with a terminal error and no output, and so does the run', () => {
    const engine = joined(joinedBytes - 1);
    const task = engine.task('join');
    assert.equal(task.status, 'FAILED_WITH_TERMINAL_ERROR');
    assert.deepEqual(task.outputData, {});
    assert.equal(
      task.reasonForIncompletion,
      `The payload size: ${joinedBytes} of task: ${task.taskId} in workflow: ${engine.run.workflowId} is greater than the permissible limit: ${joinedBytes - 1} bytes` +
        " (BATON_PAYLOAD_MAX_BYTES: a JOIN's output holds every branch's output; keep large outputs in external storage and pass on their paths)",
    );
    assert.equal(engine.run.status, 'FAILED');
    assert.match(
      engine.run.reasonForIncompletion ?? '',
      /^Task join failed with status: FAILED_WITH_TERMINAL_ERROR/,
    );
    assert.ok(!engine.tasks.some((t) => t.referenceTaskName === 'after'), 'nothing after the join ran');
  });

  void it('counts only until the bound is passed, and says so', () => {
    // Room for the JOIN's own input ({"joinOn":["a","b","c"]}), not for a's output.
    const engine = joined(30);
    const reason = engine.task('join').reasonForIncompletion ?? '';
    // {"a":…} alone passes 30 bytes: b and c are not serialized.
    const first = Buffer.byteLength(JSON.stringify({ a: outputs.a }));
    assert.match(reason, new RegExp(`^The payload size: over ${first} of task: `));
  });

  void it('a DO_WHILE whose iterations outgrow the bound fails at the iteration that passes it', () => {
    const engine = new Engine(workflow([eachOf('each', [simple('f')])]), {
      input: { list: [1, 2, 3, 4] },
    });
    const one = { f: { blob: 'y'.repeat(200) } };
    // Room for one iteration's output, not two.
    engine.maxOutputBytes = Buffer.byteLength(JSON.stringify({ 1: one, iteration: 1 })) + 100;
    engine.start();
    engine.complete(engine.task('f__1').taskId, one.f);
    assert.equal(engine.task('each').status, 'IN_PROGRESS');
    engine.complete(engine.task('f__2').taskId, one.f);
    const task = engine.task('each');
    assert.equal(task.status, 'FAILED_WITH_TERMINAL_ERROR');
    assert.deepEqual(task.outputData, {});
    assert.match(task.reasonForIncompletion ?? '', /a DO_WHILE's output holds every iteration's output/);
    assert.equal(engine.run.status, 'FAILED');
    assert.ok(!engine.tasks.some((t) => t.referenceTaskName === 'f__3'), 'no third iteration');
  });

  void it('a task whose inputParameters resolve past the bound is not scheduled: the run fails, naming it', () => {
    const engine = new Engine(
      workflow([
        simple('make'),
        simple('use', { inputParameters: { one: '${make.output.big}', two: '${make.output.big}' } }),
      ]),
    );
    const big = 'z'.repeat(400);
    // One copy fits, two do not.
    engine.maxOutputBytes = 600;
    engine.start();
    engine.complete(engine.task('make').taskId, { big });
    assert.equal(engine.run.status, 'FAILED');
    assert.ok(!engine.tasks.some((t) => t.referenceTaskName === 'use'), 'no task use was made');
    assert.equal(
      engine.run.reasonForIncompletion,
      `The input payload size: ${Buffer.byteLength(JSON.stringify({ one: big, two: big }))} of task: use in workflow: ${engine.run.workflowId} is greater than the permissible limit: 600 bytes (BATON_PAYLOAD_MAX_BYTES: its inputParameters resolve to that much; pass large payloads on by their external storage paths)`,
    );
  });

  void it('a run whose outputParameters resolve past the bound fails instead of completing, keeping no output', () => {
    const engine = new Engine(
      workflow([simple('make')], {
        outputParameters: { one: '${make.output.big}', two: '${make.output.big}' },
      }),
    );
    const big = 'q'.repeat(400);
    engine.maxOutputBytes = 600;
    engine.start();
    engine.complete(engine.task('make').taskId, { big });
    assert.equal(engine.run.status, 'FAILED');
    assert.deepEqual(engine.run.output, {});
    assert.equal(
      engine.run.reasonForIncompletion,
      `The output payload size: ${Buffer.byteLength(JSON.stringify({ one: big, two: big }))}B of workflow: ${engine.run.workflowId} is greater than the permissible limit: 600 bytes (BATON_PAYLOAD_MAX_BYTES: its outputParameters resolve to that much; pass large payloads on by their external storage paths)`,
    );
    // At the bound it completes with it.
    const fits = new Engine(
      workflow([simple('make')], {
        outputParameters: { one: '${make.output.big}', two: '${make.output.big}' },
      }),
    );
    fits.maxOutputBytes = Buffer.byteLength(JSON.stringify({ one: big, two: big }));
    fits.start();
    fits.complete(fits.task('make').taskId, { big });
    assert.equal(fits.run.status, 'COMPLETED');
    assert.deepEqual(fits.run.output, { one: big, two: big });
  });
});

/** `levels` containers one inside the other: `{"n":{"n":…{}}}`. */
function nestOf(levels: number): JsonObject {
  let value: JsonObject = {};
  for (let i = 1; i < levels; i++) value = { n: value };
  return value;
}

void describe('payloads the engine assembles have a depth bound', () => {
  // Past a few thousand levels every recursive walk of a value (serializing the record,
  // resolving expressions) overflows the stack; MAX_RECORD_DEPTH keeps records far below that.
  void it('a task whose input nests past MAX_RECORD_DEPTH is not scheduled: the run fails, naming it', () => {
    const run = (levels: number): Engine => {
      const engine = new Engine(
        workflow([simple('make'), simple('use', { inputParameters: { x: { y: '${make.output.v}' } } })]),
      );
      engine.start();
      engine.complete(engine.task('make').taskId, { v: nestOf(levels) });
      return engine;
    };
    // The input object, x's object, then v.
    const fits = run(MAX_RECORD_DEPTH - 2);
    assert.equal(fits.task('use').status, 'SCHEDULED');
    const deep = run(MAX_RECORD_DEPTH - 1);
    assert.equal(deep.run.status, 'FAILED');
    assert.ok(!deep.tasks.some((t) => t.referenceTaskName === 'use'), 'no task use was made');
    assert.equal(
      deep.run.reasonForIncompletion,
      `The input of task: use in workflow: ${deep.run.workflowId} is nested deeper than ${MAX_RECORD_DEPTH} levels (the limit of what the engine assembles): its inputParameters nest the values they name inside each other`,
    );
  });

  void it('variables that a loop wraps in themselves fail the run at the bound instead of growing until the stack overflows', () => {
    const engine = new Engine(
      workflow([
        eachOf('each', [
          {
            name: 'wrap',
            taskReferenceName: 'wrap',
            type: 'SET_VARIABLE',
            inputParameters: { v: { x: '${workflow.variables.v}' } },
          },
        ]),
      ]),
      { input: { list: Array.from({ length: 1000 }, (_, i) => i) } },
    );
    engine.start();
    assert.equal(engine.run.status, 'FAILED');
    assert.match(
      engine.run.reasonForIncompletion ?? '',
      new RegExp(
        `^The input of task: wrap__\\d+ in workflow: .* is nested deeper than ${MAX_RECORD_DEPTH} levels`,
      ),
    );
    // Each iteration nests v one level deeper (x's object); the input adds its own object and x's.
    const iterations = engine.tasks.filter((t) => t.taskType === 'SET_VARIABLE').length;
    assert.equal(
      iterations,
      MAX_RECORD_DEPTH - 1,
      'the first iteration whose input would be too deep is not made',
    );
  });

  void it('a JOIN whose output nests past the bound fails with a terminal error and no output', () => {
    const engine = new Engine(forkJoin());
    engine.start();
    engine.complete(engine.task('a').taskId, { v: nestOf(MAX_RECORD_DEPTH - 1) });
    engine.complete(engine.task('b').taskId, {});
    engine.complete(engine.task('c').taskId, {});
    const task = engine.task('join');
    assert.equal(task.status, 'FAILED_WITH_TERMINAL_ERROR');
    assert.deepEqual(task.outputData, {});
    assert.equal(
      task.reasonForIncompletion,
      `The output of task: ${task.taskId} in workflow: ${engine.run.workflowId} is nested deeper than ${MAX_RECORD_DEPTH} levels (the limit of what the engine assembles): a JOIN's output holds every branch's output`,
    );
    assert.equal(engine.run.status, 'FAILED');
  });

  void it('a run whose output nests past the bound fails, keeping no output', () => {
    const engine = new Engine(
      workflow([simple('make')], { outputParameters: { o: { p: '${make.output.v}' } } }),
    );
    engine.start();
    engine.complete(engine.task('make').taskId, { v: nestOf(MAX_RECORD_DEPTH - 1) });
    assert.equal(engine.run.status, 'FAILED');
    assert.deepEqual(engine.run.output, {});
    assert.equal(
      engine.run.reasonForIncompletion,
      `The output of workflow: ${engine.run.workflowId} is nested deeper than ${MAX_RECORD_DEPTH} levels (the limit of what the engine assembles): its outputParameters nest the values they name inside each other`,
    );
  });
});
