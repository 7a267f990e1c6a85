import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ValidationError } from '@baton/protocol';
import { workerTaskNames } from '../../src/engine/graph.js';
import { checkWorkflowDef } from '../../src/engine/validation/check-workflow-def.js';
import { sandboxScripts } from './sandbox-scripts.js';

const testScripts = sandboxScripts();

const ctx = { taskDefNames: new Set<string>(), scripts: testScripts };

function def(tasks: unknown[]): Record<string, unknown> {
  return { name: 'wf', schemaVersion: 2, tasks };
}
const w = (ref: string) => ({ name: `${ref}_type`, taskReferenceName: ref });

const validSwitch = {
  name: 'route',
  taskReferenceName: 'sw',
  type: 'SWITCH',
  evaluatorType: 'javascript',
  expression: '$.x > 1 ? "a" : "b"',
  decisionCases: { a: [w('a1')] },
};

void describe('registration checks of control-flow kinds', () => {
  void it('accepts valid definitions of every kind', () => {
    const tasks = [
      validSwitch,
      {
        name: 'dec',
        taskReferenceName: 'dec',
        type: 'DECISION',
        caseValueParam: 'c',
        inputParameters: { c: 1 },
        decisionCases: { '1': [w('d1')] },
      },
      { name: 'f', taskReferenceName: 'f', type: 'FORK_JOIN', forkTasks: [[w('b1')], [w('b2')]] },
      { name: 'j', taskReferenceName: 'j', type: 'JOIN', joinOn: ['b1', 'b2'] },
      {
        name: 'df',
        taskReferenceName: 'df',
        type: 'FORK_JOIN_DYNAMIC',
        dynamicForkTasksParam: 'tasks',
        dynamicForkTasksInputParamName: 'inputs',
        inputParameters: { tasks: '${workflow.input.t}', inputs: '${workflow.input.i}' },
      },
      { name: 'dj', taskReferenceName: 'dj', type: 'JOIN' },
      {
        name: 'loop',
        taskReferenceName: 'loop',
        type: 'DO_WHILE',
        loopCondition: "if ($.loop['iteration'] < 3) { true; } else { false; }",
        loopOver: [w('l1')],
        inputParameters: { keepLastN: 2 },
      },
      {
        name: 'each',
        taskReferenceName: 'each',
        type: 'DO_WHILE',
        items: '${workflow.input.list}',
        loopOver: [w('e1')],
      },
      {
        name: 'xj',
        taskReferenceName: 'xj',
        type: 'EXCLUSIVE_JOIN',
        joinOn: ['a1'],
        defaultExclusiveJoinTask: ['d1'],
      },
      { name: 'set', taskReferenceName: 'set', type: 'SET_VARIABLE', inputParameters: { v: 1 } },
      { name: 'n', taskReferenceName: 'n', type: 'NOOP' },
      {
        name: 'dyn',
        taskReferenceName: 'dyn',
        type: 'DYNAMIC',
        dynamicTaskNameParam: 't',
        inputParameters: { t: 'x' },
      },
      { name: 'wait', taskReferenceName: 'wait', type: 'WAIT', inputParameters: { duration: '5 mins' } },
      {
        name: 'until',
        taskReferenceName: 'until',
        type: 'WAIT',
        inputParameters: { until: '2030-01-01 10:00 UTC' },
      },
      { name: 'h', taskReferenceName: 'h', type: 'HUMAN', instructions: 'guide', assignee: 'ann' },
      {
        name: 'stop',
        taskReferenceName: 'stop',
        type: 'TERMINATE',
        inputParameters: { terminationStatus: 'COMPLETED' },
      },
    ];
    assert.deepEqual(checkWorkflowDef(def(tasks), ctx), []);
  });

  const cases: Array<{
    title: string;
    task: Record<string, unknown>;
    after?: Record<string, unknown>;
    errors: ValidationError[];
  }> = [
    {
      title: 'SWITCH without evaluatorType, expression and cases',
      task: { name: 'route', taskReferenceName: 'sw', type: 'SWITCH' },
      errors: [
        {
          path: 'tasks[0].evaluatorType',
          message: 'evaluatorType field is required for taskType: SWITCH taskName: route',
        },
        {
          path: 'tasks[0].expression',
          message: 'expression field is required for taskType: SWITCH taskName: route',
        },
        {
          path: 'tasks[0].decisionCases',
          message: 'decisionCases should have atleast one task for taskType: SWITCH taskName: route',
        },
      ],
    },
    {
      title: 'SWITCH with an unknown evaluator',
      task: { ...validSwitch, evaluatorType: 'python' },
      errors: [
        {
          path: 'tasks[0].evaluatorType',
          message:
            'No evaluator registered for type: python; use one of value-param, javascript, graaljs (taskType: SWITCH taskName: route)',
          invalidValue: 'python',
        },
      ],
    },
    {
      title: 'SWITCH with JavaScript that does not parse',
      task: { ...validSwitch, expression: '$.x >' },
      errors: [
        {
          path: 'tasks[0].expression',
          message:
            "expression is not valid JavaScript: SyntaxError: unexpected token in expression: '' (taskType: SWITCH taskName: route)",
          invalidValue: '$.x >',
        },
      ],
    },
    {
      title: 'DECISION without caseValueParam or caseExpression',
      task: { name: 'dec', taskReferenceName: 'dec', type: 'DECISION', decisionCases: { a: [] } },
      errors: [
        {
          path: 'tasks[0].caseValueParam',
          message: 'caseValueParam or caseExpression field is required for taskType: DECISION taskName: dec',
        },
      ],
    },
    {
      title: 'FORK_JOIN without forkTasks (and no JOIN after it)',
      task: { name: 'f', taskReferenceName: 'f', type: 'FORK_JOIN' },
      errors: [
        {
          path: 'tasks[0].forkTasks',
          message: 'forkTasks field is required for taskType: FORK_JOIN taskName: f',
        },
        {
          path: 'tasks[0]',
          message: 'FORK_JOIN task f must be followed by a JOIN task in the same list (taskName: f)',
        },
      ],
    },
    {
      title: 'a JOIN after a fork waiting on a task outside its branches',
      task: { name: 'f', taskReferenceName: 'f', type: 'FORK_JOIN', forkTasks: [[w('b1')]] },
      after: { name: 'j', taskReferenceName: 'j', type: 'JOIN', joinOn: ['b1', 'elsewhere'] },
      errors: [
        {
          path: 'tasks[1].joinOn[1]',
          message: "joinOn of JOIN j names 'elsewhere', which is no task of the branches of fork f",
          invalidValue: 'elsewhere',
        },
        {
          path: 'tasks[1].joinOn[1]',
          message: "joinOn of JOIN j names no task 'elsewhere' in this workflow",
          invalidValue: 'elsewhere',
        },
      ],
    },
    {
      title: 'FORK_JOIN_DYNAMIC without any input form',
      task: { name: 'df', taskReferenceName: 'df', type: 'FORK_JOIN_DYNAMIC' },
      after: { name: 'j', taskReferenceName: 'j', type: 'JOIN' },
      errors: [
        {
          path: 'tasks[0].dynamicForkTasksParam',
          message:
            'dynamicForkTasksParam with dynamicForkTasksInputParamName, dynamicForkJoinTasksParam, or inputParameters forkTaskName with forkTaskInputs field is required for taskType: FORK_JOIN_DYNAMIC taskName: df',
        },
      ],
    },
    {
      title: 'FORK_JOIN_DYNAMIC naming keys its input does not have',
      task: {
        name: 'df',
        taskReferenceName: 'df',
        type: 'FORK_JOIN_DYNAMIC',
        dynamicForkTasksParam: 'tasks',
      },
      after: { name: 'j', taskReferenceName: 'j', type: 'JOIN' },
      errors: [
        {
          path: 'tasks[0].dynamicForkTasksInputParamName',
          message:
            'dynamicForkTasksInputParamName field is required for taskType: FORK_JOIN_DYNAMIC taskName: df',
        },
        {
          path: 'tasks[0].dynamicForkTasksParam',
          message:
            "dynamicForkTasksParam 'tasks' names no key of inputParameters (taskType: FORK_JOIN_DYNAMIC taskName: df)",
          invalidValue: 'tasks',
        },
      ],
    },
    {
      title: 'DO_WHILE without loopCondition and loopOver',
      task: { name: 'loop', taskReferenceName: 'loop', type: 'DO_WHILE' },
      errors: [
        {
          path: 'tasks[0].loopCondition',
          message: 'loopCondition field is required for taskType: DO_WHILE taskName: loop',
        },
        {
          path: 'tasks[0].loopOver',
          message: 'loopOver field is required for taskType: DO_WHILE taskName: loop',
        },
      ],
    },
    {
      title: 'DO_WHILE with a condition that does not parse and a bad keepLastN',
      task: {
        name: 'loop',
        taskReferenceName: 'loop',
        type: 'DO_WHILE',
        loopCondition: 'if (',
        loopOver: [w('a')],
        inputParameters: { keepLastN: 0 },
      },
      errors: [
        {
          path: 'tasks[0].loopCondition',
          message:
            "loopCondition is not valid JavaScript: SyntaxError: unexpected token in expression: '' (taskType: DO_WHILE taskName: loop)",
          invalidValue: 'if (',
        },
        {
          path: 'tasks[0].inputParameters.keepLastN',
          message: 'keepLastN must be an integer >= 1 (taskType: DO_WHILE taskName: loop)',
          invalidValue: 0,
        },
      ],
    },
    {
      title: 'DYNAMIC without dynamicTaskNameParam',
      task: { name: 'dyn', taskReferenceName: 'dyn', type: 'DYNAMIC' },
      errors: [
        {
          path: 'tasks[0].dynamicTaskNameParam',
          message: 'dynamicTaskNameParam field is required for taskType: DYNAMIC taskName: dyn',
        },
      ],
    },
    {
      title: 'DYNAMIC naming a key its input does not have',
      task: { name: 'dyn', taskReferenceName: 'dyn', type: 'DYNAMIC', dynamicTaskNameParam: 'which' },
      errors: [
        {
          path: 'tasks[0].dynamicTaskNameParam',
          message:
            "dynamicTaskNameParam 'which' names no key of inputParameters (taskType: DYNAMIC taskName: dyn)",
          invalidValue: 'which',
        },
      ],
    },
    {
      title: 'TERMINATE that is optional and has no status',
      task: { name: 'stop', taskReferenceName: 'stop', type: 'TERMINATE', optional: true },
      errors: [
        {
          path: 'tasks[0].optional',
          message: 'a TERMINATE task cannot be optional (taskType: TERMINATE taskName: stop)',
          invalidValue: true,
        },
        {
          path: 'tasks[0].inputParameters.terminationStatus',
          message: 'terminationStatus field is required for taskType: TERMINATE taskName: stop',
        },
      ],
    },
    {
      title: 'TERMINATE with an unknown status',
      task: {
        name: 'stop',
        taskReferenceName: 'stop',
        type: 'TERMINATE',
        inputParameters: { terminationStatus: 'DONE' },
      },
      errors: [
        {
          path: 'tasks[0].inputParameters.terminationStatus',
          message:
            'terminationStatus must be one of COMPLETED, FAILED, TERMINATED (taskType: TERMINATE taskName: stop)',
          invalidValue: 'DONE',
        },
      ],
    },
    {
      title: 'WAIT with both duration and until, neither parsing',
      task: {
        name: 'w',
        taskReferenceName: 'w',
        type: 'WAIT',
        inputParameters: { duration: 'soon', until: 'later' },
      },
      errors: [
        {
          path: 'tasks[0].inputParameters.until',
          message:
            "Both 'duration' and 'until' specified. Please provide only one input (taskType: WAIT taskName: w)",
          invalidValue: 'later',
        },
        {
          path: 'tasks[0].inputParameters.duration',
          message: 'Not valid duration: soon (taskType: WAIT taskName: w)',
          invalidValue: 'soon',
        },
        {
          path: 'tasks[0].inputParameters.until',
          message: 'Unable to parse date later (taskType: WAIT taskName: w)',
          invalidValue: 'later',
        },
      ],
    },
    {
      title: 'EXCLUSIVE_JOIN naming unknown refs',
      task: {
        name: 'xj',
        taskReferenceName: 'xj',
        type: 'EXCLUSIVE_JOIN',
        joinOn: ['nope'],
        defaultExclusiveJoinTask: 'x',
      },
      errors: [
        {
          path: 'tasks[0].defaultExclusiveJoinTask',
          message:
            'defaultExclusiveJoinTask must be a list of task reference names (taskType: EXCLUSIVE_JOIN taskName: xj)',
          invalidValue: 'x',
        },
        {
          path: 'tasks[0].joinOn[0]',
          message: "joinOn of EXCLUSIVE_JOIN xj names no task 'nope' in this workflow",
          invalidValue: 'nope',
        },
      ],
    },
    {
      title: 'HUMAN with a non-string assignee',
      task: { name: 'h', taskReferenceName: 'h', type: 'HUMAN', assignee: 5 },
      errors: [
        {
          path: 'tasks[0].assignee',
          message: 'assignee must be a string (taskType: HUMAN taskName: h)',
          invalidValue: 5,
        },
      ],
    },
  ];
  for (const c of cases) {
    void it(`rejects ${c.title}, naming the task and field`, () => {
      assert.deepEqual(checkWorkflowDef(def(c.after ? [c.task, c.after] : [c.task]), ctx), c.errors);
    });
  }

  void it('checks nested tasks at their path (a bad SWITCH inside a loop inside a fork)', () => {
    const errors = checkWorkflowDef(
      def([
        {
          name: 'f',
          taskReferenceName: 'f',
          type: 'FORK_JOIN',
          forkTasks: [
            [
              {
                name: 'l',
                taskReferenceName: 'l',
                type: 'DO_WHILE',
                loopCondition: 'true',
                loopOver: [{ name: 's', taskReferenceName: 's', type: 'SWITCH' }],
              },
            ],
          ],
        },
        { name: 'j', taskReferenceName: 'j', type: 'JOIN', joinOn: ['l'] },
      ]),
      ctx,
    );
    assert.deepEqual(
      errors.map((e) => e.path),
      [
        'tasks[0].forkTasks[0][0].loopOver[0].evaluatorType',
        'tasks[0].forkTasks[0][0].loopOver[0].expression',
        'tasks[0].forkTasks[0][0].loopOver[0].decisionCases',
      ],
    );
  });
});

void describe('workerTaskNames with run-time names', () => {
  void it('includes the literal names DYNAMIC and FORK_JOIN_DYNAMIC nodes will run (not expressions)', () => {
    const names = workerTaskNames({
      name: 'wf',
      tasks: [
        {
          name: 'd',
          taskReferenceName: 'd',
          type: 'DYNAMIC',
          dynamicTaskNameParam: 't',
          inputParameters: { t: 'encode' },
        },
        {
          name: 'e',
          taskReferenceName: 'e',
          type: 'DYNAMIC',
          dynamicTaskNameParam: 't',
          inputParameters: { t: '${workflow.input.t}' },
        },
        {
          name: 'f',
          taskReferenceName: 'f',
          type: 'FORK_JOIN_DYNAMIC',
          inputParameters: { forkTaskName: 'thumb', forkTaskInputs: [] },
        },
        { name: 'j', taskReferenceName: 'j', type: 'JOIN' },
      ],
    });
    assert.deepEqual(names, ['encode', 'thumb']);
  });
});
