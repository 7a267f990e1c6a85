import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { scenarioHarness, shape, task, worker } from './conductor-scenarios-harness.js';

/**
 * Scenarios of Conductor's integration specs on permissive tasks, SUB_WORKFLOW retries, dynamic
 * forks with wrong-shaped input and the run fields Conductor clients read (ForkJoinSpec,
 * DynamicForkJoinSpec, WorkflowAndTaskConfigurationSpec), replayed through the real routes.
 * Where Baton's contract differs (retry makes a new linked run), the test follows the contract.
 */

type Fields = Record<string, unknown>;
const permissive = (name: string, ref: string, fields: Fields = {}) => ({
  ...worker(name, ref),
  permissive: true,
  ...fields,
});
const fork = (ref: string, forkTasks: unknown[][]) => task('FORK_JOIN', ref, { forkTasks });
const join = (ref: string, joinOn: string[]) => task('JOIN', ref, { joinOn });
/** The inline task definition of ForkJoinSpec's permissive definitions: a response timeout over the timeout. */
const inlineDef = (name: string) => ({
  name,
  retryCount: 0,
  timeoutSeconds: 120,
  timeoutPolicy: 'TIME_OUT_WF',
  retryLogic: 'FIXED',
  retryDelaySeconds: 0,
  responseTimeoutSeconds: 3600,
});

const definitions = [
  // ForkJoinSpec (fork_join_permissive_integration_test.json): two permissive one-task branches.
  workflowDef('cs_fork_permissive', [
    fork('fanouttask', [[permissive('cs_task_rt_1', 't1')], [permissive('cs_task_rt_2', 't2')]]),
    join('fanouttask_join', ['t1', 't2']),
    worker('cs_task_rt_3', 't3'),
  ]),
  // ForkJoinSpec (fork_join_with_no_permissive_task_retry_integration_test.json): permissive
  // tasks with inline task definitions, a two-task branch and a one-task branch, then one more.
  workflowDef('cs_fork_permissive_2', [
    fork('fanouttask', [
      [
        permissive('cs_p_task_1', 't1', { taskDefinition: inlineDef('cs_p_task_1') }),
        permissive('cs_p_task_3', 't3', { taskDefinition: inlineDef('cs_p_task_3') }),
      ],
      [permissive('cs_p_task_2', 't2', { taskDefinition: inlineDef('cs_p_task_2') })],
    ]),
    join('fanouttask_join', ['t3', 't2']),
    permissive('cs_p_task_4', 't4', { taskDefinition: inlineDef('cs_p_task_4') }),
  ]),
  // ForkJoinSpec (fork_join_sub_workflow.json): a SUB_WORKFLOW branch and a worker branch.
  workflowDef('cs_sw_child', [worker('cs_child_task', 'only')]),
  workflowDef('cs_fork_sub_workflow', [
    fork('fanouttask', [
      [
        {
          name: 'cs_sub_workflow_task',
          taskReferenceName: 'st1',
          type: 'SUB_WORKFLOW',
          subWorkflowParam: { name: 'cs_sw_child' },
        },
      ],
      [worker('cs_task_2', 't2')],
    ]),
    join('fanouttask_join', ['st1', 't2']),
  ]),
  // SubWorkflowRetrySpec: a grandparent and a parent each running one child; the leaf child
  // runs one worker task. HierarchicalForkJoinSubworkflow…Spec: the parent forks the child
  // beside a worker task.
  workflowDef('cs_leaf', [worker('cs_child_task', 'leaf_task')]),
  workflowDef('cs_mid', [task('SUB_WORKFLOW', 'to_leaf', { subWorkflowParam: { name: 'cs_leaf' } })]),
  workflowDef('cs_top', [task('SUB_WORKFLOW', 'to_mid', { subWorkflowParam: { name: 'cs_mid' } })]),
  workflowDef('cs_mid_fork', [
    fork('fanouttask', [
      [task('SUB_WORKFLOW', 'to_leaf', { subWorkflowParam: { name: 'cs_leaf' } })],
      [worker('cs_task_rt_2', 'beside')],
    ]),
    join('fanouttask_join', ['to_leaf', 'beside']),
  ]),
  // ForkJoinSpec (fork_join_with_permissive_sub_workflow_forks_integration_test.json).
  workflowDef('cs_fork_permissive_sw', [
    fork('fanouttask', [
      [task('SUB_WORKFLOW', 'st1', { subWorkflowParam: { name: 'cs_sw_child' }, permissive: true })],
      [task('SUB_WORKFLOW', 'st2', { subWorkflowParam: { name: 'cs_sw_child' }, permissive: true })],
    ]),
    join('fanouttask_join', ['st1', 'st2']),
  ]),
  // WorkflowAndTaskConfigurationSpec: a permissive task (retryCount 1), then a worker.
  workflowDef('cs_permissive_task', [
    permissive('cs_retry_once', 'task_permissive'),
    worker('cs_task_2', 'second'),
  ]),
  workflowDef('cs_permissive_optional_task', [
    permissive('cs_task_rt_1', 'task_optional', { optional: true }),
    worker('cs_task_2', 'second'),
  ]),
  // DynamicForkJoinSpec: a worker whose output gives the dynamic fork its tasks and their inputs.
  workflowDef('cs_dynamic_fork', [
    worker('cs_task_1', 'dt1'),
    task('FORK_JOIN_DYNAMIC', 'dynamicfanouttask', {
      dynamicForkTasksParam: 'dynamicTasks',
      dynamicForkTasksInputParamName: 'dynamicTasksInput',
      inputParameters: {
        dynamicTasks: '${dt1.output.dynamicTasks}',
        dynamicTasksInput: '${dt1.output.dynamicTasksInput}',
      },
    }),
    join('dynamicfanouttask_join', []),
    worker('cs_task_4', 'dt4'),
  ]),
];

