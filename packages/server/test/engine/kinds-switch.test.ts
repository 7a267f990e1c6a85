import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowTask } from '@baton/protocol';
import { Engine, simple, workflow } from './helpers.js';
import { sandboxScripts } from './sandbox-scripts.js';

const testScripts = sandboxScripts();

function switchTask(extra: Partial<WorkflowTask> = {}): WorkflowTask {
  return {
    name: 'route',
    taskReferenceName: 'sw',
    type: 'SWITCH',
    evaluatorType: 'value-param',
    expression: 'kind',
    inputParameters: { kind: '${workflow.input.kind}' },
    decisionCases: { a: [simple('a1'), simple('a2')], b: [simple('b1')], none: [] },
    defaultCase: [simple('d1')],
    ...extra,
  };
}

function refs(engine: Engine): string[] {
  return engine.tasks.map((t) => t.referenceTaskName);
}

void describe('SWITCH', () => {
  const cases: Array<{
    title: string;
    input: Record<string, unknown>;
    first: string | undefined;
    selected: string;
  }> = [
    { title: 'value-param picks the named case', input: { kind: 'a' }, first: 'a1', selected: 'a' },
    { title: 'another case', input: { kind: 'b' }, first: 'b1', selected: 'b' },
    { title: 'an unknown case takes the default', input: { kind: 'zzz' }, first: 'd1', selected: 'zzz' },
    { title: 'a missing value is the case "null"', input: {}, first: 'd1', selected: 'null' },
    {
      title: 'an explicitly empty case runs nothing (no default)',
      input: { kind: 'none' },
      first: 'after',
      selected: 'none',
    },
  ];
  for (const c of cases) {
    void it(c.title, () => {
      const engine = new Engine(workflow([switchTask(), simple('after')]), { input: c.input as never });
      const decision = engine.start();
      const sw = engine.task('sw');
      assert.equal(sw.status, 'COMPLETED');
      assert.equal(sw.taskType, 'SWITCH');
      assert.deepEqual(sw.outputData, { evaluationResult: [c.selected], selectedCase: c.selected });
      assert.equal(sw.inputData.case, c.selected);
      assert.equal(sw.executed, true);
      assert.deepEqual(
        decision.newTasks.map((t) => t.referenceTaskName),
        ['sw', c.first],
      );
    });
  }

  void it('continues after the switch when the chosen branch ends, and completes the run', () => {
    const engine = new Engine(workflow([switchTask(), simple('after')]), { input: { kind: 'a' } });
    engine.start();
    engine.complete(engine.task('a1').taskId, { x: 1 });
    assert.equal(engine.task('a2').status, 'SCHEDULED');
    engine.complete(engine.task('a2').taskId);
    assert.deepEqual(refs(engine), ['sw', 'a1', 'a2', 'after']);
    engine.complete(engine.task('after').taskId, { done: true });
    assert.equal(engine.run.status, 'COMPLETED');
    assert.deepEqual(engine.run.output, { done: true });
  });

  void it('javascript evaluator runs through the script runner with $ bound to the input', () => {
    const engine = new Engine(
      workflow([
        switchTask({
          evaluatorType: 'javascript',
          expression: '$.n > 10 ? "a" : "b"',
          inputParameters: { n: '${workflow.input.n}' },
        }),
      ]),
      { input: { n: 42 } },
    );
    engine.scripts = testScripts;
    engine.start();
    assert.equal(engine.task('sw').outputData.selectedCase, 'a');
    assert.equal(engine.task('a1').status, 'SCHEDULED');
  });

  void it('a number or boolean result is stringified as Java does', () => {
    const engine = new Engine(
      workflow([
        switchTask({
          evaluatorType: 'javascript',
          expression: '$.n + 1',
          inputParameters: { n: 1 },
          decisionCases: { '2': [simple('two')] },
        }),
      ]),
    );
    engine.scripts = testScripts;
    engine.start();
    assert.equal(engine.task('sw').outputData.selectedCase, '2');
    assert.equal(engine.task('two').status, 'SCHEDULED');
  });

  void it('a script error fails the SWITCH with the error, and the run', () => {
    const engine = new Engine(
      workflow([switchTask({ evaluatorType: 'javascript', expression: 'throw new Error("bad case")' })]),
    );
    engine.scripts = testScripts;
    engine.start();
    const sw = engine.task('sw');
    assert.equal(sw.status, 'FAILED');
    assert.equal(sw.reasonForIncompletion, 'Error: bad case');
    assert.equal(engine.run.status, 'FAILED');
    assert.equal(
      engine.run.reasonForIncompletion,
      "Task sw failed with status: FAILED and reason: 'Error: bad case'",
    );
  });

  void it('an optional SWITCH whose script fails is passed over whole', () => {
    const engine = new Engine(
      workflow([
        switchTask({ evaluatorType: 'javascript', expression: 'nope(', optional: true }),
        simple('after'),
      ]),
    );
    engine.scripts = testScripts;
    engine.start();
    assert.equal(engine.task('sw').status, 'COMPLETED_WITH_ERRORS');
    assert.deepEqual(refs(engine), ['sw', 'after']);
  });

  void it("an unknown evaluator fails the run with Conductor's message", () => {
    const engine = new Engine(workflow([switchTask({ evaluatorType: 'python' })]));
    engine.start();
    assert.equal(engine.run.status, 'FAILED');
    assert.equal(engine.run.reasonForIncompletion, 'No evaluator registered for type: python');
  });

  void it('is never retried (built-in)', () => {
    const engine = new Engine(
      workflow([switchTask({ evaluatorType: 'javascript', expression: 'x.y', retryCount: 3 })]),
    );
    engine.scripts = testScripts;
    engine.start();
    assert.equal(engine.all('sw').length, 1);
    assert.equal(engine.run.status, 'FAILED');
  });

  void it('nested switches continue after the outer one when the inner branch ends', () => {
    const inner = switchTask({
      taskReferenceName: 'inner',
      expression: 'k2',
      inputParameters: { k2: '${workflow.input.k2}' },
      decisionCases: { x: [simple('x1')] },
      defaultCase: [],
    });
    const outer = switchTask({ decisionCases: { a: [inner, simple('a_last')] }, defaultCase: [] });
    const engine = new Engine(workflow([outer, simple('after')]), { input: { kind: 'a', k2: 'x' } });
    engine.start();
    assert.deepEqual(refs(engine), ['sw', 'inner', 'x1']);
    engine.complete(engine.task('x1').taskId);
    assert.deepEqual(refs(engine), ['sw', 'inner', 'x1', 'a_last']);
    engine.complete(engine.task('a_last').taskId);
    assert.deepEqual(refs(engine), ['sw', 'inner', 'x1', 'a_last', 'after']);
  });

  void it('a switch that is the last task completes the run when its branch ends', () => {
    const engine = new Engine(workflow([switchTask()]), { input: { kind: 'b' } });
    engine.start();
    assert.equal(engine.run.status, 'RUNNING');
    engine.complete(engine.task('b1').taskId, { r: 1 });
    assert.equal(engine.run.status, 'COMPLETED');
  });

  void it('an empty default with an unknown case completes at once', () => {
    const engine = new Engine(workflow([switchTask({ defaultCase: [] })]), { input: { kind: '?' } });
    engine.start();
    assert.equal(engine.run.status, 'COMPLETED');
  });
});

