import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { WorkflowTask } from '@baton/protocol';
import { checkWorkflowDef } from '../../src/engine/validation/check-workflow-def.js';
import { Engine, simple, workflow } from './helpers.js';
import { sandboxScripts } from './sandbox-scripts.js';

const scripts = sandboxScripts();

function runOne(task: WorkflowTask, input = {}): Engine {
  const engine = new Engine(workflow([task, simple('after')]), { input });
  engine.scripts = scripts;
  engine.start();
  return engine;
}

const inline = (inputParameters: Record<string, unknown>): WorkflowTask => ({
  name: 'calc',
  taskReferenceName: 'calc',
  type: 'INLINE',
  inputParameters: inputParameters as never,
});

describe('script kinds in the interpreter', () => {
  const cases: {
    name: string;
    task: WorkflowTask;
    input?: Record<string, unknown>;
    status: string;
    output: unknown;
    reason?: RegExp;
  }[] = [
    {
      name: 'INLINE javascript: result of the last expression, $ = task input',
      task: inline({ n: '${workflow.input.n}', expression: 'if ($.n > 1) { $.n * 2; } else { 0; }' }),
      input: { n: 3 },
      status: 'COMPLETED',
      output: { result: 6 },
    },
    {
      name: 'INLINE graaljs is javascript',
      task: inline({ evaluatorType: 'graaljs', expression: '[$.a, $.b].join("-")', a: 'x', b: 'y' }),
      status: 'COMPLETED',
      output: { result: 'x-y' },
    },
    {
      name: 'INLINE value-param',
      task: inline({ evaluatorType: 'value-param', expression: 'pick', pick: { v: 1 } }),
      status: 'COMPLETED',
      output: { result: { v: 1 } },
    },
    {
      name: 'INLINE script error: terminal failure with output error',
      task: inline({ expression: 'throw new Error("bad input")' }),
      status: 'FAILED_WITH_TERMINAL_ERROR',
      output: { error: 'Error: bad input' },
      reason: /^Error: bad input$/,
    },
    {
      name: 'INLINE endless loop: fails at the time cap',
      task: inline({ expression: 'while (true) {}' }),
      status: 'FAILED_WITH_TERMINAL_ERROR',
      output: { error: 'script exceeded its time limit of 1000 ms' },
      reason: /time limit/,
    },
    {
      name: 'INLINE unknown evaluator',
      task: inline({ evaluatorType: 'python', expression: '1' }),
      status: 'FAILED',
      output: { error: "Unknown evaluator 'python' in INLINE task." },
      reason: /Unknown evaluator/,
    },
    {
      name: 'INLINE expression resolving to nothing',
      task: inline({ expression: '${workflow.input.missing}' }),
      status: 'FAILED',
      output: {
        error:
          "Empty 'evaluatorType' or 'expression' in INLINE task's input parameters. A non-empty String value must be provided.",
      },
      reason: /Empty 'evaluatorType' or 'expression'/,
    },
    {
      name: 'LAMBDA: a function body with return',
      task: {
        name: 'l',
        taskReferenceName: 'calc',
        type: 'LAMBDA',
        inputParameters: { a: 2, scriptExpression: 'if ($.a > 1) return {big: true}; return {big: false};' },
      },
      status: 'COMPLETED',
      output: { result: { big: true } },
    },
    {
      name: 'LAMBDA error: FAILED with output error',
      task: {
        name: 'l',
        taskReferenceName: 'calc',
        type: 'LAMBDA',
        inputParameters: { scriptExpression: 'return $.x.y;' },
      },
      status: 'FAILED',
      output: { error: "TypeError: cannot read property 'y' of undefined" },
      reason: /TypeError/,
    },
    {
      name: 'JSON_JQ_TRANSFORM: result and resultList',
      task: {
        name: 'jq',
        taskReferenceName: 'calc',
        type: 'JSON_JQ_TRANSFORM',
        inputParameters: { list: [1, 2, 3], queryExpression: '.list[] | select(. > 1)' },
      },
      status: 'COMPLETED',
      output: { result: 2, resultList: [2, 3] },
    },
    {
      name: 'JSON_JQ_TRANSFORM: no output gives result null',
      task: {
        name: 'jq',
        taskReferenceName: 'calc',
        type: 'JSON_JQ_TRANSFORM',
        inputParameters: { queryExpression: 'empty' },
      },
      status: 'COMPLETED',
      output: { result: null, resultList: [] },
    },
    {
      name: 'JSON_JQ_TRANSFORM error: FAILED with output error',
      task: {
        name: 'jq',
        taskReferenceName: 'calc',
        type: 'JSON_JQ_TRANSFORM',
        inputParameters: { queryExpression: 'error("nope")' },
      },
      status: 'FAILED',
      output: { error: 'nope' },
      reason: /nope/,
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const engine = runOne(c.task, c.input);
      const task = engine.task('calc');
      assert.equal(task.status, c.status);
      assert.deepEqual(task.outputData, c.output);
      if (c.reason) {
        assert.match(task.reasonForIncompletion ?? '', c.reason);
        assert.equal(engine.run.status, 'FAILED');
        assert.match(engine.run.reasonForIncompletion ?? '', /^Task calc failed with status: FAILED/);
      } else {
        assert.equal(engine.run.status, 'RUNNING');
        assert.equal(
          engine.task('after').status,
          'SCHEDULED',
          'the next task is scheduled in the same decide',
        );
      }
    });
  }

  it('an optional failing script lets the run go on', () => {
    const engine = runOne({ ...inline({ expression: 'throw 1' }), optional: true });
    assert.equal(engine.task('calc').status, 'COMPLETED_WITH_ERRORS');
    assert.equal(engine.run.status, 'RUNNING');
  });
});