/** Reads the run until `ready` holds (bounded): a child's end reaches its parent after commit. */
async function eventually(s: ReturnType<typeof scenarioHarness>, id: string, ready: (wf: any) => boolean) {
  for (let i = 0; i < 300; i++) {
    const wf = await s.run(id);
    if (ready(wf)) return wf;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return s.run(id);
}

for (const storeCase of storeCases()) {
  describe(`Conductor scenarios: permissive, sub-workflow retries, dynamic fork input, run fields (${storeCase.name})`, () => {
    const s = scenarioHarness(storeCase, []);
    const registered: Record<string, { status: number; warning: unknown }> = {};
    before(async () => {
      // The SUB_WORKFLOW's task definition: one retry (Conductor's "using task definition").
      // A worker type retried once at once.
      const defs = workerTaskDefs(['cs_sub_workflow_task', 'cs_retry_once'], {
        retryCount: 1,
        retryDelaySeconds: 0,
      });
      const res = await call(s.t().app, 'POST', '/api/metadata/taskdefs', defs);
      assert.equal(res.status, 200, res.text);
      for (const def of definitions) {
        const reg = await call(s.t().app, 'POST', '/api/metadata/workflow', def);
        registered[String(def.name)] = { status: reg.status, warning: reg.headers.warning };
        assert.equal(reg.status, 200, `${String(def.name)}: ${reg.text}`);
      }
    });

    describe('ForkJoinSpec', () => {
      it('"fork join permissive failure flow": the failed branch waits for the other, then the JOIN fails the run', async () => {
        const id = await s.start('cs_fork_permissive', {}, 'fanoutTest');
        let wf = await s.run(id);
        assert.deepEqual(shape(wf), [
          ['FORK', 'COMPLETED'],
          ['cs_task_rt_1', 'SCHEDULED'],
          ['cs_task_rt_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
        ]);
        assert.equal(wf.tasks[1].workflowTask.permissive, true);
        assert.equal(wf.tasks[2].workflowTask.permissive, true);
        await s.fail('cs_task_rt_1', 'Failed...');
        wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['FORK', 'COMPLETED'],
          ['cs_task_rt_1', 'FAILED'],
          ['cs_task_rt_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
        ]);
        await s.complete('cs_task_rt_2');
        wf = await s.run(id);
        assert.equal(wf.status, 'FAILED');
        assert.deepEqual(shape(wf), [
          ['FORK', 'COMPLETED'],
          ['cs_task_rt_1', 'FAILED'],
          ['cs_task_rt_2', 'COMPLETED'],
          ['JOIN', 'FAILED'],
        ]);
      });

      it('"retrying a failed permissive fork join": inline task definitions accepted; the run fails once both branches end; its retry completes', async () => {
        // Conductor accepts these inline definitions (response timeout 3600 over a timeout of
        // 120); Baton registers them and says so in a Warning header.
        assert.equal(registered.cs_fork_permissive_2?.status, 200);
        assert.match(
          String(registered.cs_fork_permissive_2?.warning),
          /^199 - "task t1: inline taskDefinition accepted, but TaskDef: cs_p_task_1 responseTimeoutSeconds: 3600 must be less than timeoutSeconds: 120"/,
        );
        const id = await s.start('cs_fork_permissive_2', {}, 'fanoutTest');
        await s.complete('cs_p_task_1');
        let wf = await s.run(id);
        assert.deepEqual(shape(wf), [
          ['FORK', 'COMPLETED'],
          ['cs_p_task_1', 'COMPLETED'],
          ['cs_p_task_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
          ['cs_p_task_3', 'SCHEDULED'],
        ]);
        await s.fail('cs_p_task_2', 'Failed....');
        wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING', 'not failed until the permissive forked tasks end');
        assert.deepEqual(shape(wf)[2], ['cs_p_task_2', 'FAILED']);
        assert.deepEqual(shape(wf)[3], ['JOIN', 'IN_PROGRESS']);
        await s.fail('cs_p_task_3', 'Failed....');
        wf = await s.run(id);
        assert.equal(wf.status, 'FAILED');
        assert.deepEqual(shape(wf), [
          ['FORK', 'COMPLETED'],
          ['cs_p_task_1', 'COMPLETED'],
          ['cs_p_task_2', 'FAILED'],
          ['JOIN', 'FAILED'],
          ['cs_p_task_3', 'FAILED'],
        ]);

        // Baton's retry makes a new run (linked retry_of) that runs again the failed tasks.
        const retried = await call(s.t().app, 'POST', `/api/workflow/${id}/retry`);
        assert.equal(retried.status, 200, retried.text);
        const newId = retried.text;
        s.track(newId);
        wf = await s.run(newId);
        assert.equal(wf.status, 'RUNNING');
        assert.ok(wf.lastRetriedTime > 0, 'a retried run carries lastRetriedTime');
        const scheduled = wf.tasks.filter((t: any) => t.status === 'SCHEDULED').map((t: any) => t.taskType);
        assert.deepEqual(scheduled.sort(), ['cs_p_task_2', 'cs_p_task_3']);
        await s.complete('cs_p_task_3');
        await s.complete('cs_p_task_2');
        await s.complete('cs_p_task_4');
        wf = await s.run(newId);
        assert.equal(wf.status, 'COMPLETED', wf.reasonForIncompletion);
        assert.deepEqual(shape(wf).at(-1), ['cs_p_task_4', 'COMPLETED']);
      });

      it('"fork join with permissive sub workflow forks terminated by the user": the run is TERMINATED, the JOIN CANCELED', async () => {
        const id = await s.start('cs_fork_permissive_sw', { param1: 'p1 value', param2: 'p2 value' });
        let wf = await s.run(id);
        assert.deepEqual(shape(wf), [
          ['FORK', 'COMPLETED'],
          ['SUB_WORKFLOW', 'IN_PROGRESS'],
          ['SUB_WORKFLOW', 'IN_PROGRESS'],
          ['JOIN', 'IN_PROGRESS'],
        ]);
        const children = [wf.tasks[1].subWorkflowId, wf.tasks[2].subWorkflowId];
        for (const child of children) {
          s.track(child);
          assert.equal((await s.run(child)).status, 'RUNNING');
          const res = await call(
            s.t().app,
            'DELETE',
            `/api/workflow/${child}?reason=terminated%20by%20the%20user`,
          );
          assert.equal(res.status, 200, res.text);
          assert.equal((await s.run(child)).status, 'TERMINATED');
        }
        wf = await s.until(id, ['TERMINATED']);
        assert.equal(wf.status, 'TERMINATED');
        assert.deepEqual(shape(wf), [
          ['FORK', 'COMPLETED'],
          ['SUB_WORKFLOW', 'CANCELED'],
          ['SUB_WORKFLOW', 'CANCELED'],
          ['JOIN', 'CANCELED'],
        ]);
      });

      it('"fork join with sub workflow task using task definition": a failed child is retried under its retryCount', async () => {
        const id = await s.start('cs_fork_sub_workflow', { param1: 'p1 value', param2: 'p2 value' });
        let wf = await s.run(id);
        assert.deepEqual(shape(wf), [
          ['FORK', 'COMPLETED'],
          ['SUB_WORKFLOW', 'IN_PROGRESS'],
          ['cs_task_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
        ]);
        assert.deepEqual(wf.tasks[3].inputData.joinOn, ['st1', 't2']);
        const firstChild = wf.tasks[1].subWorkflowId;
        s.track(firstChild);
        const child = await s.run(firstChild);
        assert.equal(child.status, 'RUNNING');
        assert.deepEqual(shape(child), [['cs_child_task', 'SCHEDULED']]);

        await s.fail('cs_child_task', 'Failed....');
        assert.equal((await s.until(firstChild, ['FAILED'])).status, 'FAILED');
        wf = await eventually(s, id, (w) => w.tasks.length === 5);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['FORK', 'COMPLETED'],
          ['SUB_WORKFLOW', 'FAILED'],
          ['cs_task_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
          ['SUB_WORKFLOW', 'IN_PROGRESS'],
        ]);
        assert.equal(wf.tasks[4].retryCount, 1);
        const secondChild = wf.tasks[4].subWorkflowId;
        assert.notEqual(secondChild, firstChild);
        s.track(secondChild);
        assert.deepEqual(shape(await s.run(secondChild)), [['cs_child_task', 'SCHEDULED']]);

        await s.complete('cs_child_task');
        assert.equal((await s.until(secondChild, ['COMPLETED'])).status, 'COMPLETED');
        wf = await eventually(s, id, (w) => w.tasks[4].status === 'COMPLETED');
        assert.deepEqual(shape(wf)[4], ['SUB_WORKFLOW', 'COMPLETED']);
        assert.equal(wf.status, 'RUNNING');
        await s.complete('cs_task_2');
        wf = await s.until(id, ['COMPLETED']);
        assert.equal(wf.status, 'COMPLETED');
        assert.deepEqual(shape(wf)[3], ['JOIN', 'COMPLETED']);
      });
    });

    describe('SubWorkflowRetrySpec, HierarchicalForkJoinSubworkflowRetrySpec', () => {
      it('retrying the failed leaf child resumes its parent and grandparent, which complete with it', async () => {
        const top = await s.start('cs_top', {});
        const mid = (await eventually(s, top, (w) => w.tasks[0]?.subWorkflowId !== undefined)).tasks[0]
          .subWorkflowId;
        s.track(mid);
        const leaf = (await eventually(s, mid, (w) => w.tasks[0]?.subWorkflowId !== undefined)).tasks[0]
          .subWorkflowId;
        s.track(leaf);
        await s.fail('cs_child_task', 'Failed....');
        assert.equal((await s.until(top, ['FAILED'])).status, 'FAILED');
        assert.equal((await s.run(mid)).status, 'FAILED');

        // Baton's retry makes a new leaf run; the parent's task follows it, and the ancestors
        // return to RUNNING (Conductor's retry of a child resumes its parents).
        const retried = await call(s.t().app, 'POST', `/api/workflow/${leaf}/retry`);
        assert.equal(retried.status, 200, retried.text);
        const leaf2 = retried.text;
        s.track(leaf2);
        const newLeaf = await s.run(leaf2);
        assert.equal(newLeaf.parentWorkflowId, mid);
        assert.equal(newLeaf.links.retry_of, leaf);
        let midRun = await s.run(mid);
        assert.equal(midRun.status, 'RUNNING');
        assert.deepEqual(shape(midRun), [['SUB_WORKFLOW', 'IN_PROGRESS']]);
        assert.equal(midRun.tasks[0].subWorkflowId, leaf2);
        assert.equal(midRun.reasonForIncompletion, undefined);
        assert.ok(midRun.lastRetriedTime > 0);
        const why = midRun.waitingFor.find((w: any) => w.childWorkflowId === leaf2);
        assert.ok(why, JSON.stringify(midRun.waitingFor));
        assert.match(why.message, new RegExp(`the retry of child run ${leaf}`));
        let topRun = await s.run(top);
        assert.equal(topRun.status, 'RUNNING');
        assert.deepEqual(shape(topRun), [['SUB_WORKFLOW', 'IN_PROGRESS']]);
        assert.equal(topRun.tasks[0].subWorkflowId, mid);

        await s.complete('cs_child_task');
        topRun = await s.until(top, ['COMPLETED']);
        assert.equal(topRun.status, 'COMPLETED');
        midRun = await s.run(mid);
        assert.equal(midRun.status, 'COMPLETED');
        assert.equal((await s.run(leaf2)).status, 'COMPLETED');
      });

      it('HierarchicalForkJoinSubworkflowRestartSpec "restart on the mid-level": the root follows the new mid-level run and completes with it', async () => {
        const top = await s.start('cs_top', {});
        const mid = (await eventually(s, top, (w) => w.tasks[0]?.subWorkflowId !== undefined)).tasks[0]
          .subWorkflowId;
        s.track(mid);
        await eventually(s, mid, (w) => w.tasks[0]?.subWorkflowId !== undefined);
        await s.fail('cs_child_task', 'Failed....');
        assert.equal((await s.until(top, ['FAILED'])).status, 'FAILED');

        const restarted = await call(s.t().app, 'POST', `/api/workflow/${mid}/restart`);
        assert.equal(restarted.status, 200, restarted.text);
        const mid2 = restarted.text;
        s.track(mid2);
        const newMid = await s.run(mid2);
        assert.equal(newMid.links.restart_of, mid);
        assert.equal(newMid.parentWorkflowId, top);
        let topRun = await s.run(top);
        assert.equal(topRun.status, 'RUNNING');
        assert.deepEqual(shape(topRun), [['SUB_WORKFLOW', 'IN_PROGRESS']]);
        assert.equal(topRun.tasks[0].subWorkflowId, mid2);
        const leaf2 = (await eventually(s, mid2, (w) => w.tasks[0]?.subWorkflowId !== undefined)).tasks[0]
          .subWorkflowId;
        s.track(leaf2);
        await s.complete('cs_child_task');
        topRun = await s.until(top, ['COMPLETED']);
        assert.equal(topRun.status, 'COMPLETED');
        assert.equal((await s.run(mid2)).status, 'COMPLETED');
        assert.equal((await s.run(mid)).status, 'FAILED', 'the restarted run stays as it ended');
      });

      it('a parent that forked the child beside a worker: the JOIN and the canceled worker task come back', async () => {
        const mid = await s.start('cs_mid_fork', {});
        const leaf = (await eventually(s, mid, (w) => w.tasks[1]?.subWorkflowId !== undefined)).tasks[1]
          .subWorkflowId;
        s.track(leaf);
        await s.fail('cs_child_task', 'Failed....');
        let midRun = await s.until(mid, ['FAILED']);
        assert.deepEqual(shape(midRun), [
          ['FORK', 'COMPLETED'],
          ['SUB_WORKFLOW', 'FAILED'],
          ['cs_task_rt_2', 'CANCELED'],
          ['JOIN', 'CANCELED'],
        ]);
        const retried = await call(s.t().app, 'POST', `/api/workflow/${leaf}/retry`);
        assert.equal(retried.status, 200, retried.text);
        s.track(retried.text);
        midRun = await s.run(mid);
        assert.equal(midRun.status, 'RUNNING');
        assert.deepEqual(shape(midRun), [
          ['FORK', 'COMPLETED'],
          ['SUB_WORKFLOW', 'IN_PROGRESS'],
          ['cs_task_rt_2', 'CANCELED'],
          ['JOIN', 'IN_PROGRESS'],
          ['cs_task_rt_2', 'SCHEDULED'],
        ]);
        await s.complete('cs_task_rt_2');
        await s.complete('cs_child_task');
        midRun = await s.until(mid, ['COMPLETED']);
        assert.equal(midRun.status, 'COMPLETED');
        assert.deepEqual(shape(midRun)[3], ['JOIN', 'COMPLETED']);
      });
    });

    describe('WorkflowAndTaskConfigurationSpec', () => {
      it('"permissive task": retried, then the next task runs, and the run fails when it would complete', async () => {
        const id = await s.start('cs_permissive_task', { param1: 'p1 value', param2: 'p2 value' });
        await s.fail('cs_retry_once', 'NETWORK ERROR');
        let wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['cs_retry_once', 'FAILED'],
          ['cs_retry_once', 'SCHEDULED'],
        ]);
        await s.fail('cs_retry_once', 'NETWORK ERROR');
        wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['cs_retry_once', 'FAILED'],
          ['cs_retry_once', 'FAILED'],
          ['cs_task_2', 'SCHEDULED'],
        ]);
        await s.complete('cs_task_2');
        wf = await s.run(id);
        assert.equal(wf.status, 'FAILED');
        assert.match(
          wf.reasonForIncompletion,
          /^Task \S+ failed with status: FAILED and reason: 'NETWORK ERROR'$/,
        );
        assert.deepEqual(shape(wf)[2], ['cs_task_2', 'COMPLETED']);
        assert.deepEqual(wf.failedReferenceTaskNames, ['task_permissive']);
      });

      it('"permissive optional task": optional wins, the run completes', async () => {
        const id = await s.start('cs_permissive_optional_task', {});
        await s.fail('cs_task_rt_1', 'NETWORK ERROR');
        let wf = await s.run(id);
        assert.deepEqual(shape(wf), [
          ['cs_task_rt_1', 'COMPLETED_WITH_ERRORS'],
          ['cs_task_2', 'SCHEDULED'],
        ]);
        await s.complete('cs_task_2');
        wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
      });

      it('run fields: schemaVersion 2 by default; failedReferenceTaskNames lists a task that failed before its retry succeeded', async () => {
        const plain = {
          name: 'cs_no_schema_version',
          ownerEmail: 'dev@baton.test',
          tasks: [worker('cs_retry_once', 'a')],
        };
        const reg = await call(s.t().app, 'POST', '/api/metadata/workflow', plain);
        assert.equal(reg.status, 200, reg.text);
        const read = await call(s.t().app, 'GET', '/api/metadata/workflow/cs_no_schema_version');
        assert.equal(read.body.schemaVersion, 2);

        const id = await s.start('cs_no_schema_version', {});
        await s.fail('cs_retry_once', 'once');
        await s.complete('cs_retry_once');
        const wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.equal(wf.workflowDefinition.schemaVersion, 2);
        assert.deepEqual(wf.failedReferenceTaskNames, ['a']);
        assert.deepEqual(wf.failedTaskNames, ['cs_retry_once']);
      });
    });

    describe('DynamicForkJoinSpec', () => {
      it('"fail when task input is invalid": an entry of dynamicTasksInput that is not a map fails the run', async () => {
        const id = await s.start('cs_dynamic_fork', {});
        const dynamicTasks = [worker('cs_task_2', 'xdt1'), worker('cs_task_3', 'xdt2')];
        await s.complete('cs_task_1', { dynamicTasks, dynamicTasksInput: { xdt1: 'v1', xdt2: 'v2' } });
        const wf = await s.run(id);
        assert.equal(wf.status, 'FAILED');
        assert.deepEqual(shape(wf), [['cs_task_1', 'COMPLETED']]);
        assert.match(wf.reasonForIncompletion, /^Tasks could not be dynamically forked due to invalid input/);
      });

      it('a dynamicTasksInput that is a string fails the run with a reason', async () => {
        const id = await s.start('cs_dynamic_fork', {});
        const dynamicTasks = [worker('cs_task_2', 'xdt1')];
        await s.complete('cs_task_1', { dynamicTasks, dynamicTasksInput: 'xdt1' });
        const wf = await s.run(id);
        assert.equal(wf.status, 'FAILED');
        assert.match(wf.reasonForIncompletion, /^Input to the dynamically forked tasks is not a map/);
      });
    });
  });
}
