import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ManualClock } from '../../src/clock.js';
import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { workflowDef } from '../helpers/definitions.js';
import { pollOneTask, pollTasks, postResult, runOf } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

/**
 * WorkflowAndTaskConfigurationSpec's methods not in the other suites (optional task, input
 * template, task and run timeouts, retrying a timed-out run, reruns of a completed run, skipping,
 * pause and resume, callbacks, task definition templates, an unregistered task type), replayed
 * through the routes on a manual clock: where the spec sleeps, the clock moves and due timers fire.
 */

const OWNER = 'test@harness.com';
const input = { param1: 'p1 value', param2: 'p2 value' };
const shape = (run: any): Array<[string, string]> => run.tasks.map((t: any) => [t.taskType, t.status]);
const taskDef = (name: string, fields: Record<string, unknown> = {}) => ({
  name,
  retryCount: 1,
  timeoutSeconds: 120,
  responseTimeoutSeconds: 120,
  retryDelaySeconds: 0,
  ownerEmail: OWNER,
  ...fields,
});
const simple = (name: string, ref: string, inputParameters: Record<string, unknown> = {}) => ({
  name,
  taskReferenceName: ref,
  type: 'SIMPLE',
  inputParameters,
});
/** LINEAR_WORKFLOW_T1_T2 with `prefix`'s worker types. */
const linear = (prefix: string, extra: Record<string, unknown> = {}) => ({
  ...workflowDef(
    `${prefix}_wf`,
    [
      simple(`${prefix}_1`, 't1', { p1: '${workflow.input.param1}', p2: '${workflow.input.param2}' }),
      simple(`${prefix}_2`, 't2', { tp1: '${workflow.input.param1}', tp2: '${t1.output.op}' }),
    ],
    { o3: '${t1.output.op}' },
  ),
  ...extra,
});

