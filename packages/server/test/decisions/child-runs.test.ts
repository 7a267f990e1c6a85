import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { systemClock } from '../../src/clock.js';
import { noScripts } from '../../src/engine/scripts.js';
import { asyncScripts } from '../../src/scripting/async-scripts.js';
import { afterCommit, DecisionApplier } from '../../src/decisions/decision-applier.js';
import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { pollOneTask, postResult, runOf, startRun } from '../helpers/runs.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { waitFor } from '../helpers/baton-process.js';

/** SUB_WORKFLOW, START_WORKFLOW and failure workflows through the real routes, on both stores. */
for (const storeCase of storeCases()) {
  describe(`child runs on ${storeCase.name}`, () => {
    const t = appSuite(storeCase);
    before(async () => {
      await register(
        t.app,
        [
          workflowDef(
            'leaf',
            [{ name: 'leaf_work', taskReferenceName: 'work', inputParameters: { n: '${workflow.input.n}' } }],
            {
              doubled: '${work.output.doubled}',
            },
          ),
          workflowDef(
            'parent',
            [
              {
                name: 'call_leaf',
                taskReferenceName: 'child',
                type: 'SUB_WORKFLOW',
                subWorkflowParam: { name: 'leaf' },
                inputParameters: { n: '${workflow.input.n}' },
              },
              {
                name: 'use',
                taskReferenceName: 'use',
                type: 'INLINE',
                inputParameters: { d: '${child.output.doubled}', expression: '$.d + 1' },
              },
            ],
            { result: '${use.output.result}' },
          ),
          {
            ...workflowDef('fails', [{ name: 'top_work', taskReferenceName: 'only' }]),
            failureWorkflow: 'cleanup',
          },
          workflowDef('cleanup', [
            { name: 'note', taskReferenceName: 'note', type: 'INLINE', inputParameters: { expression: '1' } },
          ]),
        ],
        workerTaskDefs(['leaf_work', 'top_work']),
      );
    });

    const start = (name: string, body: Record<string, unknown> = {}) => startRun(t.app, name, body);
    const run = (id: string) => runOf(t.app, id);
    const pollOne = (type: string) => pollOneTask(t.app, type);
    const finish = (task: any, status: 'COMPLETED' | 'FAILED', outputData: Record<string, unknown> = {}) =>
      postResult(t.app, task, status, {
        outputData,
        ...(status === 'FAILED' && { reasonForIncompletion: 'worker gave up' }),
      });

    it('a sub-workflow runs as a child and its completion moves the parent on', async () => {
      const id = await start('parent', { input: { n: 4 }, correlationId: 'corr-1', taskToDomain: {} });
      const parent = await run(id);
      const task = parent.tasks[0];
      assert.equal(task.taskType, 'SUB_WORKFLOW');
      assert.equal(task.status, 'IN_PROGRESS');
      assert.ok(task.subWorkflowId);
      assert.deepEqual(task.outputData, { subWorkflowId: task.subWorkflowId });
      assert.equal(task.inputData.subWorkflowName, 'leaf');

      const child = await run(task.subWorkflowId);
      assert.equal(child.status, 'RUNNING');
      assert.equal(child.parentWorkflowId, id);
      assert.equal(child.parentWorkflowTaskId, task.taskId);
      assert.equal(child.correlationId, 'corr-1');
      assert.deepEqual(child.input, { n: 4 });

      const work = await pollOne('leaf_work');
      assert.equal(work.workflowInstanceId, child.workflowId);
      assert.deepEqual(work.inputData, { n: 4 });
      await finish(work, 'COMPLETED', { doubled: 8 });

      assert.equal((await run(child.workflowId)).status, 'COMPLETED');
      const done = await run(id);
      assert.equal(done.status, 'COMPLETED');
      assert.equal(done.tasks[0].status, 'COMPLETED');
      assert.deepEqual(done.tasks[0].outputData, { doubled: 8, subWorkflowId: child.workflowId });
      assert.deepEqual(done.output, { result: 9 });
    });

    it('a failed child fails its task and the parent, with the child named in the reason', async () => {
      const id = await start('parent', { input: { n: 1 } });
      const childId = (await run(id)).tasks[0].subWorkflowId;
      await finish(await pollOne('leaf_work'), 'FAILED');
      const child = await run(childId);
      assert.equal(child.status, 'FAILED');
      const parent = await run(id);
      assert.equal(parent.status, 'FAILED');
      assert.equal(parent.tasks[0].status, 'FAILED');
      assert.equal(
        parent.tasks[0].reasonForIncompletion,
        `Sub workflow leaf.1/${childId} failure reason: ${child.reasonForIncompletion}`,
      );
      assert.match(parent.reasonForIncompletion, /^Task child failed with status: FAILED/);
    });

    it('nests: an inline sub-workflow definition holding another sub-workflow; ending the top run terminates both', async () => {
      const def = workflowDef('nest_top', [
        {
          name: 'middle',
          taskReferenceName: 'middle',
          type: 'SUB_WORKFLOW',
          subWorkflowParam: {
            name: 'nest_middle',
            workflowDefinition: workflowDef('nest_middle', [
              {
                name: 'to_leaf',
                taskReferenceName: 'to_leaf',
                type: 'SUB_WORKFLOW',
                subWorkflowParam: { name: 'leaf', version: 1 },
                inputParameters: { n: '${workflow.input.n}' },
              },
            ]),
          },
          inputParameters: { n: 2 },
        },
      ]);
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
      const top = await start('nest_top');
      const middleId = (await run(top)).tasks[0].subWorkflowId;
      const middle = await run(middleId);
      assert.equal(middle.workflowName, 'nest_middle');
      assert.equal(middle.parentWorkflowId, top);
      const leafId = middle.tasks[0].subWorkflowId;
      const leaf = await run(leafId);
      assert.equal(leaf.parentWorkflowId, middleId);
      assert.deepEqual(leaf.input, { n: 2 });
      assert.equal((await pollOne('leaf_work')).workflowInstanceId, leafId);

      // The top run ends while its children are open (as an operator's terminate will):
      // every run below it is terminated in the same transaction, and its task canceled.
      const executor = new DecisionApplier(
        systemClock,
        { highPriorityThreshold: 50, maxForkBranches: 10_000, maxOutputBytes: 64 * 1024 * 1024 },
        asyncScripts(noScripts),
      );
      await t.store.transaction((tx) =>
        executor.handle(tx, top, { type: 'PARENT_ENDED', reason: 'stopped by operator' }, afterCommit()),
      );
      const [topRun, middleRun, leafRun] = await Promise.all([run(top), run(middleId), run(leafId)]);
      assert.equal(topRun.status, 'TERMINATED');
      assert.equal(topRun.tasks[0].status, 'CANCELED');
      assert.equal(middleRun.status, 'TERMINATED');
      assert.equal(
        middleRun.reasonForIncompletion,
        'Parent workflow has been terminated with reason: stopped by operator',
      );
      assert.equal(middleRun.tasks[0].status, 'CANCELED');
      assert.equal(leafRun.status, 'TERMINATED');
      assert.equal(leafRun.tasks[0].status, 'CANCELED');
      const queue = await call(t.app, 'GET', '/api/tasks/poll/batch/leaf_work?count=1&timeout=0');
      assert.deepEqual(queue.body, [], "the leaf's worker message is gone");
    });

    it('a child that ends within its own start moves the parent on in the same request', async () => {
      const def = workflowDef(
        'instant_parent',
        [
          {
            name: 'instant',
            taskReferenceName: 'instant',
            type: 'SUB_WORKFLOW',
            subWorkflowParam: {
              name: 'instant_child',
              workflowDefinition: workflowDef(
                'instant_child',
                [
                  {
                    name: 'calc',
                    taskReferenceName: 'calc',
                    type: 'INLINE',
                    inputParameters: { v: '${workflow.input.v}', expression: '$.v * 10' },
                  },
                ],
                { tenfold: '${calc.output.result}' },
              ),
            },
            inputParameters: { v: '${workflow.input.v}' },
          },
        ],
        { tenfold: '${instant.output.tenfold}' },
      );
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
      const parent = await run(await start('instant_parent', { input: { v: 4 } }));
      assert.equal(parent.status, 'COMPLETED');
      assert.deepEqual(parent.output, { tenfold: 40 });
      const child = await run(parent.tasks[0].subWorkflowId);
      assert.equal(child.status, 'COMPLETED');
      assert.equal(child.parentWorkflowId, parent.workflowId);
    });

    it('a workflow that includes itself stops at the nesting limit instead of looping', async () => {
      const def = workflowDef('selfie', [
        {
          name: 'again',
          taskReferenceName: 'again',
          type: 'SUB_WORKFLOW',
          subWorkflowParam: { name: 'selfie' },
        },
      ]);
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
      const top = await run(await start('selfie'));
      assert.equal(top.status, 'FAILED');
      let depth = 0;
      let current = top;
      while (current.tasks[0].subWorkflowId && depth < 100) {
        current = await run(current.tasks[0].subWorkflowId);
        depth++;
      }
      assert.equal(depth, 32, 'runs below the top one');
      assert.equal(current.tasks[0].reasonForIncompletion, 'sub-workflows nest deeper than 32 levels');
      assert.equal(current.status, 'FAILED');
    });

    /** A dynamic fork of one `leaf` child per item of the input's `items`, and its JOIN. */
    const forkOfLeaves = [
      {
        name: 'dyn',
        taskReferenceName: 'dyn',
        type: 'FORK_JOIN_DYNAMIC',
        inputParameters: {
          forkTaskName: 'c',
          forkTaskWorkflow: 'leaf',
          forkTaskInputs: '${workflow.input.items}',
        },
      },
      { name: 'join', taskReferenceName: 'join', type: 'JOIN' },
    ];

    it('a dynamic fork of 150 SUB_WORKFLOWs starts every child; the loop guard counts only what they start', async () => {
      const def = workflowDef('wide_children', forkOfLeaves);
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
      const items = Array.from({ length: 150 }, (_, n) => ({ n }));
      const parent = await run(await start('wide_children', { input: { items } }));
      assert.equal(parent.status, 'RUNNING', parent.reasonForIncompletion);
      const branches = parent.tasks.filter((task: { taskType: string }) => task.taskType === 'SUB_WORKFLOW');
      assert.equal(branches.length, 150);
      for (const branch of branches) {
        assert.equal(branch.status, 'IN_PROGRESS', branch.reasonForIncompletion);
        const child = await run(branch.subWorkflowId);
        assert.equal(child.status, 'RUNNING');
        assert.equal(child.parentWorkflowId, parent.workflowId);
      }
    });

    it('a parent woken by its child ending forks into 150 SUB_WORKFLOWs in that transaction: every child starts', async () => {
      await register(
        t.app,
        [workflowDef('first_leaf', [{ name: 'first_work', taskReferenceName: 'work' }])],
        workerTaskDefs(['first_work']),
      );
      const def = workflowDef('then_wide', [
        {
          name: 'first',
          taskReferenceName: 'first',
          type: 'SUB_WORKFLOW',
          subWorkflowParam: { name: 'first_leaf' },
        },
        ...forkOfLeaves,
      ]);
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
      const items = Array.from({ length: 150 }, (_, n) => ({ n }));
      const id = await start('then_wide', { input: { items } });
      const first = await run((await run(id)).tasks[0].subWorkflowId);
      // The first child's one task: its result ends the child, which wakes the parent, whose next
      // step is the fork, all in the result's transaction.
      const work = await pollOneTask(t.app, 'first_work');
      assert.equal(work.workflowInstanceId, first.workflowId);
      await postResult(t.app, work, 'COMPLETED');
      const parent = await run(id);
      assert.equal(parent.status, 'RUNNING', parent.reasonForIncompletion);
      const branches = parent.tasks.filter(
        (task: { taskType: string; referenceTaskName: string }) =>
          task.taskType === 'SUB_WORKFLOW' && task.referenceTaskName !== 'first',
      );
      assert.equal(branches.length, 150);
      for (const branch of branches) assert.equal(branch.status, 'IN_PROGRESS', branch.reasonForIncompletion);
    });

    it('a loop of 250 sub-workflows that end at once runs to its end, 100 runs a transaction', async () => {
      await register(t.app, [
        workflowDef('instant_child', [
          { name: 'i', taskReferenceName: 'i', type: 'INLINE', inputParameters: { expression: '1' } },
        ]),
        workflowDef(
          'loop_of_children',
          [
            {
              name: 'loop',
              taskReferenceName: 'loop',
              type: 'DO_WHILE',
              loopCondition: "if ($.loop['iteration'] < 250) { true; } else { false; }",
              loopOver: [
                {
                  name: 's',
                  taskReferenceName: 's',
                  type: 'SUB_WORKFLOW',
                  subWorkflowParam: { name: 'instant_child' },
                },
              ],
            },
          ],
          { iterations: '${loop.output.iteration}' },
        ),
      ]);
      const id = await start('loop_of_children');
      const done = await waitFor(
        async () => {
          const current = await run(id);
          return current.status === 'RUNNING' ? undefined : current;
        },
        { timeoutMs: 60_000, what: 'the loop of 250 children to end' },
      );
      assert.equal(done.status, 'COMPLETED', done.reasonForIncompletion);
      assert.deepEqual(done.output, { iterations: 250 });
      const children = done.tasks.filter((task: { taskType: string }) => task.taskType === 'SUB_WORKFLOW');
      assert.equal(children.length, 250);
      for (const child of children) assert.equal(child.status, 'COMPLETED', child.reasonForIncompletion);
    });

    it('a workflow that forks into two copies of itself meets the loop guard in its first step', async () => {
      const def = workflowDef('twins', [
        {
          name: 'fork',
          taskReferenceName: 'fork',
          type: 'FORK_JOIN',
          forkTasks: [
            [
              {
                name: 'a',
                taskReferenceName: 'a',
                type: 'SUB_WORKFLOW',
                subWorkflowParam: { name: 'twins' },
              },
            ],
            [
              {
                name: 'b',
                taskReferenceName: 'b',
                type: 'SUB_WORKFLOW',
                subWorkflowParam: { name: 'twins' },
              },
            ],
          ],
        },
        { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['a', 'b'] },
      ]);
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
      const top = await run(await start('twins'));
      assert.equal(top.status, 'FAILED');
      // Some run below it could not start its child: the guard's reason, carried up as each failed.
      const refused = await call(
        t.app,
        'GET',
        `/api/workflow/search?query=${encodeURIComponent("workflowType = 'twins' AND status = 'FAILED'")}&size=1000`,
      );
      assert.equal(refused.status, 200, refused.text);
      const reasons = (refused.body.results as Array<{ reasonForIncompletion?: string }>).map(
        (r) => r.reasonForIncompletion ?? '',
      );
      assert.ok(
        reasons.some((reason) =>
          reason.includes('more than 100 runs started in one step: does a workflow start itself?'),
        ),
        reasons.slice(0, 3).join(' | '),
      );
    });

    it('refuses a definition naming a sub-workflow that is not registered; a list may bring both', async () => {
      const parentOf = (name: string, child: Record<string, unknown>) =>
        workflowDef(name, [
          { name: 'c', taskReferenceName: 'c', type: 'SUB_WORKFLOW', subWorkflowParam: child },
        ]);
      const missing = await call(
        t.app,
        'POST',
        '/api/metadata/workflow',
        parentOf('p1', { name: 'not_yet' }),
      );
      assert.equal(missing.status, 400, missing.text);
      assert.deepEqual(
        missing.body.validationErrors.map((e: any) => [e.path, e.message]),
        [
          [
            'tasks[0].subWorkflowParam.name',
            'sub-workflow not_yet of task c is not a registered workflow definition',
          ],
        ],
      );
      const pinned = await call(
        t.app,
        'POST',
        '/api/metadata/workflow',
        parentOf('p2', { name: 'leaf', version: 9 }),
      );
      assert.equal(pinned.status, 400, pinned.text);
      assert.match(pinned.body.validationErrors[0].message, /sub-workflow leaf version 9 of task c/);
      const together = await call(t.app, 'PUT', '/api/metadata/workflow', [
        parentOf('p3', { name: 'not_yet' }),
        workflowDef('not_yet', [
          { name: 'n', taskReferenceName: 'n', type: 'INLINE', inputParameters: { expression: '1' } },
        ]),
      ]);
      assert.equal(together.status, 200, together.text);
      assert.equal(
        (
          await call(
            t.app,
            'POST',
            '/api/metadata/workflow',
            parentOf('p4', { name: '${workflow.input.flow}' }),
          )
        ).status,
        200,
      );
    });

    it('a sub-workflow name that resolves to no definition fails the task with a clear reason', async () => {
      const def = workflowDef('to_nowhere', [
        {
          name: 'nowhere',
          taskReferenceName: 'nowhere',
          type: 'SUB_WORKFLOW',
          subWorkflowParam: { name: '${workflow.input.flow}' },
        },
      ]);
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
      const failed = await run(await start('to_nowhere', { input: { flow: 'no_such_flow' } }));
      assert.equal(failed.status, 'FAILED');
      assert.equal(failed.tasks[0].status, 'FAILED');
      assert.equal(failed.tasks[0].reasonForIncompletion, 'No such workflow found by name: no_such_flow');
      assert.equal(failed.tasks[0].subWorkflowId, undefined, 'no id of a run that does not exist');
      assert.deepEqual(failed.tasks[0].outputData, {});
    });

    it('START_WORKFLOW starts a run and does not wait for it', async () => {
      const def = workflowDef('starter', [
        {
          name: 'kick',
          taskReferenceName: 'kick',
          type: 'START_WORKFLOW',
          inputParameters: { startWorkflow: { name: 'leaf', input: { n: '${workflow.input.n}' } } },
        },
        {
          name: 'bad',
          taskReferenceName: 'bad',
          type: 'START_WORKFLOW',
          optional: true,
          inputParameters: { startWorkflow: { input: {} } },
        },
      ]);
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
      const starter = await run(await start('starter', { input: { n: 5 }, correlationId: 'c-9' }));
      assert.equal(starter.status, 'COMPLETED');
      const kick = starter.tasks[0];
      assert.equal(kick.status, 'COMPLETED');
      const started = await run(kick.outputData.workflowId);
      assert.equal(started.workflowName, 'leaf');
      assert.equal(started.status, 'RUNNING');
      assert.equal(started.correlationId, 'c-9');
      assert.equal(started.parentWorkflowId, undefined);
      assert.deepEqual(started.input, { n: 5 });
      assert.equal(starter.tasks[1].status, 'COMPLETED_WITH_ERRORS');
      assert.equal(
        starter.tasks[1].reasonForIncompletion,
        "startWorkflow validation failed. 'name' -> Workflow name cannot be null or empty. ",
      );
      await finish(await pollOne('leaf_work'), 'COMPLETED');
    });

    it("a failed run starts its failure workflow with Conductor's input and records its id", async () => {
      const id = await start('fails', { input: { order: 7 }, correlationId: 'corr-f' });
      const work = await pollOne('top_work');
      await finish(work, 'FAILED');
      const failed = await run(id);
      assert.equal(failed.status, 'FAILED');
      const failureId = failed.output['conductor.failure_workflow'];
      assert.equal(typeof failureId, 'string');
      const cleanupRun = await run(failureId);
      assert.equal(cleanupRun.workflowName, 'cleanup');
      assert.equal(cleanupRun.status, 'COMPLETED');
      assert.equal(cleanupRun.correlationId, 'corr-f');
      const input = cleanupRun.input;
      assert.equal(input.order, 7);
      assert.equal(input.workflowId, id);
      assert.equal(input.failureStatus, 'FAILED');
      assert.equal(input.reason, failed.reasonForIncompletion);
      assert.equal(input.failureTaskId, work.taskId);
      assert.equal(input.failedWorkflow.workflowId, id);
      assert.equal(input.failedWorkflow.tasks[0].taskId, work.taskId);
    });

    it('a failure workflow that does not exist is noted on the failed run', async () => {
      const def = {
        ...workflowDef('fails_badly', [{ name: 'top_work', taskReferenceName: 'only' }]),
        failureWorkflow: 'gone',
      };
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
      const id = await start('fails_badly');
      await finish(await pollOne('top_work'), 'FAILED');
      const failed = await run(id);
      assert.equal(failed.status, 'FAILED');
      assert.equal(
        failed.output['conductor.failure_workflow'],
        'Error starting failure workflow gone: No such workflow found by name: gone',
      );
    });
  });
}