void describe('DECISION (deprecated)', () => {
  function decision(extra: Partial<WorkflowTask> = {}): WorkflowTask {
    return {
      name: 'decide',
      taskReferenceName: 'dec',
      type: 'DECISION',
      caseValueParam: 'kind',
      inputParameters: { kind: '${workflow.input.kind}' },
      decisionCases: { a: [simple('a1')], empty: [] },
      defaultCase: [simple('d1')],
      ...extra,
    };
  }

  void it('caseValueParam picks the case; output caseOutput', () => {
    const engine = new Engine(workflow([decision()]), { input: { kind: 'a' } });
    engine.start();
    const dec = engine.task('dec');
    assert.deepEqual(dec.outputData, { caseOutput: ['a'] });
    assert.equal(dec.inputData.case, 'a');
    assert.equal(engine.task('a1').status, 'SCHEDULED');
  });

  void it('an empty case falls back to the default (unlike SWITCH)', () => {
    const engine = new Engine(workflow([decision()]), { input: { kind: 'empty' } });
    engine.start();
    assert.equal(engine.task('d1').status, 'SCHEDULED');
  });

  void it('caseExpression is JavaScript with $ bound to the input', () => {
    const engine = new Engine(
      workflow([decision({ caseValueParam: undefined, caseExpression: '$.kind === "q" ? "a" : "other"' })]),
      { input: { kind: 'q' } },
    );
    engine.scripts = testScripts;
    engine.start();
    assert.deepEqual(engine.task('dec').outputData, { caseOutput: ['a'] });
  });
});
