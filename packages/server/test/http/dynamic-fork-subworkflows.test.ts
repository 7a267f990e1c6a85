import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { runOf, startRun } from '../helpers/runs.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';

/**
 * FORK_JOIN_DYNAMIC whose forks are SUB_WORKFLOW tasks, in both of Conductor's ways: the simple
 * form (`forkTaskWorkflow`, one child per item of `forkTaskInputs`) and a task list of
 * SUB_WORKFLOW nodes. Each child runs as its own run; the JOIN completes with every child's
 * output once the last child ends, and a failed child fails the fork's run.
 */
for (const storeCase of storeCases()) {
  describe(`dynamic forks of sub-workflows on ${storeCase.name}`, () => {
    const t = appSuite(storeCase);
    before(async () => {
      const leaf = workflowDef(
        'fan_child',
        [
          {
            name: 'fan_leaf',
            taskReferenceName: 'leaf',
            inputParameters: { item: '${workflow.input.item}' },
          },
        ],
        { echoed: '${leaf.output.echoed}' },
      );
      const simpleForm = workflowDef('fan_simple', [
        {
          name: 'fan',
          taskReferenceName: 'fan',
          type: 'FORK_JOIN_DYNAMIC',
          inputParameters: {
            forkTaskName: 'fan_child',
            forkTaskWorkflow: 'fan_child',
            forkTaskInputs: '${workflow.input.items}',
          },
        },
        { name: 'fan_join', taskReferenceName: 'fan_join', type: 'JOIN' },
      ]);
      const listForm = workflowDef('fan_list', [
        {
          name: 'fan',
          taskReferenceName: 'fan',
          type: 'FORK_JOIN_DYNAMIC',
          dynamicForkTasksParam: 'tasks',
          dynamicForkTasksInputParamName: 'inputs',
          inputParameters: { tasks: '${workflow.input.tasks}', inputs: '${workflow.input.inputs}' },
        },
        { name: 'fan_join', taskReferenceName: 'fan_join', type: 'JOIN' },
      ]);
      await register(t.app, [leaf, simpleForm, listForm], workerTaskDefs(['fan_leaf']));
    });

    const start = (name: string, input: Record<string, unknown>) => startRun(t.app, name, { input });
    const run = (id: string) => runOf(t.app, id);
    /** Plays the leaf worker: takes every waiting leaf task and answers each with `answer(input)`. */
    async function work(answer: (input: any) => { status: 'COMPLETED' | 'FAILED'; output: any }) {
      const res = await call(t.app, 'GET', '/api/tasks/poll/batch/fan_leaf?count=10&timeout=0&workerid=w');
      assert.equal(res.status, 200, res.text);
      for (const task of res.body) {
        const { status, output } = answer(task.inputData);
        const posted = await call(t.app, 'POST', '/api/tasks', {
          taskId: task.taskId,
          workflowInstanceId: task.workflowInstanceId,
          status,
          outputData: output,
          ...(status === 'FAILED' && { reasonForIncompletion: 'leaf gave up' }),
        });
        assert.equal(posted.status, 200, posted.text);
      }
      return res.body.length as number;
    }

    it('the simple form starts one child per input and joins their outputs', async () => {
      const id = await start('fan_simple', { items: [{ item: 'a' }, { item: 'b' }, { item: 'c' }] });
      const started = await run(id);
      const forks = started.tasks.filter((task: any) => task.taskType === 'SUB_WORKFLOW');
      assert.deepEqual(
        forks.map((task: any) => task.referenceTaskName),
        ['_fan_child_0', '_fan_child_1', '_fan_child_2'],
      );
      for (const task of forks) {
        assert.equal(task.status, 'IN_PROGRESS');
        const child = await run(task.subWorkflowId);
        assert.equal(child.parentWorkflowId, id);
        assert.equal(child.parentWorkflowTaskId, task.taskId);
      }
      assert.equal(await work((input) => ({ status: 'COMPLETED', output: { echoed: input.item } })), 3);

      const done = await run(id);
      assert.equal(done.status, 'COMPLETED', done.reasonForIncompletion);
      const join = done.tasks.find((task: any) => task.referenceTaskName === 'fan_join');
      assert.equal(join.status, 'COMPLETED');
      assert.deepEqual(Object.keys(join.outputData).sort(), ['_fan_child_0', '_fan_child_1', '_fan_child_2']);
      assert.equal(join.outputData._fan_child_1.echoed, 'b');
    });

    it('a task list of SUB_WORKFLOW nodes forks children; one failing fails the run', async () => {
      const id = await start('fan_list', {
        tasks: [
          {
            name: 'x',
            taskReferenceName: 'x',
            type: 'SUB_WORKFLOW',
            subWorkflowParam: { name: 'fan_child' },
          },
          {
            name: 'y',
            taskReferenceName: 'y',
            type: 'SUB_WORKFLOW',
            subWorkflowParam: { name: 'fan_child' },
          },
        ],
        inputs: { x: { item: 'ok' }, y: { item: 'bad' } },
      });
      const started = await run(id);
      const children = started.tasks
        .filter((task: any) => task.taskType === 'SUB_WORKFLOW')
        .map((task: any) => task.subWorkflowId);
      assert.equal(children.length, 2);
      assert.equal(
        await work((input) =>
          input.item === 'bad'
            ? { status: 'FAILED', output: {} }
            : { status: 'COMPLETED', output: { echoed: input.item } },
        ),
        2,
      );
      const statuses = await Promise.all(children.map(async (child: string) => (await run(child)).status));
      assert.deepEqual([...statuses].sort(), ['COMPLETED', 'FAILED']);
      const done = await run(id);
      assert.equal(done.status, 'FAILED');
      const y = done.tasks.find((task: any) => task.referenceTaskName === 'y');
      assert.equal(y.status, 'FAILED');
      assert.match(y.reasonForIncompletion, /fan_child/);
    });
  });
}
