import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { scenarioHarness, shape, type Scenarios, task, worker } from './conductor-scenarios-harness.js';

/**
 * ForkJoinSpec's nested fork with a DECISION ("Test nested fork join workflow success flow",
 * nested_fork_join_integration_test.json) and its optional sub-workflow forks ("Test fork join
 * with sub workflows containing optional tasks"), replayed through the routes. Tasks list in
 * Conductor's scheduling order.
 */

const inputs = {
  p1: '${workflow.input.param1}',
  p2: '${workflow.input.param2}',
  case: '${workflow.input.case}',
};
const w = (n: number, ref: string) => worker(`cs_task_${n}`, ref, inputs);

const definitions = [
  workflowDef('cs_fork_join_nested', [
    task('FORK_JOIN', 'fork1', {
      forkTasks: [
        [w(11, 't11')],
        [
          task('FORK_JOIN', 'fork2', {
            forkTasks: [
              [w(12, 't12'), w(14, 't14')],
              [
                w(13, 't13'),
                task('DECISION', 'd1', {
                  caseValueParam: 'case',
                  inputParameters: inputs,
                  decisionCases: {
                    a: [w(16, 't16'), w(19, 't19'), w(20, 't20')],
                    b: [w(17, 't17'), w(20, 't20b')],
                  },
                  defaultCase: [w(18, 't18'), w(20, 't20def')],
                }),
              ],
            ],
          }),
          task('JOIN', 'join2', { joinOn: ['t14', 't20'] }),
        ],
      ],
    }),
    task('JOIN', 'join1', { joinOn: ['t11', 'join2'] }),
    w(15, 't15'),
  ]),
  workflowDef('cs_fj_sub', [worker('cs_child_task', 'simple_task_in_sub_wf')]),
  workflowDef('cs_fork_optional_sub_workflows', [
    task('FORK_JOIN', 'fanouttask', {
      forkTasks: [
        [task('SUB_WORKFLOW', 'st1', { optional: true, subWorkflowParam: { name: 'cs_fj_sub' } })],
        [task('SUB_WORKFLOW', 'st2', { optional: true, subWorkflowParam: { name: 'cs_fj_sub' } })],
      ],
    }),
    task('JOIN', 'fanouttask_join', { joinOn: ['st1', 'st2'] }),
  ]),
  // DynamicForkJoinSpec (dynamic_fork_join_integration_test.json).
  workflowDef('cs_dynamic_fanout', [
    worker('cs_task_1', 'dt1', { p1: '${workflow.input.param1}', p2: '${workflow.input.param2}' }),
    task('FORK_JOIN_DYNAMIC', 'dynamicfanouttask', {
      dynamicForkTasksParam: 'dynamicTasks',
      dynamicForkTasksInputParamName: 'dynamicTasksInput',
      inputParameters: {
        dynamicTasks: '${dt1.output.dynamicTasks}',
        dynamicTasksInput: '${dt1.output.dynamicTasksInput}',
      },
    }),
    task('JOIN', 'dynamicfanouttask_join'),
    worker('cs_task_4', 'task4'),
  ]),
];