for (const storeCase of storeCases()) {
  describe(`Conductor scenarios: WorkflowAndTaskConfigurationSpec on a manual clock (${storeCase.name})`, () => {
    const clock = new ManualClock();
    const t = appSuite(storeCase, { clock });
    const fire = (): Promise<number> => t.server.timers.fireDue();
    const start = async (name: string, body: Record<string, unknown> = { input }): Promise<string> => {
      const res = await call(t.app, 'POST', `/api/workflow/${name}`, body);
      assert.equal(res.status, 200, res.text);
      return res.text;
    };
    const complete = async (type: string, output: Record<string, unknown> = {}) => {
      const task = await pollOneTask(t.app, type);
      await postResult(t.app, task, 'COMPLETED', { outputData: output });
      return task;
    };
    const nothingToPoll = async (type: string) => assert.deepEqual(await pollTasks(t.app, type), []);
    const linearSetup = async (
      prefix: string,
      first: Record<string, unknown> = {},
      extra: Record<string, unknown> = {},
    ) => register(t.app, [linear(prefix, extra)], [taskDef(`${prefix}_1`, first), taskDef(`${prefix}_2`)]);

    it('"Test simple workflow which has an optional task": failed, retried, timed out, COMPLETED_WITH_ERRORS, then on', async () => {
      await register(
        t.app,
        [
          workflowDef('wc_optional_wf', [
            { ...simple('wc_task_optional', 'task_optional'), optional: true },
            simple('wc_opt_2', 't2'),
          ]),
        ],
        [
          taskDef('wc_task_optional', {
            timeoutSeconds: 5,
            responseTimeoutSeconds: 5,
            timeoutPolicy: 'RETRY',
          }),
          taskDef('wc_opt_2'),
        ],
      );
      const id = await start('wc_optional_wf');
      assert.deepEqual(shape(await runOf(t.app, id)), [['wc_task_optional', 'SCHEDULED']]);
      const first = await pollOneTask(t.app, 'wc_task_optional');
      await postResult(t.app, first, 'FAILED', { reasonForIncompletion: 'NETWORK ERROR' });
      let run = await runOf(t.app, id);
      assert.equal(run.status, 'RUNNING');
      assert.deepEqual(shape(run), [
        ['wc_task_optional', 'FAILED'],
        ['wc_task_optional', 'SCHEDULED'],
      ]);
      await pollOneTask(t.app, 'wc_task_optional');
      clock.advance(5_000);
      await fire();
      run = await runOf(t.app, id);
      assert.equal(run.status, 'RUNNING');
      assert.deepEqual(shape(run), [
        ['wc_task_optional', 'FAILED'],
        ['wc_task_optional', 'COMPLETED_WITH_ERRORS'],
        ['wc_opt_2', 'SCHEDULED'],
      ]);
      await complete('wc_opt_2');
      run = await runOf(t.app, id);
      assert.equal(run.status, 'COMPLETED');
      assert.deepEqual(shape(run)[2], ['wc_opt_2', 'COMPLETED']);
    });

    it('"test workflow with input template parsing": the definition\'s inputTemplate fills the missing inputs', async () => {
      await register(
        t.app,
        [
          {
            ...workflowDef(
              'wc_template_wf',
              [
                simple('wc_tpl_1', 't1', {
                  p1: '${workflow.input.param1}',
                  p3: '${CPEWF_TASK_ID}',
                  someNullKey: null,
                }),
              ],
              {
                output: '${t1.output.op}',
                param1: '${workflow.input.param1}',
                param2: '${workflow.input.param2}',
                param3: '${workflow.input.param3}',
              },
            ),
            inputParameters: ['param1', 'param2', 'param3', 'param4'],
            inputTemplate: {
              param1: { nested_object: { nested_key: 'nested_value' } },
              param2: ['list', 'of', 'strings'],
              param3: 'string',
            },
          },
        ],
        [taskDef('wc_tpl_1')],
      );
      const id = await start('wc_template_wf', { input: { param3: 'external string' } });
      await complete('wc_tpl_1', { op: 'task1.done' });
      const run = await runOf(t.app, id);
      assert.equal(run.status, 'COMPLETED');
      assert.deepEqual(run.output, {
        output: 'task1.done',
        param3: 'external string',
        param2: ['list', 'of', 'strings'],
        param1: { nested_object: { nested_key: 'nested_value' } },
      });
    });

    it('"Test simple workflow with task time out configuration": timed out, retried, timed out again: the run TIMED_OUT', async () => {
      await linearSetup('wc_tto', {
        retryCount: 1,
        timeoutSeconds: 1,
        responseTimeoutSeconds: 1,
        timeoutPolicy: 'RETRY',
      });
      const id = await start('wc_tto_wf');
      await pollOneTask(t.app, 'wc_tto_1');
      clock.advance(3_000);
      await fire();
      let run = await runOf(t.app, id);
      assert.equal(run.status, 'RUNNING');
      assert.deepEqual(shape(run), [
        ['wc_tto_1', 'TIMED_OUT'],
        ['wc_tto_1', 'SCHEDULED'],
      ]);
      await pollOneTask(t.app, 'wc_tto_1');
      clock.advance(3_000);
      await fire();
      run = await runOf(t.app, id);
      assert.equal(run.status, 'TIMED_OUT');
      assert.deepEqual(shape(run), [
        ['wc_tto_1', 'TIMED_OUT'],
        ['wc_tto_1', 'TIMED_OUT'],
      ]);
    });

    const timedOutRun = async (prefix: string, completeFirst: boolean) => {
      await linearSetup(prefix, {}, { timeoutPolicy: 'TIME_OUT_WF', timeoutSeconds: 5 });
      const id = await start(`${prefix}_wf`, { input, correlationId: 'retry_timeout_wf' });
      const task = await pollOneTask(t.app, `${prefix}_1`);
      if (completeFirst) await postResult(t.app, task, 'COMPLETED', { outputData: { op: 'task1.done' } });
      clock.advance(6_000);
      await fire();
      const run = await runOf(t.app, id);
      assert.equal(run.status, 'TIMED_OUT');
      return { id, run };
    };

    it('"Test workflow timeout configurations": the run TIMED_OUT, its open task CANCELED', async () => {
      const { run } = await timedOutRun('wc_wto', false);
      assert.deepEqual(shape(run), [['wc_wto_1', 'CANCELED']]);
    });

    it('"Test retrying a timed out workflow due to workflow timeout": the retry schedules the canceled task', async () => {
      const { id, run } = await timedOutRun('wc_rto', false);
      assert.ok(!run.lastRetriedTime, 'never retried yet');
      const retried = await call(t.app, 'POST', `/api/workflow/${id}/retry`);
      assert.equal(retried.status, 200, retried.text);
      const next = await runOf(t.app, retried.text);
      assert.equal(next.status, 'RUNNING');
      assert.ok(next.lastRetriedTime > 0);
      assert.deepEqual(shape(next), [['wc_rto_1', 'SCHEDULED']]);
      await call(t.app, 'DELETE', `/api/workflow/${retried.text}?reason=done`);
    });

    it('"Test retrying a timed out workflow due to workflow timeout without unsuccessful tasks": the next task is scheduled', async () => {
      const { id, run } = await timedOutRun('wc_rtn', true);
      assert.deepEqual(shape(run)[0], ['wc_rtn_1', 'COMPLETED']);
      const retried = await call(t.app, 'POST', `/api/workflow/${id}/retry`);
      assert.equal(retried.status, 200, retried.text);
      const next = await runOf(t.app, retried.text);
      assert.equal(next.status, 'RUNNING');
      assert.ok(next.lastRetriedTime > 0);
      assert.deepEqual(shape(next)[0], ['wc_rtn_1', 'COMPLETED']);
      assert.ok(next.tasks.some((task: any) => task.taskType === 'wc_rtn_2' && task.status === 'SCHEDULED'));
      await call(t.app, 'DELETE', `/api/workflow/${retried.text}?reason=done`);
    });

    it('"Test re-running the simple workflow multiple times after completion": from t2, then from the start', async () => {
      await linearSetup('wc_rr');
      const id = await start('wc_rr_wf', { input, correlationId: 'unit_test_1' });
      await complete('wc_rr_1', { op: 'task1.done' });
      await complete('wc_rr_2');
      let run = await runOf(t.app, id);
      assert.equal(run.status, 'COMPLETED');
      assert.ok('o3' in run.output);

      const fromT2 = await call(t.app, 'POST', `/api/workflow/${id}/rerun`, {
        reRunFromTaskId: run.tasks[1].taskId,
      });
      assert.equal(fromT2.status, 200, fromT2.text);
      run = await runOf(t.app, fromT2.text);
      assert.equal(run.status, 'RUNNING');
      assert.deepEqual(shape(run), [
        ['wc_rr_1', 'COMPLETED'],
        ['wc_rr_2', 'SCHEDULED'],
      ]);
      await complete('wc_rr_2');
      run = await runOf(t.app, fromT2.text);
      assert.equal(run.status, 'COMPLETED');
      assert.equal(run.output.o3, 'task1.done');

      const fromStart = await call(t.app, 'POST', `/api/workflow/${id}/rerun`, {});
      assert.equal(fromStart.status, 200, fromStart.text);
      run = await runOf(t.app, fromStart.text);
      assert.deepEqual(shape(run), [['wc_rr_1', 'SCHEDULED']]);
      await complete('wc_rr_1', { op: 'task1.done' });
      assert.deepEqual(shape(await runOf(t.app, fromStart.text)), [
        ['wc_rr_1', 'COMPLETED'],
        ['wc_rr_2', 'SCHEDULED'],
      ]);
      await complete('wc_rr_2');
      run = await runOf(t.app, fromStart.text);
      assert.equal(run.status, 'COMPLETED');
      assert.ok('o3' in run.output);
    });

    it('"Test task skipping in simple workflows": t2 skipped ahead, t1 and t3 run (listed in seq order)', async () => {
      await register(
        t.app,
        [
          workflowDef('wc_skip_wf', [
            simple('wc_skip_1', 't1'),
            simple('wc_skip_2', 't2'),
            simple('wc_skip_3', 't3'),
          ]),
        ],
        [taskDef('wc_skip_1'), taskDef('wc_skip_2'), taskDef('wc_skip_3')],
      );
      const id = await start('wc_skip_wf');
      const skipped = await call(t.app, 'PUT', `/api/workflow/${id}/skiptask/t2`);
      assert.equal(skipped.status, 200, skipped.text);
      let run = await runOf(t.app, id);
      assert.equal(run.status, 'RUNNING');
      // Conductor lists the skipped task first (seq 0); Baton lists it where it was skipped.
      assert.deepEqual([...shape(run)].sort(), [
        ['wc_skip_1', 'SCHEDULED'],
        ['wc_skip_2', 'SKIPPED'],
      ]);
      await complete('wc_skip_1', { op: 'task1.done' });
      run = await runOf(t.app, id);
      assert.deepEqual(shape(run).at(-1), ['wc_skip_3', 'SCHEDULED']);
      await nothingToPoll('wc_skip_2');
      await complete('wc_skip_3');
      run = await runOf(t.app, id);
      assert.equal(run.status, 'COMPLETED');
      assert.equal(run.tasks.length, 3);
    });

    it('"Test pause and resume simple workflow": a paused run schedules nothing until resumed', async () => {
      await linearSetup('wc_pr');
      const id = await start('wc_pr_wf');
      assert.equal((await call(t.app, 'PUT', `/api/workflow/${id}/pause`)).status, 200);
      await complete('wc_pr_1', { op: 'task1.done' });
      let run = await runOf(t.app, id);
      assert.equal(run.status, 'PAUSED');
      assert.deepEqual(shape(run), [['wc_pr_1', 'COMPLETED']]);
      await nothingToPoll('wc_pr_2');
      await call(t.app, 'PUT', `/api/workflow/decide/${id}`);
      await nothingToPoll('wc_pr_2');
      assert.equal((await call(t.app, 'PUT', `/api/workflow/${id}/resume`)).status, 200);
      run = await runOf(t.app, id);
      assert.equal(run.status, 'RUNNING');
      assert.deepEqual(shape(run), [
        ['wc_pr_1', 'COMPLETED'],
        ['wc_pr_2', 'SCHEDULED'],
      ]);
      await complete('wc_pr_2');
      run = await runOf(t.app, id);
      assert.equal(run.status, 'COMPLETED');
      assert.ok('o3' in run.output);
    });

    it('"Test simple workflow with callbackAfterSeconds for tasks": each task polled again only after its callback', async () => {
      await linearSetup('wc_cb');
      const id = await start('wc_cb_wf');
      const first = await pollOneTask(t.app, 'wc_cb_1');
      await postResult(t.app, first, 'IN_PROGRESS', { callbackAfterSeconds: 2 });
      assert.deepEqual(shape(await runOf(t.app, id)), [['wc_cb_1', 'SCHEDULED']]);
      await nothingToPoll('wc_cb_1');
      clock.advance(2_050);
      await complete('wc_cb_1', { op: 'task1.done' });
      assert.deepEqual(shape(await runOf(t.app, id)), [
        ['wc_cb_1', 'COMPLETED'],
        ['wc_cb_2', 'SCHEDULED'],
      ]);
      const second = await pollOneTask(t.app, 'wc_cb_2');
      await postResult(t.app, second, 'IN_PROGRESS', { callbackAfterSeconds: 5 });
      assert.deepEqual(shape(await runOf(t.app, id))[1], ['wc_cb_2', 'SCHEDULED']);
      await nothingToPoll('wc_cb_2');
      clock.advance(5_100);
      await complete('wc_cb_2');
      const run = await runOf(t.app, id);
      assert.equal(run.status, 'COMPLETED');
      assert.deepEqual(shape(run), [
        ['wc_cb_1', 'COMPLETED'],
        ['wc_cb_2', 'COMPLETED'],
      ]);
    });

    it('"Test task def template": the task definition\'s inputTemplate is resolved into the task input', async () => {
      const httpRequest = {
        method: 'GET',
        vipStack: '${STACK2}',
        uri: '/get/something',
        body: {
          inputPaths: ['${workflow.input.path1}', '${workflow.input.path2}'],
          requestDetails: '${workflow.input.requestDetails}',
          outputPath: '${workflow.input.outputPath}',
        },
      };
      await register(
        t.app,
        [workflowDef('wc_template_workflow', [simple('wc_templated_task', 't0')])],
        [{ name: 'wc_templated_task', ownerEmail: OWNER, inputTemplate: { http_request: httpRequest } }],
      );
      const id = await start('wc_template_workflow', {
        input: {
          path1: 'file://path1',
          path2: 'file://path2',
          outputPath: 's3://bucket/outputPath',
          requestDetails: { key1: 'value1', key2: 42 },
        },
        correlationId: 'workflow_taskdef_template',
      });
      const run = await runOf(t.app, id);
      assert.equal(run.status, 'RUNNING');
      assert.equal(run.tasks.length, 1);
      // Conductor resolves `${STACK2}` from a system property; Baton's expressions read no
      // environment (README, differences from Conductor): it resolves to nothing.
      assert.deepEqual(run.tasks[0].inputData.http_request, {
        method: 'GET',
        vipStack: null,
        uri: '/get/something',
        body: {
          inputPaths: ['file://path1', 'file://path2'],
          requestDetails: { key1: 'value1', key2: 42 },
          outputPath: 's3://bucket/outputPath',
        },
      });
      await call(t.app, 'DELETE', `/api/workflow/${id}?reason=done`);
    });

    it('SubWorkflowSpec "Test retrying a subworkflow where parent workflow timed out due to workflowTimeout"', async () => {
      await register(
        t.app,
        [
          workflowDef('wc_sw_child', [simple('wc_sw_child_task', 'simple_task_in_sub_wf')]),
          {
            ...workflowDef('wc_sw_parent', [
              simple('wc_sw_1', 't1', { p1: '${workflow.input.param1}' }),
              {
                name: 'sub_workflow_task',
                taskReferenceName: 't2',
                type: 'SUB_WORKFLOW',
                subWorkflowParam: { name: '${workflow.input.subwf}', version: 1 },
              },
            ]),
            timeoutPolicy: 'TIME_OUT_WF',
            timeoutSeconds: 10,
          },
        ],
        [taskDef('wc_sw_1'), taskDef('wc_sw_child_task', { retryCount: 0 })],
      );
      const id = await start('wc_sw_parent', { input: { ...input, subwf: 'wc_sw_child' } });
      await complete('wc_sw_1', { op: 'task1.done' });
      let parent = await runOf(t.app, id);
      assert.deepEqual(shape(parent), [
        ['wc_sw_1', 'COMPLETED'],
        ['SUB_WORKFLOW', 'IN_PROGRESS'],
      ]);
      const child = parent.tasks[1].subWorkflowId;
      assert.deepEqual(shape(await runOf(t.app, child)), [['wc_sw_child_task', 'SCHEDULED']]);
      clock.advance(10_000);
      await fire();
      parent = await runOf(t.app, id);
      assert.equal(parent.status, 'TIMED_OUT');
      assert.deepEqual(shape(parent), [
        ['wc_sw_1', 'COMPLETED'],
        ['SUB_WORKFLOW', 'CANCELED'],
      ]);
      const ended = await runOf(t.app, child);
      assert.equal(ended.status, 'TERMINATED');
      assert.deepEqual(shape(ended), [['wc_sw_child_task', 'CANCELED']]);

      const retried = await call(t.app, 'POST', `/api/workflow/${child}/retry`);
      assert.equal(retried.status, 200, retried.text);
      assert.deepEqual(shape(await runOf(t.app, retried.text)), [['wc_sw_child_task', 'SCHEDULED']]);
      parent = await runOf(t.app, id);
      assert.equal(parent.status, 'RUNNING');
      assert.deepEqual(shape(parent)[1], ['SUB_WORKFLOW', 'IN_PROGRESS']);
      assert.equal(parent.tasks[1].subWorkflowId, retried.text);
      await complete('wc_sw_child_task', { op: 'simple_task_in_sub_wf.done' });
      assert.equal((await runOf(t.app, retried.text)).status, 'COMPLETED');
      // The child's end reaches its parent after the child's commit.
      for (let i = 0; i < 300 && parent.status === 'RUNNING'; i++) {
        await fire();
        await new Promise((resolve) => setTimeout(resolve, 10));
        parent = await runOf(t.app, id);
      }
      assert.equal(parent.status, 'COMPLETED');
      assert.deepEqual(shape(parent), [
        ['wc_sw_1', 'COMPLETED'],
        ['SUB_WORKFLOW', 'COMPLETED'],
      ]);
    });

    it('"Test task def created if not exist": a SIMPLE task with no registered definition runs', async () => {
      await register(t.app, [workflowDef('wc_test_workflow', [simple('wc_task_not_registered', 't0')])]);
      const id = await start('wc_test_workflow', {
        input: {},
        correlationId: 'workflow_taskdef_not_registered',
      });
      const run = await runOf(t.app, id);
      assert.equal(run.status, 'RUNNING');
      assert.equal(run.tasks.length, 1);
      assert.equal(run.tasks[0].taskDefName, 'wc_task_not_registered');
      await call(t.app, 'DELETE', `/api/workflow/${id}?reason=done`);
    });
  });
}