describe('script kinds at registration', () => {
  const ctx = () => ({ taskDefNames: new Set<string>(), scripts });
  const problems = (task: WorkflowTask) => checkWorkflowDef(workflow([task]), ctx());

  it('accepts good scripts and filters', () => {
    assert.deepEqual(problems(inline({ expression: '$.a + 1' })), []);
    assert.deepEqual(problems(inline({ expression: '${workflow.input.script}' })), []);
    assert.deepEqual(
      problems({
        name: 'l',
        taskReferenceName: 'l',
        type: 'LAMBDA',
        inputParameters: { scriptExpression: 'return 1;' },
      }),
      [],
    );
    assert.deepEqual(
      problems({
        name: 'j',
        taskReferenceName: 'j',
        type: 'JSON_JQ_TRANSFORM',
        inputParameters: { queryExpression: '.a' },
      }),
      [],
    );
  });

  it('names the task and field of a script that does not parse or a filter that does not compile', () => {
    const js = problems(inline({ expression: '$.a +' }));
    assert.equal(js.length, 1);
    assert.equal(js[0]?.path, 'tasks[0].inputParameters.expression');
    assert.match(js[0]?.message ?? '', /INLINE task calc does not parse: SyntaxError/);
    const jq = problems({
      name: 'j',
      taskReferenceName: 'j',
      type: 'JSON_JQ_TRANSFORM',
      inputParameters: { queryExpression: '.a |' },
    });
    assert.equal(jq[0]?.path, 'tasks[0].inputParameters.queryExpression');
    assert.match(jq[0]?.message ?? '', /JSON_JQ_TRANSFORM task j does not compile: .*syntax error/);
  });

  it('requires the script fields', () => {
    const missing = problems({
      name: 'j',
      taskReferenceName: 'j',
      type: 'JSON_JQ_TRANSFORM',
      inputParameters: {},
    });
    assert.equal(missing[0]?.path, 'tasks[0].inputParameters.queryExpression');
    assert.match(
      missing[0]?.message ?? '',
      /queryExpression field is required for taskType: JSON_JQ_TRANSFORM taskName: j/,
    );
    assert.equal(problems(inline({}))[0]?.path, 'tasks[0].inputParameters.expression');
    assert.equal(
      problems({ name: 'l', taskReferenceName: 'l', type: 'LAMBDA' })[0]?.path,
      'tasks[0].inputParameters.scriptExpression',
    );
  });
});