async function eventually(s: Scenarios, id: string, ready: (wf: any) => boolean): Promise<any> {
  for (let i = 0; i < 300; i++) {
    const wf = await s.run(id);
    if (ready(wf)) return wf;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return s.run(id);
}

for (const storeCase of storeCases()) {
  describe(`Conductor scenarios: ForkJoinSpec nested forks and optional sub-workflow forks (${storeCase.name})`, () => {
    const s = scenarioHarness(storeCase, definitions);

    it('"Test nested fork join workflow success flow": Conductor\'s task order at each step', async () => {
      const id = await s.start(
        'cs_fork_join_nested',
        { param1: 'p1 value', param2: 'p2 value', case: 'a' },
        'fork_join_nested_test',
      );
      let wf = await s.run(id);
      assert.equal(wf.status, 'RUNNING');
      assert.deepEqual(shape(wf), [
        ['FORK', 'COMPLETED'],
        ['cs_task_11', 'SCHEDULED'],
        ['FORK', 'COMPLETED'],
        ['cs_task_12', 'SCHEDULED'],
        ['cs_task_13', 'SCHEDULED'],
        ['JOIN', 'IN_PROGRESS'],
        ['JOIN', 'IN_PROGRESS'],
      ]);
      assert.deepEqual(wf.tasks[5].inputData.joinOn, ['t14', 't20']);
      assert.deepEqual(wf.tasks[6].inputData.joinOn, ['t11', 'join2']);
      await s.complete('cs_task_11');
      await s.complete('cs_task_12');
      await s.complete('cs_task_13');
      wf = await s.run(id);
      assert.deepEqual(shape(wf).slice(7), [
        ['cs_task_14', 'SCHEDULED'],
        ['DECISION', 'COMPLETED'],
        ['cs_task_16', 'SCHEDULED'],
      ]);
      assert.equal(wf.tasks.length, 10);
      await s.complete('cs_task_16');
      await s.complete('cs_task_14');
      wf = await s.run(id);
      assert.equal(wf.tasks.length, 11);
      assert.deepEqual(shape(wf)[10], ['cs_task_19', 'SCHEDULED']);
      await s.complete('cs_task_19');
      wf = await s.run(id);
      assert.equal(wf.tasks.length, 12);
      assert.deepEqual(shape(wf)[11], ['cs_task_20', 'SCHEDULED']);
      await s.complete('cs_task_20');
      wf = await s.run(id);
      assert.equal(wf.status, 'RUNNING');
      assert.equal(wf.tasks.length, 13);
      assert.deepEqual(shape(wf)[5], ['JOIN', 'COMPLETED']);
      assert.deepEqual(shape(wf)[6], ['JOIN', 'COMPLETED']);
      assert.deepEqual(shape(wf)[11], ['cs_task_20', 'COMPLETED']);
      assert.deepEqual(shape(wf)[12], ['cs_task_15', 'SCHEDULED']);
      await s.complete('cs_task_15');
      wf = await s.run(id);
      assert.equal(wf.status, 'COMPLETED');
      assert.equal(wf.tasks.length, 13);
      assert.deepEqual(shape(wf)[12], ['cs_task_15', 'COMPLETED']);
    });

    it('DynamicForkJoinSpec "Test dynamic fork join empty output": branches that answer nothing leave the JOIN output empty', async () => {
      const id = await s.start('cs_dynamic_fanout', {}, 'dynamic_fork_join_workflow');
      assert.deepEqual(shape(await s.run(id)), [['cs_task_1', 'SCHEDULED']]);
      await s.complete('cs_task_1', {
        dynamicTasks: [worker('cs_task_2', 'xdt1'), worker('cs_task_3', 'xdt2')],
        dynamicTasksInput: { xdt1: { k1: 'v1' }, xdt2: { k2: 'v2' } },
      });
      let wf = await s.run(id);
      assert.deepEqual(shape(wf), [
        ['cs_task_1', 'COMPLETED'],
        ['FORK', 'COMPLETED'],
        ['cs_task_2', 'SCHEDULED'],
        ['cs_task_3', 'SCHEDULED'],
        ['JOIN', 'IN_PROGRESS'],
      ]);
      const second = await s.complete('cs_task_2');
      const third = await s.complete('cs_task_3');
      assert.equal(second.inputData.k1, 'v1');
      assert.equal(third.inputData.k2, 'v2');
      wf = await s.run(id);
      assert.equal(wf.status, 'RUNNING');
      assert.deepEqual(shape(wf).slice(2), [
        ['cs_task_2', 'COMPLETED'],
        ['cs_task_3', 'COMPLETED'],
        ['JOIN', 'COMPLETED'],
        ['cs_task_4', 'SCHEDULED'],
      ]);
      assert.deepEqual(wf.tasks[4].inputData.joinOn, ['xdt1', 'xdt2']);
      assert.deepEqual(wf.tasks[4].outputData, {});
      await s.complete('cs_task_4');
      wf = await s.run(id);
      assert.equal(wf.status, 'COMPLETED');
      assert.equal(wf.tasks.length, 6);
    });

    it('"Test fork join with sub workflows containing optional tasks": both children fail, the parent completes with errors; a child\'s rerun leaves it so', async () => {
      const id = await s.start('cs_fork_optional_sub_workflows', {});
      let wf = await eventually(s, id, (r) => r.tasks[1]?.subWorkflowId && r.tasks[2]?.subWorkflowId);
      assert.deepEqual(shape(wf), [
        ['FORK', 'COMPLETED'],
        ['SUB_WORKFLOW', 'IN_PROGRESS'],
        ['SUB_WORKFLOW', 'IN_PROGRESS'],
        ['JOIN', 'IN_PROGRESS'],
      ]);
      const children: string[] = [wf.tasks[1].subWorkflowId, wf.tasks[2].subWorkflowId];
      for (const child of children) {
        s.track(child);
        assert.deepEqual(shape(await s.run(child)), [['cs_child_task', 'SCHEDULED']]);
      }
      await s.fail('cs_child_task', 'Failed....');
      await s.fail('cs_child_task', 'Failed....');
      for (const child of children) {
        const run = await s.until(child, ['FAILED']);
        assert.deepEqual(shape(run), [['cs_child_task', 'FAILED']]);
      }
      const done: Array<[string, string]> = [
        ['FORK', 'COMPLETED'],
        ['SUB_WORKFLOW', 'COMPLETED_WITH_ERRORS'],
        ['SUB_WORKFLOW', 'COMPLETED_WITH_ERRORS'],
        ['JOIN', 'COMPLETED_WITH_ERRORS'],
      ];
      wf = await s.until(id, ['COMPLETED']);
      assert.equal(wf.status, 'COMPLETED');
      assert.deepEqual(shape(wf), done);

      // Rerunning a child of a parent that COMPLETED leaves the parent as it ended.
      const first = children[0] ?? '';
      const rerun = await call(s.t().app, 'POST', `/api/workflow/${first}/rerun`, {});
      assert.equal(rerun.status, 200, rerun.text);
      s.track(rerun.text);
      const child2 = await s.run(rerun.text);
      assert.equal(child2.status, 'RUNNING');
      assert.deepEqual(shape(child2), [['cs_child_task', 'SCHEDULED']]);
      wf = await s.run(id);
      assert.equal(wf.status, 'COMPLETED');
      assert.deepEqual(shape(wf), done);
    });
  });
}
