import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { scenarioHarness, shape, worker } from './conductor-scenarios-harness.js';

/**
 * The scenarios of Conductor's integration specs for SWITCH, DECISION, EXCLUSIVE_JOIN and test
 * runs, replayed through the real routes on Baton's own definitions (same shapes, kinds and
 * expressions; our names). Each branching definition exists twice: with SWITCH (value-param) and
 * with the deprecated DECISION (caseValueParam), as SwitchTaskSpec and DecisionTaskSpec each
 * have theirs.
 */

type Kind = 'SWITCH' | 'DECISION';
type Cases = Record<string, Array<Record<string, unknown>>>;

/** A branching task on the run input `field`, as a SWITCH or a DECISION. */
function branch(
  kind: Kind,
  ref: string,
  field: string,
  cases: Cases,
  defaultCase?: Array<Record<string, unknown>>,
) {
  return {
    name: ref,
    taskReferenceName: ref,
    type: kind,
    inputParameters: { choice: `\${workflow.input.${field}}` },
    ...(kind === 'SWITCH'
      ? { evaluatorType: 'value-param', expression: 'choice' }
      : { caseValueParam: 'choice' }),
    decisionCases: cases,
    ...(defaultCase && { defaultCase }),
  };
}

const params = { p1: '${workflow.input.param1}', p2: '${workflow.input.param2}' };

/** SwitchTaskSpec / DecisionTaskSpec: case `c` runs two workers, the default one; a worker after. */
const simple = (kind: Kind, name: string) =>
  workflowDef(name, [
    branch(
      kind,
      'route',
      'case',
      { c: [worker('cs_task_1', 'c1', params), worker('cs_task_2', 'c2', params)] },
      [worker('cs_task_5', 'other', params)],
    ),
    worker('cs_task_20', 'after', params),
  ]);

/**
 * SwitchTaskSpec / DecisionTaskSpec's conditional workflow: an outer branch on param1 (`nested`
 * holds an inner branch on param2, `three` a worker, the default another), then a final branch
 * on finalCase with only a `notify` case.
 */
const conditional = (kind: Kind, name: string) =>
  workflowDef(name, [
    branch(
      kind,
      'outer',
      'param1',
      {
        nested: [
          branch(kind, 'inner', 'param2', {
            one: [worker('cs_task_1', 'one', params)],
            two: [worker('cs_task_2', 'two', { tp1: '${workflow.input.param1}' })],
          }),
        ],
        three: [worker('cs_task_3', 'three')],
      },
      [worker('cs_task_10', 'fallback')],
    ),
    branch(kind, 'final', 'finalCase', { notify: [worker('cs_task_4', 'notify')] }),
  ]);

const definitions = [
  simple('SWITCH', 'cs_switch'),
  simple('DECISION', 'cs_decision'),
  conditional('SWITCH', 'cs_conditional_switch'),
  conditional('DECISION', 'cs_conditional_decision'),
  // ExclusiveJoinSpec: nested decisions, each case a worker and a further decision; an
  // EXCLUSIVE_JOIN on the innermost workers, falling back on the outer ones when no inner ran.
  workflowDef('cs_exclusive_join', [
    worker('cs_task_1', 'first', { payload: '${workflow.input.payload}' }),
    branch('DECISION', 'decision_1', 'decision_1', {
      true: [
        worker('cs_task_2', 'second', { payload: '${first.output.payload}' }),
        branch('DECISION', 'decision_2', 'decision_2', { true: [worker('cs_task_3', 'third')] }),
      ],
      false: [
        worker('cs_task_4', 'fourth', { payload: '${first.output.payload}' }),
        branch('DECISION', 'decision_3', 'decision_3', { true: [worker('cs_task_5', 'fifth')] }),
      ],
    }),
    {
      name: 'only_one',
      taskReferenceName: 'only_one',
      type: 'EXCLUSIVE_JOIN',
      joinOn: ['third', 'fifth'],
      defaultExclusiveJoinTask: ['second', 'fourth', 'first'],
    },
  ]),
  // SwitchTaskSpec: a fork whose first branch is the simple switch then a worker, the second a worker.
  workflowDef('cs_switch_fork', [
    {
      name: 'split',
      taskReferenceName: 'split',
      type: 'FORK_JOIN',
      forkTasks: [
        [
          branch(
            'SWITCH',
            'route',
            'case',
            { c: [worker('cs_task_1', 'c1', params), worker('cs_task_2', 'c2', params)] },
            [worker('cs_task_5', 'other', params)],
          ),
          worker('cs_task_20', 'tail', params),
        ],
        [worker('cs_task_10', 'side', params)],
      ],
    },
    { name: 'merge', taskReferenceName: 'merge', type: 'JOIN', joinOn: ['tail', 'side'] },
  ]),
];

