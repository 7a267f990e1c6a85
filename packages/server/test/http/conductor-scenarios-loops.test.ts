import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { scenarioHarness, shape, task, worker } from './conductor-scenarios-harness.js';

/**
 * DoWhileSpec's methods beyond the plain loops (see conductor-scenarios.test.ts), replayed
 * through the routes: a sub-workflow in the loop, two loops in a row, a failed loop retried by
 * hand and by its task definition, a loop heading a fork branch, the iteration read in a script,
 * a SET_VARIABLE ending the loop, a SWITCH with a WAIT inside the loop, and 500 iterations.
 * Definitions are Conductor's test resources with Baton's worker types (`cs_task_N`).
 */

const lessThan = (ref: string, value = '$.value') =>
  `if ($.${ref}['iteration'] < ${value}) { true; } else { false; } `;
const loop = (
  ref: string,
  loopOver: unknown[],
  inputParameters: Record<string, unknown>,
  condition?: string,
) => task('DO_WHILE', ref, { loopCondition: condition ?? lessThan(ref), inputParameters, loopOver });
const forkJoinOf = (a: string, b: string) => [
  task('FORK_JOIN', 'fork', {
    forkTasks: [[worker(a, 'integration_task_1')], [worker(b, 'integration_task_2')]],
  }),
  task('JOIN', 'join', { joinOn: ['integration_task_1', 'integration_task_2'] }),
];
const loopInput = { value: '${workflow.input.loop}' };

const definitions = [
  // do_while_integration_test.json
  workflowDef('cs_do_while', [
    loop(
      'loopTask',
      [worker('cs_task_rt_1', 'integration_task_0'), ...forkJoinOf('cs_task_rt_3', 'cs_task_rt_4')],
      loopInput,
    ),
  ]),
  // simple_one_task_sub_workflow_integration_test.json and do_while_sub_workflow_integration_test.json
  workflowDef('cs_dw_sub', [worker('cs_child_task', 'simple_task_in_sub_wf')]),
  workflowDef('cs_do_while_sub_workflow', [
    loop(
      'loopTask',
      [
        worker('cs_task_0', 'integration_task_0'),
        ...forkJoinOf('cs_task_1', 'cs_task_2'),
        task('SUB_WORKFLOW', 'st1', { subWorkflowParam: { name: 'cs_dw_sub' } }),
      ],
      loopInput,
    ),
  ]),
  // do_while_multiple_integration_test.json
  workflowDef('cs_do_while_multiple', [
    loop(
      'loopTask',
      [worker('cs_task_0', 'integration_task_0'), ...forkJoinOf('cs_task_1', 'cs_task_2')],
      loopInput,
    ),
    loop('loopTask2', [worker('cs_task_3', 'integration_task_3')], { value: '${workflow.input.loop2}' }),
  ]),
  // do_while_as_subtask_integration_test.json
  workflowDef('cs_do_while_subtask', [
    task('FORK_JOIN', 'fork', {
      forkTasks: [
        [
          loop(
            'loopTask',
            [worker('cs_task_0', 'integration_task_0'), worker('cs_task_1', 'integration_task_1')],
            loopInput,
          ),
        ],
        [worker('cs_task_2', 'integration_task_2')],
      ],
    }),
    task('JOIN', 'join', { joinOn: ['loopTask', 'integration_task_2'] }),
  ]),
  // do_while_iteration_fix_test.json
  workflowDef('cs_do_while_iteration_fix', [
    loop(
      'loopTask',
      [
        task('LAMBDA', 'form_uri', {
          inputParameters: { index: "${loopTask['iteration']}", scriptExpression: 'return $.index - 1;' },
        }),
      ],
      loopInput,
    ),
  ]),
  // do_while_set_variable_fix.json
  workflowDef('cs_do_while_set_variable', [
    loop(
      'loopTask',
      [task('SET_VARIABLE', 'set_variable', { inputParameters: { value: '0' } })],
      { value: '${workflow.variables.value}' },
      'if ($.value > 0) { true; } else { false; } ',
    ),
  ]),
  // do_while_with_decision_task.json: a Conductor script reading a list with .get(i).
  workflowDef('cs_do_while_decision', [
    loop(
      'LoopTask',
      [
        task('INLINE', 'GetNumberAtIndex', {
          inputParameters: {
            evaluatorType: 'javascript',
            list: '${workflow.input.list}',
            iterator: '${LoopTask.output.iteration}',
            expression: 'function getElement() { return $.list.get($.iterator - 1); } getElement();',
          },
        }),
        task('SWITCH', 'SwitchTask', {
          inputParameters: { param: '${GetNumberAtIndex.output.result}' },
          evaluatorType: 'javascript',
          expression: '$.param > 0',
          decisionCases: {
            true: [
              task('WAIT', 'WaitTask'),
              task('INLINE', 'ComputeNumber', {
                inputParameters: {
                  evaluatorType: 'javascript',
                  number: '${GetNumberAtIndex.output.result.number}',
                  expression: 'function compute() { return $.number+10; } compute();',
                },
              }),
            ],
          },
        }),
      ],
      { list: '${workflow.input.list}' },
      "$.LoopTask['iteration'] < $.list.length",
    ),
  ]),
  // do_while_high_iteration_test.json
  workflowDef('cs_do_while_high_iteration', [
    loop(
      'loopTask',
      [task('LAMBDA', 'lambda_task', { inputParameters: { scriptExpression: 'return {};' } })],
      loopInput,
    ),
  ]),
];

