import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { scenarioHarness, shape, task, worker } from './conductor-scenarios-harness.js';

/**
 * The scenarios of Conductor's integration specs for plain flows, forks, loops and dynamic forks,
 * replayed through the real routes on Baton's own definitions (same shapes, task kinds and
 * expressions; our names). The test plays the workers through poll and result routes.
 * Sibling suites: conductor-scenarios-switch.test.ts (SWITCH, DECISION, EXCLUSIVE_JOIN, test
 * runs) and conductor-scenarios-system.test.ts (system tasks, failure workflows, child runs).
 */

const loopCondition = "if ($.loop['iteration'] < $.limit) { true; } else { false; }";
const limit = { limit: '${workflow.input.loop}' };
/** A LAMBDA that makes a location, and a JSON_JQ_TRANSFORM that wraps it (the loop's system tasks). */
const locate = { name: 'locate', taskReferenceName: 'locate', type: 'LAMBDA' };
const locateInput = { scriptExpression: "return { site: 'some location id' };" };
const wrapSite = (ref: string) => ({
  name: ref,
  taskReferenceName: ref,
  type: 'JSON_JQ_TRANSFORM',
  inputParameters: {
    siteId: '${locate.output.result.site}',
    queryExpression: '{ out: { locationId: .siteId } }',
  },
});
const fork = (ref: string, forkTasks: Array<Array<Record<string, unknown>>>) =>
  task('FORK_JOIN', ref, { forkTasks });
const join = (ref: string, joinOn: string[]) => task('JOIN', ref, { joinOn });
const dynamicFork = (name: string | undefined) => ({
  ...(name !== undefined && { name }),
  taskReferenceName: 'fan_out',
  type: 'FORK_JOIN_DYNAMIC',
  inputParameters: {
    dynamicTasks: '${plan.output.dynamicTasks}',
    dynamicTasksInput: '${plan.output.dynamicTasksInput}',
  },
  dynamicForkTasksParam: 'dynamicTasks',
  dynamicForkTasksInputParamName: 'dynamicTasksInput',
});

const definitions = [
  // SimpleWorkflowSpec: two worker tasks, inputs from the run, the previous task and the task's id.
  workflowDef(
    'cs_simple',
    [
      worker('cs_task_1', 'first', {
        p1: '${workflow.input.param1}',
        p2: '${workflow.input.param2}',
        p3: '${CPEWF_TASK_ID}',
        someNullKey: null,
      }),
      worker('cs_task_2', 'second', {
        tp1: '${workflow.input.param1}',
        tp2: '${first.output.op}',
        tp3: '${CPEWF_TASK_ID}',
      }),
    ],
    { o1: '${workflow.input.param1}', o2: '${second.output.uuid}', o3: '${first.output.op}' },
  ),
  // ForkJoinSpec: a two-task branch and a one-task branch, joined on their last tasks, then one more.
  workflowDef('cs_fork_join', [
    fork('split', [[worker('cs_task_1', 'a1'), worker('cs_task_3', 'a2')], [worker('cs_task_2', 'b1')]]),
    join('merge', ['a2', 'b1']),
    worker('cs_task_4', 'after'),
  ]),
  workflowDef('cs_fork_join_no_retry', [
    fork('split', [
      [worker('cs_task_rt_1', 'a1'), worker('cs_task_rt_3', 'a2')],
      [worker('cs_task_rt_2', 'b1')],
    ]),
    join('merge', ['a2', 'b1']),
    worker('cs_task_rt_4', 'after'),
  ]),
  // DoWhileSpec: a loop over a worker task and a fork/join; the run's `loop` input bounds it.
  workflowDef('cs_do_while', [
    {
      name: 'loop',
      taskReferenceName: 'loop',
      type: 'DO_WHILE',
      inputParameters: limit,
      loopCondition,
      loopOver: [
        worker('cs_task_0', 'step'),
        fork('fan', [[worker('cs_task_1', 'left')], [worker('cs_task_2', 'right')]]),
        join('gather', ['left', 'right']),
      ],
    },
  ]),
  // DoWhileSpec: five tasks a loop (LAMBDA, jq, worker, jq, worker), then a worker after the loop.
  workflowDef('cs_do_while_five', [
    {
      name: 'loop',
      taskReferenceName: 'loop',
      type: 'DO_WHILE',
      inputParameters: limit,
      loopCondition,
      loopOver: [
        { ...locate, inputParameters: locateInput },
        wrapSite('wrap_site'),
        worker('cs_task_1', 'first'),
        wrapSite('wrap_again'),
        worker('cs_task_2', 'second'),
      ],
    },
    worker('cs_task_3', 'last'),
  ]),
  // DoWhileSpec: a loop of system tasks only (LAMBDA, jq, jq), then a worker after the loop.
  workflowDef('cs_do_while_system', [
    {
      name: 'loop',
      taskReferenceName: 'loop',
      type: 'DO_WHILE',
      inputParameters: limit,
      loopCondition,
      loopOver: [{ ...locate, inputParameters: locateInput }, wrapSite('wrap_site'), wrapSite('wrap_again')],
    },
    worker('cs_task_1', 'last'),
  ]),
  // DynamicForkJoinSpec: a worker plans the branches, a dynamic fork runs them, a join, a last worker.
  workflowDef('cs_dynamic_fork', [
    worker('cs_task_1', 'plan'),
    dynamicFork('fan_out'),
    { name: 'fan_out_join', taskReferenceName: 'fan_out_join', type: 'JOIN' },
    worker('cs_task_4', 'finish'),
  ]),
];