for (const storeCase of storeCases()) {
  describe(`Conductor scenarios: SWITCH, DECISION, EXCLUSIVE_JOIN and test runs (${storeCase.name})`, () => {
    const s = scenarioHarness(storeCase, definitions);

    for (const [spec, kind, simpleName, conditionalName, resultField] of [
      ['SwitchTaskSpec', 'SWITCH', 'cs_switch', 'cs_conditional_switch', 'evaluationResult'],
      ['DecisionTaskSpec', 'DECISION', 'cs_decision', 'cs_conditional_decision', 'caseOutput'],
    ] as const) {
      describe(spec, () => {
        it(`a simple ${kind}: the case's two workers, then the worker after`, async () => {
          const id = await s.start(simpleName, { param1: 'p1', param2: 'p2', case: 'c' }, 'branch_workflow');
          assert.deepEqual(shape(await s.run(id)), [
            [kind, 'COMPLETED'],
            ['cs_task_1', 'SCHEDULED'],
          ]);
          await s.complete('cs_task_1');
          assert.deepEqual(shape(await s.run(id)), [
            [kind, 'COMPLETED'],
            ['cs_task_1', 'COMPLETED'],
            ['cs_task_2', 'SCHEDULED'],
          ]);
          await s.complete('cs_task_2');
          let wf = await s.run(id);
          assert.equal(wf.status, 'RUNNING');
          assert.deepEqual(shape(wf).slice(2), [
            ['cs_task_2', 'COMPLETED'],
            ['cs_task_20', 'SCHEDULED'],
          ]);
          await s.complete('cs_task_20');
          wf = await s.run(id);
          assert.equal(wf.status, 'COMPLETED');
          assert.equal(wf.tasks.length, 4);
          assert.deepEqual(shape(wf)[3], ['cs_task_20', 'COMPLETED']);
        });

        it(`the default case of a conditional workflow (${kind})`, async () => {
          const id = await s.start(conditionalName, { param1: 'xxx', param2: 'two' }, 'conditional_default');
          let wf = await s.run(id);
          assert.equal(wf.status, 'RUNNING');
          assert.deepEqual(shape(wf), [
            [kind, 'COMPLETED'],
            ['cs_task_10', 'SCHEDULED'],
          ]);
          assert.deepEqual(wf.tasks[0].outputData[resultField], ['xxx']);
          await s.complete('cs_task_10');
          wf = await s.run(id);
          assert.equal(wf.status, 'COMPLETED');
          assert.deepEqual(shape(wf), [
            [kind, 'COMPLETED'],
            ['cs_task_10', 'COMPLETED'],
            [kind, 'COMPLETED'],
          ]);
          // An absent value selects no case: its text is 'null'.
          assert.deepEqual(wf.tasks[2].outputData[resultField], ['null']);
        });

        for (const [caseValue, expected] of [
          ['two', 'cs_task_2'],
          ['one', 'cs_task_1'],
        ] as const) {
          it(`the 'nested' case, then the inner '${caseValue}' case (${kind})`, async () => {
            const id = await s.start(
              conditionalName,
              { param1: 'nested', param2: caseValue },
              `nested_${caseValue}`,
            );
            let wf = await s.run(id);
            assert.equal(wf.status, 'RUNNING');
            assert.deepEqual(shape(wf), [
              [kind, 'COMPLETED'],
              [kind, 'COMPLETED'],
              [expected, 'SCHEDULED'],
            ]);
            assert.deepEqual(wf.tasks[0].outputData[resultField], ['nested']);
            assert.deepEqual(wf.tasks[1].outputData[resultField], [caseValue]);
            await s.complete(expected);
            wf = await s.run(id);
            assert.equal(wf.status, 'COMPLETED');
            assert.deepEqual(shape(wf).slice(2), [
              [expected, 'COMPLETED'],
              [kind, 'COMPLETED'],
            ]);
            assert.deepEqual(wf.tasks[3].outputData[resultField], ['null']);
          });
        }

        it(`the 'three' case, then the final 'notify' case (${kind})`, async () => {
          const id = await s.start(
            conditionalName,
            { param1: 'three', param2: 'two', finalCase: 'notify' },
            'conditional_three',
          );
          let wf = await s.run(id);
          assert.deepEqual(shape(wf), [
            [kind, 'COMPLETED'],
            ['cs_task_3', 'SCHEDULED'],
          ]);
          assert.deepEqual(wf.tasks[0].outputData[resultField], ['three']);
          await s.complete('cs_task_3');
          wf = await s.run(id);
          assert.equal(wf.status, 'RUNNING');
          assert.deepEqual(shape(wf).slice(1), [
            ['cs_task_3', 'COMPLETED'],
            [kind, 'COMPLETED'],
            ['cs_task_4', 'SCHEDULED'],
          ]);
          assert.deepEqual(wf.tasks[2].outputData[resultField], ['notify']);
          await s.complete('cs_task_4');
          wf = await s.run(id);
          assert.equal(wf.status, 'COMPLETED');
          assert.deepEqual(shape(wf)[3], ['cs_task_4', 'COMPLETED']);
        });
      });
    }

    describe('SwitchTaskSpec', () => {
      it("a switch heading a fork branch: its case's task comes before the next branch's", async () => {
        const id = await s.start(
          'cs_switch_fork',
          { param1: 'p1', param2: 'p2', case: 'c' },
          'switch_forkjoin',
        );
        let wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['FORK', 'COMPLETED'],
          ['SWITCH', 'COMPLETED'],
          ['cs_task_1', 'SCHEDULED'],
          ['cs_task_10', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
        ]);
        await s.complete('cs_task_1');
        await s.complete('cs_task_10');
        wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf).slice(2), [
          ['cs_task_1', 'COMPLETED'],
          ['cs_task_10', 'COMPLETED'],
          ['JOIN', 'IN_PROGRESS'],
          ['cs_task_2', 'SCHEDULED'],
        ]);
        assert.deepEqual(wf.tasks[4].inputData.joinOn, ['tail', 'side']);
        await s.complete('cs_task_2');
        wf = await s.run(id);
        assert.equal(wf.tasks.length, 7);
        assert.deepEqual(shape(wf).slice(4), [
          ['JOIN', 'IN_PROGRESS'],
          ['cs_task_2', 'COMPLETED'],
          ['cs_task_20', 'SCHEDULED'],
        ]);
        await s.complete('cs_task_20');
        wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.equal(wf.tasks.length, 7);
        assert.deepEqual(shape(wf)[4], ['JOIN', 'COMPLETED']);
        assert.deepEqual(wf.tasks[4].inputData.joinOn, ['tail', 'side']);
        assert.deepEqual(shape(wf)[6], ['cs_task_20', 'COMPLETED']);
      });
    });

    describe('ExclusiveJoinSpec', () => {
      /** Each case: the run's input, the worker types completed in order, the task types at the end. */
      const cases: Array<{ name: string; input: Record<string, string>; flow: string[]; types: string[] }> = [
        {
          name: 'no case of the first decision matches',
          input: { decision_1: 'null' },
          flow: ['cs_task_1'],
          types: ['cs_task_1', 'DECISION', 'EXCLUSIVE_JOIN'],
        },
        {
          name: 'the first decision is true and the second matches no case',
          input: { decision_1: 'true', decision_2: 'null' },
          flow: ['cs_task_1', 'cs_task_2'],
          types: ['cs_task_1', 'DECISION', 'cs_task_2', 'DECISION', 'EXCLUSIVE_JOIN'],
        },
        {
          name: 'both decisions are true',
          input: { decision_1: 'true', decision_2: 'true' },
          flow: ['cs_task_1', 'cs_task_2', 'cs_task_3'],
          types: ['cs_task_1', 'DECISION', 'cs_task_2', 'DECISION', 'cs_task_3', 'EXCLUSIVE_JOIN'],
        },
        {
          name: 'the first decision is false and the third matches no case',
          input: { decision_1: 'false', decision_3: 'null' },
          flow: ['cs_task_1', 'cs_task_4'],
          types: ['cs_task_1', 'DECISION', 'cs_task_4', 'DECISION', 'EXCLUSIVE_JOIN'],
        },
        {
          name: 'the first decision is false and the third is true',
          input: { decision_1: 'false', decision_3: 'true' },
          flow: ['cs_task_1', 'cs_task_4', 'cs_task_5'],
          types: ['cs_task_1', 'DECISION', 'cs_task_4', 'DECISION', 'cs_task_5', 'EXCLUSIVE_JOIN'],
        },
      ];
      for (const k of cases) {
        it(`${k.name}: the exclusive join carries the last task's output`, async () => {
          const id = await s.start('cs_exclusive_join', k.input, 'exclusive_join_workflow');
          let wf = await s.run(id);
          assert.equal(wf.status, 'RUNNING');
          assert.deepEqual(shape(wf), [['cs_task_1', 'SCHEDULED']]);
          for (const [i, type] of k.flow.entries()) {
            await s.complete(type, { doneBy: type });
            wf = await s.run(id);
            if (i < k.flow.length - 1) {
              assert.equal(wf.status, 'RUNNING');
              assert.deepEqual(shape(wf).at(-1), [k.flow[i + 1], 'SCHEDULED']);
            }
          }
          assert.equal(wf.status, 'COMPLETED');
          assert.deepEqual(
            shape(wf),
            k.types.map((type) => [type, 'COMPLETED']),
          );
          assert.equal(wf.tasks.at(-1).outputData.doneBy, k.flow.at(-1));
        });
      }
    });

    describe('TestWorkflowSpec', () => {
      const mocked = { mocked: [{ status: 'COMPLETED', output: { key: 'value' } }] };
      const testRun = async (tasks: Array<Record<string, unknown>>, input: Record<string, unknown>) => {
        const res = await call(s.t().app, 'POST', '/api/workflow/test', {
          name: 'cs_test_run',
          version: 1,
          workflowDef: { ...workflowDef('cs_test_run', tasks), version: 1 },
          input,
          taskRefToMockOutput: mocked,
        });
        assert.equal(res.status, 200, res.text);
        return res.body;
      };

      it('a test run with worker tasks: the mocked one completes, the next waits', async () => {
        const wf = await testRun([worker('cs_task_1', 'mocked'), worker('cs_task_2', 'next')], {
          var: 'var_test_value',
        });
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['cs_task_1', 'COMPLETED'],
          ['cs_task_2', 'SCHEDULED'],
        ]);
        assert.equal(wf.tasks[0].outputData.key, 'value');
      });

      it('a test run with a switch: the case chosen by the input waits', async () => {
        const wf = await testRun(
          [
            worker('cs_task_1', 'mocked'),
            branch('SWITCH', 'route', 'case', {
              a: [worker('cs_task_1', 'case_a')],
              b: [worker('cs_task_2', 'case_b')],
            }),
          ],
          { case: 'b' },
        );
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['cs_task_1', 'COMPLETED'],
          ['SWITCH', 'COMPLETED'],
          ['cs_task_2', 'SCHEDULED'],
        ]);
        assert.equal(wf.tasks[0].outputData.key, 'value');
        assert.equal(wf.tasks[2].referenceTaskName, 'case_b');
      });
    });
  });
}