for (const storeCase of storeCases()) {
  describe(`Conductor scenarios: DoWhileSpec (${storeCase.name})`, () => {
    const s = scenarioHarness(storeCase, definitions);
    const FORK_OPEN: Array<[string, string]> = [
      ['FORK', 'COMPLETED'],
      ['cs_task_1', 'SCHEDULED'],
      ['cs_task_2', 'SCHEDULED'],
      ['JOIN', 'IN_PROGRESS'],
    ];

    it('"Test workflow with a single iteration Do While task with Sub workflow"', async () => {
      const id = await s.start('cs_do_while_sub_workflow', { loop: 1 });
      assert.deepEqual(shape(await s.run(id)), [
        ['DO_WHILE', 'IN_PROGRESS'],
        ['cs_task_0', 'SCHEDULED'],
      ]);
      await s.complete('cs_task_0');
      assert.deepEqual(shape(await s.run(id)), [
        ['DO_WHILE', 'IN_PROGRESS'],
        ['cs_task_0', 'COMPLETED'],
        ...FORK_OPEN,
      ]);
      await s.complete('cs_task_1');
      await s.complete('cs_task_2');
      let wf = await s.until(id, ['RUNNING']);
      wf = await (async () => {
        for (let i = 0; i < 300; i++) {
          const run = await s.run(id);
          if (run.tasks[6]?.subWorkflowId !== undefined) return run;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return s.run(id);
      })();
      assert.deepEqual(shape(wf), [
        ['DO_WHILE', 'IN_PROGRESS'],
        ['cs_task_0', 'COMPLETED'],
        ['FORK', 'COMPLETED'],
        ['cs_task_1', 'COMPLETED'],
        ['cs_task_2', 'COMPLETED'],
        ['JOIN', 'COMPLETED'],
        ['SUB_WORKFLOW', 'IN_PROGRESS'],
      ]);
      const child = wf.tasks[6].subWorkflowId;
      s.track(child);
      assert.deepEqual(shape(await s.run(child)), [['cs_child_task', 'SCHEDULED']]);
      await s.complete('cs_child_task');
      assert.equal((await s.until(child, ['COMPLETED'])).status, 'COMPLETED');
      wf = await s.until(id, ['COMPLETED']);
      assert.equal(wf.status, 'COMPLETED');
      assert.deepEqual(shape(wf), [
        ['DO_WHILE', 'COMPLETED'],
        ['cs_task_0', 'COMPLETED'],
        ['FORK', 'COMPLETED'],
        ['cs_task_1', 'COMPLETED'],
        ['cs_task_2', 'COMPLETED'],
        ['JOIN', 'COMPLETED'],
        ['SUB_WORKFLOW', 'COMPLETED'],
      ]);
    });

    it('"Test workflow with multiple Do While tasks with multiple iterations"', async () => {
      const id = await s.start('cs_do_while_multiple', { loop: 2, loop2: 1 });
      for (let iteration = 1; iteration <= 2; iteration++) {
        await s.complete('cs_task_0');
        await s.complete('cs_task_1');
        await s.complete('cs_task_2');
      }
      let wf = await s.run(id);
      assert.equal(wf.status, 'RUNNING');
      assert.deepEqual(shape(wf).slice(-2), [
        ['DO_WHILE', 'IN_PROGRESS'],
        ['cs_task_3', 'SCHEDULED'],
      ]);
      assert.equal(wf.tasks[0].status, 'COMPLETED');
      assert.equal(wf.tasks[0].iteration, 2);
      assert.equal(wf.tasks.length, 13);
      assert.deepEqual(
        wf.tasks.slice(1, 11).map((t: any) => t.referenceTaskName),
        [
          'integration_task_0__1',
          'fork__1',
          'integration_task_1__1',
          'integration_task_2__1',
          'join__1',
          'integration_task_0__2',
          'fork__2',
          'integration_task_1__2',
          'integration_task_2__2',
          'join__2',
        ],
      );
      await s.complete('cs_task_3');
      wf = await s.run(id);
      assert.equal(wf.status, 'COMPLETED');
      assert.equal(wf.tasks.length, 13);
      assert.equal(wf.tasks[11].iteration, 1);
      assert.equal(wf.tasks[12].referenceTaskName, 'integration_task_3__1');
    });

    it('"Test retrying a failed do while workflow": the loop fails with its task; a retry runs the iteration to its end', async () => {
      const id = await s.start('cs_do_while', { loop: 1 });
      await s.fail('cs_task_rt_1', 'induced..failure');
      let wf = await s.run(id);
      assert.equal(wf.status, 'FAILED');
      assert.deepEqual(shape(wf), [
        ['DO_WHILE', 'CANCELED'],
        ['cs_task_rt_1', 'FAILED'],
      ]);
      const retried = await call(s.t().app, 'POST', `/api/workflow/${id}/retry`);
      assert.equal(retried.status, 200, retried.text);
      s.track(retried.text);
      wf = await s.run(retried.text);
      assert.equal(wf.status, 'RUNNING');
      assert.deepEqual(shape(wf), [
        ['DO_WHILE', 'IN_PROGRESS'],
        ['cs_task_rt_1', 'SCHEDULED'],
      ]);
      await s.complete('cs_task_rt_1');
      assert.deepEqual(shape(await s.run(retried.text)), [
        ['DO_WHILE', 'IN_PROGRESS'],
        ['cs_task_rt_1', 'COMPLETED'],
        ['FORK', 'COMPLETED'],
        ['cs_task_rt_3', 'SCHEDULED'],
        ['cs_task_rt_4', 'SCHEDULED'],
        ['JOIN', 'IN_PROGRESS'],
      ]);
      await s.complete('cs_task_rt_3');
      await s.complete('cs_task_rt_4');
      wf = await s.run(retried.text);
      assert.equal(wf.status, 'COMPLETED');
      for (const t of wf.tasks) assert.equal(t.status, 'COMPLETED');
    });

    it('"Test auto retrying a failed do while workflow": the failed task is retried inside the loop', async () => {
      await s.withTaskDef('cs_task_rt_1', { retryCount: 1, retryDelaySeconds: 0 }, async () => {
        const id = await s.start('cs_do_while', { loop: 1 });
        await s.fail('cs_task_rt_1', 'induced..failure');
        let wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['DO_WHILE', 'IN_PROGRESS'],
          ['cs_task_rt_1', 'FAILED'],
          ['cs_task_rt_1', 'SCHEDULED'],
        ]);
        assert.equal(wf.tasks[2].referenceTaskName, 'integration_task_0__1');
        await s.complete('cs_task_rt_1');
        await s.complete('cs_task_rt_3');
        await s.complete('cs_task_rt_4');
        wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.deepEqual(shape(wf), [
          ['DO_WHILE', 'COMPLETED'],
          ['cs_task_rt_1', 'FAILED'],
          ['cs_task_rt_1', 'COMPLETED'],
          ['FORK', 'COMPLETED'],
          ['cs_task_rt_3', 'COMPLETED'],
          ['cs_task_rt_4', 'COMPLETED'],
          ['JOIN', 'COMPLETED'],
        ]);
      });
    });

    it('"Test workflow with a iteration Do While task as subtask of a forkjoin task"', async () => {
      const id = await s.start('cs_do_while_subtask', { loop: 2 });
      assert.deepEqual(shape(await s.run(id)), [
        ['FORK', 'COMPLETED'],
        ['DO_WHILE', 'IN_PROGRESS'],
        ['cs_task_0', 'SCHEDULED'],
        ['cs_task_2', 'SCHEDULED'],
        ['JOIN', 'IN_PROGRESS'],
      ]);
      await s.complete('cs_task_0');
      await s.complete('cs_task_1');
      await s.complete('cs_task_2');
      let wf = await s.run(id);
      assert.equal(wf.status, 'RUNNING');
      assert.equal(wf.tasks[1].iteration, 2);
      await s.complete('cs_task_0');
      await s.complete('cs_task_1');
      wf = await s.run(id);
      assert.equal(wf.status, 'COMPLETED');
      assert.deepEqual(shape(wf), [
        ['FORK', 'COMPLETED'],
        ['DO_WHILE', 'COMPLETED'],
        ['cs_task_0', 'COMPLETED'],
        ['cs_task_2', 'COMPLETED'],
        ['JOIN', 'COMPLETED'],
        ['cs_task_1', 'COMPLETED'],
        ['cs_task_0', 'COMPLETED'],
        ['cs_task_1', 'COMPLETED'],
      ]);
    });

    it('"Test workflow with Do While task contains loop over task that use iteration in script expression"', async () => {
      const id = await s.start('cs_do_while_iteration_fix', { loop: 2 });
      const wf = await s.run(id);
      assert.equal(wf.status, 'COMPLETED');
      assert.deepEqual(shape(wf), [
        ['DO_WHILE', 'COMPLETED'],
        ['LAMBDA', 'COMPLETED'],
        ['LAMBDA', 'COMPLETED'],
      ]);
      assert.equal(wf.tasks[1].outputData.result, 0);
      assert.equal(wf.tasks[2].outputData.result, 1);
    });

    it('"Test workflow with Do While task contains set variable task"', async () => {
      const id = await s.start('cs_do_while_set_variable', { value: 2 });
      const wf = await s.run(id);
      assert.equal(wf.status, 'COMPLETED');
      assert.deepEqual(shape(wf), [
        ['DO_WHILE', 'COMPLETED'],
        ['SET_VARIABLE', 'COMPLETED'],
      ]);
      assert.equal(wf.tasks[1].inputData.value, '0');
    });

    it('"Test workflow with Do While task contains decision task": a WAIT per iteration, list.get(i) in the script', async () => {
      const id = await s.start('cs_do_while_decision', { list: [1, 2] });
      let wf = await s.run(id);
      assert.equal(wf.status, 'RUNNING');
      assert.deepEqual(shape(wf), [
        ['DO_WHILE', 'IN_PROGRESS'],
        ['INLINE', 'COMPLETED'],
        ['SWITCH', 'COMPLETED'],
        ['WAIT', 'IN_PROGRESS'],
      ]);
      assert.equal(wf.tasks[1].outputData.result, 1);
      await s.completeById(id, wf.tasks[3].taskId);
      wf = await s.run(id);
      assert.equal(wf.status, 'RUNNING');
      assert.equal(wf.tasks[0].iteration, 2);
      assert.deepEqual(shape(wf), [
        ['DO_WHILE', 'IN_PROGRESS'],
        ['INLINE', 'COMPLETED'],
        ['SWITCH', 'COMPLETED'],
        ['WAIT', 'COMPLETED'],
        ['INLINE', 'COMPLETED'],
        ['INLINE', 'COMPLETED'],
        ['SWITCH', 'COMPLETED'],
        ['WAIT', 'IN_PROGRESS'],
      ]);
      assert.equal(wf.tasks[5].outputData.result, 2);
      await s.completeById(id, wf.tasks[7].taskId);
      wf = await s.run(id);
      assert.equal(wf.status, 'COMPLETED');
      assert.equal(wf.tasks[0].iteration, 2);
      assert.equal(wf.tasks.length, 9);
      assert.deepEqual(shape(wf)[8], ['INLINE', 'COMPLETED']);
    });

    /**
     * One decision runs at most 64 scripts and goes on in later steps (timers due at once), so a
     * loop of 500 LAMBDAs completes after the start answers (Conductor's start returns it
     * completed): wait for it, with a generous bound.
     */
    const ended = async (id: string) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const wf = await s.run(id);
        if (wf.status !== 'RUNNING' || Date.now() > deadline) return wf;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    it('"Test DO_WHILE with 500 LAMBDA iterations completes" and "iteration counter is correct at 500 iterations"', async () => {
      let wf = await ended(await s.start('cs_do_while_high_iteration', { loop: 500 }));
      assert.equal(wf.status, 'COMPLETED');
      assert.equal(wf.tasks.length, 501);
      assert.equal(wf.tasks[0].iteration, 500);
      assert.equal(wf.tasks[1].iteration, 1);
      assert.equal(wf.tasks[500].iteration, 500);
      wf = await ended(await s.start('cs_do_while_iteration_fix', { loop: 500 }));
      assert.equal(wf.status, 'COMPLETED');
      assert.equal(wf.tasks.length, 501);
      assert.equal(wf.tasks[0].iteration, 500);
      assert.equal(wf.tasks[1].outputData.result, 0);
      assert.equal(wf.tasks[500].outputData.result, 499);
    });
  });
}