for (const storeCase of storeCases()) {
  describe(`Conductor scenarios: flows, forks and loops (${storeCase.name})`, () => {
    const s = scenarioHarness(storeCase, definitions);

    describe('SimpleWorkflowSpec', () => {
      it('a simple workflow completes, with inputs from the run, the previous task and the task id', async () => {
        const id = await s.start('cs_simple', { param1: 'p1 value', param2: 'p2 value' }, 'unit_test_1');
        let wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [['cs_task_1', 'SCHEDULED']]);
        // `${CPEWF_TASK_ID}` is the id of the task being made; a null input value stays a key.
        assert.equal(wf.tasks[0].inputData.p3, wf.tasks[0].taskId);
        assert.ok('someNullKey' in wf.tasks[0].inputData);
        assert.equal(wf.tasks[0].inputData.someNullKey, null);

        await s.complete('cs_task_1', { op: 'task1.done' });
        wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['cs_task_1', 'COMPLETED'],
          ['cs_task_2', 'SCHEDULED'],
        ]);

        const second = await s.complete('cs_task_2');
        assert.equal(second.inputData.tp1, 'p1 value');
        assert.equal(second.inputData.tp2, 'task1.done');
        assert.equal(second.inputData.tp3, second.taskId);
        wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.deepEqual(shape(wf), [
          ['cs_task_1', 'COMPLETED'],
          ['cs_task_2', 'COMPLETED'],
        ]);
        assert.ok('o3' in wf.output);
        assert.equal(wf.output.o1, 'p1 value');
        assert.equal(wf.output.o3, 'task1.done');
        assert.equal(wf.correlationId, 'unit_test_1');
      });

      it('null inputs and null outputs stay keys', async () => {
        const id = await s.start('cs_simple', { param1: 'p1 value', param2: null });
        let wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.equal(wf.input.param2, null);
        assert.deepEqual(shape(wf), [['cs_task_1', 'SCHEDULED']]);
        assert.equal(wf.tasks[0].inputData.someNullKey, null);

        await s.complete('cs_task_1', { someOtherKey: { a: 1, A: null }, someKey: null });
        wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['cs_task_1', 'COMPLETED'],
          ['cs_task_2', 'SCHEDULED'],
        ]);
        assert.ok('someKey' in wf.tasks[0].outputData);
        assert.equal(wf.tasks[0].outputData.someKey, null);
        assert.ok('A' in wf.tasks[0].outputData.someOtherKey);
      });

      it('a terminal error fails the run without a retry; restarting a running run is a conflict', async () => {
        const id = await s.start('cs_simple', { param1: 'p1 value', param2: 'p2 value' });
        assert.equal((await s.run(id)).tasks.length, 1);
        const restart = await call(s.t().app, 'POST', `/api/workflow/${id}/restart`);
        assert.equal(restart.status, 409, restart.text);

        const reason =
          'NON TRANSIENT ERROR OCCURRED: An integration point required to complete the task is down';
        const polled = await s.fail('cs_task_1', reason, 'FAILED_WITH_TERMINAL_ERROR');
        assert.equal(polled.taskType, 'cs_task_1');
        assert.equal(polled.workflowInstanceId, id);
        const wf = await s.run(id);
        assert.equal(wf.status, 'FAILED');
        // Conductor names the task by its id; Baton by its reference name (engine/ARCHITECTURE.md).
        // Conductor prints the run's status (FAILED) here; Baton names the terminal error, which
        // says why no retry was made (engine/run-end.ts).
        assert.equal(
          wf.reasonForIncompletion,
          `Task first failed with status: FAILED_WITH_TERMINAL_ERROR and reason: '${reason}'`,
        );
        assert.equal(wf.output.o1, 'p1 value');
        // Not retried although cs_task_1 has retryCount 1.
        assert.equal(wf.tasks[0].retryCount, 0);
        assert.equal(wf.tasks.length, 1);
        assert.deepEqual(wf.failedReferenceTaskNames, ['first']);
      });
    });

    describe('ForkJoinSpec', () => {
      it('fork join success flow: the join waits for both branches, then the next task', async () => {
        const id = await s.start('cs_fork_join', {}, 'fanoutTest');
        let wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['FORK', 'COMPLETED'],
          ['cs_task_1', 'SCHEDULED'],
          ['cs_task_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
        ]);

        await s.complete('cs_task_1');
        wf = await s.run(id);
        assert.deepEqual(shape(wf), [
          ['FORK', 'COMPLETED'],
          ['cs_task_1', 'COMPLETED'],
          ['cs_task_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
          ['cs_task_3', 'SCHEDULED'],
        ]);

        await s.complete('cs_task_3');
        wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf).slice(2), [
          ['cs_task_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
          ['cs_task_3', 'COMPLETED'],
        ]);

        await s.complete('cs_task_2');
        wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.equal(wf.tasks.length, 6);
        assert.deepEqual(shape(wf).slice(2), [
          ['cs_task_2', 'COMPLETED'],
          ['JOIN', 'COMPLETED'],
          ['cs_task_3', 'COMPLETED'],
          ['cs_task_4', 'SCHEDULED'],
        ]);

        await s.complete('cs_task_4');
        wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.equal(wf.tasks.length, 6);
        assert.deepEqual(shape(wf)[5], ['cs_task_4', 'COMPLETED']);
      });

      it('fork join failure flow: a branch task without retries fails the run and cancels the rest', async () => {
        await s.withTaskDef('cs_task_2', { retryCount: 0, timeoutSeconds: 0 }, async () => {
          const id = await s.start('cs_fork_join', {}, 'fanoutTest');
          assert.deepEqual(shape(await s.run(id)), [
            ['FORK', 'COMPLETED'],
            ['cs_task_1', 'SCHEDULED'],
            ['cs_task_2', 'SCHEDULED'],
            ['JOIN', 'IN_PROGRESS'],
          ]);
          await s.complete('cs_task_1');
          assert.deepEqual(shape(await s.run(id))[4], ['cs_task_3', 'SCHEDULED']);

          await s.fail('cs_task_2', 'Failed....');
          const wf = await s.run(id);
          assert.equal(wf.status, 'FAILED');
          assert.deepEqual(shape(wf), [
            ['FORK', 'COMPLETED'],
            ['cs_task_1', 'COMPLETED'],
            ['cs_task_2', 'FAILED'],
            ['JOIN', 'CANCELED'],
            ['cs_task_3', 'CANCELED'],
          ]);
        });
      });

      it('retrying a failed fork join run schedules again only the failed and canceled branch tasks', async () => {
        const id = await s.start('cs_fork_join_no_retry', {}, 'fanoutTest');
        assert.deepEqual(shape(await s.run(id)), [
          ['FORK', 'COMPLETED'],
          ['cs_task_rt_1', 'SCHEDULED'],
          ['cs_task_rt_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
        ]);
        await s.complete('cs_task_rt_1');
        assert.deepEqual(shape(await s.run(id))[4], ['cs_task_rt_3', 'SCHEDULED']);
        await s.fail('cs_task_rt_2', 'Failed....');
        const failed = await s.run(id);
        assert.equal(failed.status, 'FAILED');
        assert.deepEqual(shape(failed), [
          ['FORK', 'COMPLETED'],
          ['cs_task_rt_1', 'COMPLETED'],
          ['cs_task_rt_2', 'FAILED'],
          ['JOIN', 'CANCELED'],
          ['cs_task_rt_3', 'CANCELED'],
        ]);

        // Conductor retries the run in place; Baton's retry makes a NEW run
        // (docs/design/runs.md#retry-restart-and-rerun-make-new-runs), linked retry_of, that keeps
        // the completed tasks and schedules again the failed branch task and the canceled one, as
        // Conductor does.
        const retried = await call(s.t().app, 'POST', `/api/workflow/${id}/retry`);
        assert.equal(retried.status, 200, retried.text);
        const newId = retried.text;
        assert.notEqual(newId, id);
        s.track(newId);
        let wf = await s.run(newId);
        assert.equal(wf.status, 'RUNNING');
        const scheduled = wf.tasks
          .filter((task: any) => task.status === 'SCHEDULED')
          .map((task: any) => task.taskType)
          .sort();
        assert.deepEqual(scheduled, ['cs_task_rt_2', 'cs_task_rt_3']);
        assert.ok(
          wf.tasks.some((task: any) => task.taskType === 'JOIN' && task.status === 'IN_PROGRESS'),
          'the JOIN waits again',
        );
        const none = await call(s.t().app, 'GET', '/api/tasks/poll/cs_task_rt_1?workerid=cs-worker');
        assert.equal(none.status, 204);

        await s.complete('cs_task_rt_3');
        await s.complete('cs_task_rt_2');
        await s.complete('cs_task_rt_4');
        wf = await s.run(newId);
        assert.equal(wf.status, 'COMPLETED');
        const latest = (type: string) => wf.tasks.filter((task: any) => task.taskType === type).at(-1).status;
        for (const type of ['FORK', 'cs_task_rt_1', 'cs_task_rt_2', 'JOIN', 'cs_task_rt_3', 'cs_task_rt_4']) {
          assert.equal(latest(type), 'COMPLETED', type);
        }
      });
    });

    describe('DoWhileSpec', () => {
      it('a single iteration over a worker task and a fork/join', async () => {
        const id = await s.start('cs_do_while', { loop: 1 }, 'looptest');
        let wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['DO_WHILE', 'IN_PROGRESS'],
          ['cs_task_0', 'SCHEDULED'],
        ]);

        const step = await s.complete('cs_task_0');
        assert.equal(step.iteration, 1);
        assert.equal(step.referenceTaskName, 'step__1');
        wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['DO_WHILE', 'IN_PROGRESS'],
          ['cs_task_0', 'COMPLETED'],
          ['FORK', 'COMPLETED'],
          ['cs_task_1', 'SCHEDULED'],
          ['cs_task_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
        ]);
        assert.ok(wf.tasks.some((task: any) => task.referenceTaskName === 'gather__1'));

        assert.equal((await s.complete('cs_task_1')).iteration, 1);
        wf = await s.run(id);
        assert.deepEqual(shape(wf).slice(3), [
          ['cs_task_1', 'COMPLETED'],
          ['cs_task_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
        ]);

        assert.equal((await s.complete('cs_task_2')).iteration, 1);
        wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.deepEqual(shape(wf), [
          ['DO_WHILE', 'COMPLETED'],
          ['cs_task_0', 'COMPLETED'],
          ['FORK', 'COMPLETED'],
          ['cs_task_1', 'COMPLETED'],
          ['cs_task_2', 'COMPLETED'],
          ['JOIN', 'COMPLETED'],
        ]);
        assert.equal(wf.tasks[0].outputData.iteration, 1);
      });

      it('two iterations of five tasks, system and worker tasks mixed', async () => {
        const id = await s.start('cs_do_while_five', { loop: 2 }, 'looptest');
        let wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['DO_WHILE', 'IN_PROGRESS'],
          ['LAMBDA', 'COMPLETED'],
          ['JSON_JQ_TRANSFORM', 'COMPLETED'],
          ['cs_task_1', 'SCHEDULED'],
        ]);
        assert.deepEqual(
          wf.tasks.slice(1).map((task: any) => task.iteration),
          [1, 1, 1],
        );
        assert.deepEqual(wf.tasks[2].outputData.result, { out: { locationId: 'some location id' } });

        assert.equal((await s.complete('cs_task_1')).iteration, 1);
        wf = await s.run(id);
        assert.deepEqual(shape(wf).slice(3), [
          ['cs_task_1', 'COMPLETED'],
          ['JSON_JQ_TRANSFORM', 'COMPLETED'],
          ['cs_task_2', 'SCHEDULED'],
        ]);

        assert.equal((await s.complete('cs_task_2')).iteration, 1);
        wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf).slice(5), [
          ['cs_task_2', 'COMPLETED'],
          ['LAMBDA', 'COMPLETED'],
          ['JSON_JQ_TRANSFORM', 'COMPLETED'],
          ['cs_task_1', 'SCHEDULED'],
        ]);
        assert.deepEqual(
          wf.tasks.slice(6).map((task: any) => task.iteration),
          [2, 2, 2],
        );

        assert.equal((await s.complete('cs_task_1')).iteration, 2);
        assert.equal((await s.complete('cs_task_2')).iteration, 2);
        wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.equal(wf.tasks.length, 12);
        assert.deepEqual(shape(wf)[0], ['DO_WHILE', 'COMPLETED']);
        assert.deepEqual(shape(wf)[11], ['cs_task_3', 'SCHEDULED']);
        assert.equal(wf.tasks[11].iteration, 0); // outside the loop

        await s.complete('cs_task_3');
        wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.equal(wf.tasks.length, 12);
        assert.deepEqual(shape(wf)[11], ['cs_task_3', 'COMPLETED']);
      });

      it('two iterations of three system tasks run at once, then the worker after the loop', async () => {
        const id = await s.start('cs_do_while_system', { loop: 2 }, 'looptest');
        let wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['DO_WHILE', 'COMPLETED'],
          ['LAMBDA', 'COMPLETED'],
          ['JSON_JQ_TRANSFORM', 'COMPLETED'],
          ['JSON_JQ_TRANSFORM', 'COMPLETED'],
          ['LAMBDA', 'COMPLETED'],
          ['JSON_JQ_TRANSFORM', 'COMPLETED'],
          ['JSON_JQ_TRANSFORM', 'COMPLETED'],
          ['cs_task_1', 'SCHEDULED'],
        ]);
        assert.deepEqual(
          wf.tasks.slice(1).map((task: any) => task.iteration),
          [1, 1, 1, 2, 2, 2, 0],
        );
        await s.complete('cs_task_1');
        wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.equal(wf.tasks.length, 8);
        assert.equal(wf.tasks[7].iteration, 0);
      });

      it('two iterations: refs and iteration numbers __1 then __2', async () => {
        const id = await s.start('cs_do_while', { loop: 2 }, 'looptest');
        const refs: Record<string, string> = { cs_task_0: 'step', cs_task_1: 'left', cs_task_2: 'right' };
        for (const n of [1, 2]) {
          for (const type of ['cs_task_0', 'cs_task_1', 'cs_task_2']) {
            const task = await s.complete(type);
            assert.equal(task.iteration, n);
            assert.equal(task.referenceTaskName, `${refs[type]}__${n}`);
          }
        }
        const wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.equal(wf.tasks.length, 11);
        assert.deepEqual(
          wf.tasks.slice(1).map((task: any) => task.referenceTaskName),
          [1, 2].flatMap((n) => ['step', 'fan', 'left', 'right', 'gather'].map((ref) => `${ref}__${n}`)),
        );
        assert.equal(wf.tasks[0].outputData.iteration, 2);
      });
    });

    describe('DynamicForkJoinSpec', () => {
      const dynamicTasks = [worker('cs_task_2', 'dyn_a'), worker('cs_task_3', 'dyn_b')];
      const dynamicTasksInput = { dyn_a: { k1: 'v1' }, dyn_b: { k2: 'v2' } };

      it('registration refuses unnamed fork/join tasks; inline definitions timing out before their response timeout pass', async () => {
        // Conductor's spec registers its definition through the metadata service, which skips the
        // validation its REST endpoint applies; Baton validates as that endpoint does. That
        // endpoint does not apply TaskTimeoutConstraint to an inline taskDefinition (the field
        // is not cascaded), so neither does Baton: it accepts it and answers a Warning header.
        const inlineDef = (name: string) => ({
          name,
          retryCount: 1,
          timeoutSeconds: 120,
          responseTimeoutSeconds: 3600,
        });
        const res = await call(
          s.t().app,
          'POST',
          '/api/metadata/workflow',
          workflowDef('cs_dynamic_fork_unnamed', [
            { ...worker('cs_task_1', 'plan'), taskDefinition: inlineDef('cs_task_1') },
            dynamicFork(undefined),
            { taskReferenceName: 'fan_out_join', type: 'JOIN' },
            { ...worker('cs_task_4', 'finish'), taskDefinition: inlineDef('cs_task_4') },
          ]),
        );
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(
          res.body.validationErrors.map((e: any) => [e.path, e.message]),
          [
            ['tasks[1].name', 'WorkflowTask name cannot be empty or null'],
            ['tasks[2].name', 'WorkflowTask name cannot be empty or null'],
          ],
        );
      });

      async function fannedOut(): Promise<string> {
        const id = await s.start('cs_dynamic_fork', {}, 'dynamic_fork_join_workflow');
        assert.deepEqual(shape(await s.run(id)), [['cs_task_1', 'SCHEDULED']]);
        await s.complete('cs_task_1', { dynamicTasks, dynamicTasksInput });
        const wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.deepEqual(shape(wf), [
          ['cs_task_1', 'COMPLETED'],
          ['FORK', 'COMPLETED'],
          ['cs_task_2', 'SCHEDULED'],
          ['cs_task_3', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
        ]);
        assert.equal(wf.tasks[4].referenceTaskName, 'fan_out_join');
        return id;
      }

      it('dynamic fork join success flow: branch inputs, the join output by branch, the next task', async () => {
        const id = await fannedOut();
        const a = await s.complete('cs_task_2', { ok1: 'ov1' });
        const b = await s.complete('cs_task_3', { ok1: 'ov1' });
        assert.equal(a.inputData.k1, 'v1');
        assert.equal(b.inputData.k2, 'v2');
        let wf = await s.run(id);
        assert.equal(wf.status, 'RUNNING');
        assert.equal(wf.tasks.length, 6);
        assert.deepEqual(shape(wf).slice(2), [
          ['cs_task_2', 'COMPLETED'],
          ['cs_task_3', 'COMPLETED'],
          ['JOIN', 'COMPLETED'],
          ['cs_task_4', 'SCHEDULED'],
        ]);
        assert.deepEqual(wf.tasks[4].inputData.joinOn, ['dyn_a', 'dyn_b']);
        assert.equal(wf.tasks[4].outputData.dyn_a.ok1, 'ov1');
        assert.equal(wf.tasks[4].outputData.dyn_b.ok1, 'ov1');
        await s.complete('cs_task_4');
        wf = await s.run(id);
        assert.equal(wf.status, 'COMPLETED');
        assert.deepEqual(shape(wf)[5], ['cs_task_4', 'COMPLETED']);
      });

      it('dynamic fork join failure: a branch task without retries fails the run', async () => {
        await s.withTaskDef('cs_task_2', { retryCount: 0 }, async () => {
          const id = await fannedOut();
          const failed = await s.fail('cs_task_2', 'it is a failure..');
          assert.equal(failed.inputData.k1, 'v1');
          const wf = await s.run(id);
          assert.equal(wf.status, 'FAILED');
          assert.equal(wf.tasks.length, 5);
          assert.deepEqual(shape(wf).slice(2), [
            ['cs_task_2', 'FAILED'],
            ['cs_task_3', 'CANCELED'],
            ['JOIN', 'CANCELED'],
          ]);
          assert.deepEqual(wf.tasks[4].inputData.joinOn, ['dyn_a', 'dyn_b']);
          assert.equal(wf.tasks[4].referenceTaskName, 'fan_out_join');
        });
      });
    });
  });
}
