import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { runOf, startRun } from '../helpers/runs.js';
import { workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';

const w = (ref: string, name = 'cf_work', inputParameters: Record<string, unknown> = {}) => ({
  name,
  taskReferenceName: ref,
  type: 'SIMPLE',
  inputParameters,
});

/** One definition per kind; SIMPLE tasks are all `cf_work` and completed through the real routes. */
const definitions: Array<Record<string, unknown>> = [
  workflowDef(
    'cf_switch',
    [
      {
        name: 'route',
        taskReferenceName: 'sw',
        type: 'SWITCH',
        evaluatorType: 'javascript',
        expression: '$.n > 10 ? "big" : "small"',
        inputParameters: { n: '${workflow.input.n}' },
        decisionCases: { big: [w('big')], small: [w('small')] },
      },
      w('after'),
    ],
    { case: '${sw.output.selectedCase}' },
  ),
  workflowDef(
    'cf_fork',
    [
      { name: 'fork', taskReferenceName: 'fork', type: 'FORK_JOIN', forkTasks: [[w('a')], [w('b')]] },
      { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['a', 'b'] },
    ],
    { joined: '${join.output}' },
  ),
  workflowDef(
    'cf_dynamic_fork',
    [
      {
        name: 'dyn',
        taskReferenceName: 'dyn',
        type: 'FORK_JOIN_DYNAMIC',
        inputParameters: { forkTaskName: 'cf_work', forkTaskInputs: '${workflow.input.items}' },
      },
      { name: 'join', taskReferenceName: 'join', type: 'JOIN' },
    ],
    { joined: '${join.output}' },
  ),
  workflowDef(
    'cf_loop',
    [
      {
        name: 'loop',
        taskReferenceName: 'loop',
        type: 'DO_WHILE',
        loopCondition: "if ($.loop['iteration'] < $.times) { true; } else { false; }",
        inputParameters: { times: '${workflow.input.times}' },
        loopOver: [w('step', 'cf_work', { i: '${loop.output.iteration}' })],
      },
    ],
    { iterations: '${loop.output.iteration}' },
  ),
  workflowDef(
    'cf_items',
    [
      {
        name: 'each',
        taskReferenceName: 'each',
        type: 'DO_WHILE',
        items: '${workflow.input.files}',
        loopOver: [w('file', 'cf_work', { file: '${each.output.loopItem}' })],
      },
    ],
    { n: '${each.output.iteration}' },
  ),
  workflowDef('cf_variables', [
    {
      name: 'set',
      taskReferenceName: 'set',
      type: 'SET_VARIABLE',
      inputParameters: { who: '${workflow.input.who}' },
    },
    { name: 'noop', taskReferenceName: 'noop', type: 'NOOP' },
    {
      name: 'stop',
      taskReferenceName: 'stop',
      type: 'TERMINATE',
      inputParameters: {
        terminationStatus: 'COMPLETED',
        workflowOutput: { hello: '${workflow.variables.who}' },
      },
    },
    w('never'),
  ]),
  workflowDef('cf_terminate_failed', [
    {
      name: 'stop',
      taskReferenceName: 'stop',
      type: 'TERMINATE',
      inputParameters: { terminationStatus: 'FAILED', terminationReason: 'nothing to do' },
    },
  ]),
  workflowDef(
    'cf_wait_human',
    [
      { name: 'wait', taskReferenceName: 'wait', type: 'WAIT' },
      {
        name: 'review',
        taskReferenceName: 'review',
        type: 'HUMAN',
        instructions: 'guide',
        inputParameters: { assignee: 'ann' },
      },
    ],
    { waited: '${wait.output}', verdict: '${review.output.verdict}' },
  ),
  workflowDef('cf_loop_human', [
    {
      name: 'approvals',
      taskReferenceName: 'approvals',
      type: 'DO_WHILE',
      items: '${workflow.input.docs}',
      loopOver: [
        {
          name: 'approve',
          taskReferenceName: 'approve',
          type: 'HUMAN',
          inputParameters: { doc: '${approvals.output.loopItem}' },
        },
        { name: 'pause', taskReferenceName: 'pause', type: 'WAIT' },
      ],
    },
    {
      name: 'fork',
      taskReferenceName: 'fork',
      type: 'FORK_JOIN',
      forkTasks: [[{ name: 'hold', taskReferenceName: 'hold', type: 'WAIT' }]],
    },
    { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['hold'] },
  ]),
  workflowDef('cf_dynamic', [
    {
      name: 'dyn',
      taskReferenceName: 'dyn',
      type: 'DYNAMIC',
      dynamicTaskNameParam: 't',
      inputParameters: { t: 'cf_work' },
    },
  ]),
  workflowDef(
    'cf_decision_xjoin',
    [
      {
        name: 'dec',
        taskReferenceName: 'dec',
        type: 'DECISION',
        caseValueParam: 'k',
        inputParameters: { k: '${workflow.input.k}' },
        decisionCases: { a: [w('xa')], b: [w('xb')] },
      },
      { name: 'xj', taskReferenceName: 'xj', type: 'EXCLUSIVE_JOIN', joinOn: ['xa', 'xb'] },
    ],
    { picked: '${xj.output}' },
  ),
];

for (const storeCase of storeCases()) {
  describe(`control-flow kinds end to end on ${storeCase.name}`, () => {
    const t = appSuite(storeCase);
    before(async () => {
      await register(t.app, definitions, [
        { name: 'cf_work', retryCount: 0, responseTimeoutSeconds: 60, ownerEmail: 'dev@baton.test' },
      ]);
    });

    const start = (name: string, input: Record<string, unknown> = {}) => startRun(t.app, name, { input });
    const run = (id: string) => runOf(t.app, id);
    /** Polls every waiting cf_work task and completes it with output {ref}; answers the refs. */
    async function workAll(
      output: (task: any) => Record<string, unknown> = (task) => ({ ref: task.referenceTaskName }),
    ) {
      const res = await call(t.app, 'GET', '/api/tasks/poll/batch/cf_work?count=50&timeout=0&workerid=w1');
      assert.equal(res.status, 200, res.text);
      const refs: string[] = [];
      for (const task of res.body as any[]) {
        const done = await call(t.app, 'POST', '/api/tasks', {
          taskId: task.taskId,
          workflowInstanceId: task.workflowInstanceId,
          status: 'COMPLETED',
          outputData: output(task),
        });
        assert.equal(done.status, 200, done.text);
        refs.push(task.referenceTaskName);
      }
      return refs.sort();
    }

    it('SWITCH (javascript) runs the chosen branch, then what follows', async () => {
      const id = await start('cf_switch', { n: 42 });
      assert.deepEqual(await workAll(), ['big']);
      assert.deepEqual(await workAll(), ['after']);
      const done = await run(id);
      assert.equal(done.status, 'COMPLETED');
      assert.deepEqual(done.output, { case: 'big' });
      assert.equal(done.tasks[0].taskType, 'SWITCH');
    });

    it('FORK_JOIN + JOIN', async () => {
      const id = await start('cf_fork');
      const mid = await run(id);
      assert.deepEqual(
        mid.tasks.map((task: any) => [task.referenceTaskName, task.taskType, task.status]),
        [
          ['fork', 'FORK', 'COMPLETED'],
          ['a', 'cf_work', 'SCHEDULED'],
          ['b', 'cf_work', 'SCHEDULED'],
          ['join', 'JOIN', 'IN_PROGRESS'],
        ],
      );
      assert.deepEqual(await workAll(), ['a', 'b']);
      const done = await run(id);
      assert.equal(done.status, 'COMPLETED');
      assert.deepEqual(done.output, { joined: { a: { ref: 'a' }, b: { ref: 'b' } } });
    });

    it('FORK_JOIN_DYNAMIC', async () => {
      const id = await start('cf_dynamic_fork', { items: [{ x: 1 }, { x: 2 }, { x: 3 }] });
      assert.deepEqual(await workAll((task) => ({ got: task.inputData.x })), [
        '_cf_work_0',
        '_cf_work_1',
        '_cf_work_2',
      ]);
      const done = await run(id);
      assert.equal(done.status, 'COMPLETED');
      assert.deepEqual(done.output.joined, {
        _cf_work_0: { got: 1 },
        _cf_work_1: { got: 2 },
        _cf_work_2: { got: 3 },
      });
    });

    it('DO_WHILE with loopCondition: refs ref__N, one iteration after another', async () => {
      const id = await start('cf_loop', { times: 3 });
      assert.deepEqual(await workAll(), ['step__1']);
      assert.deepEqual(await workAll(), ['step__2']);
      assert.deepEqual(await workAll(), ['step__3']);
      assert.deepEqual(await workAll(), []);
      const done = await run(id);
      assert.equal(done.status, 'COMPLETED');
      assert.deepEqual(done.output, { iterations: 3 });
      const steps = done.tasks.filter((task: any) => task.taskType === 'cf_work');
      assert.deepEqual(
        steps.map((task: any) => [task.referenceTaskName, task.iteration, task.inputData.i]),
        [
          ['step__1', 1, 1],
          ['step__2', 2, 2],
          ['step__3', 3, 3],
        ],
      );
    });

    it('DO_WHILE over items', async () => {
      const id = await start('cf_items', { files: ['a.png', 'b.png'] });
      assert.deepEqual(await workAll((task) => ({ f: task.inputData.file })), ['file__1']);
      assert.deepEqual(await workAll(), ['file__2']);
      const done = await run(id);
      assert.equal(done.status, 'COMPLETED');
      assert.deepEqual(done.output, { n: 2 });
    });

    it('SET_VARIABLE, NOOP and TERMINATE (COMPLETED) in one decide', async () => {
      const id = await start('cf_variables', { who: 'ann' });
      const done = await run(id);
      assert.equal(done.status, 'COMPLETED');
      assert.deepEqual(done.variables, { who: 'ann' });
      assert.deepEqual(done.output, { hello: 'ann' });
      assert.match(done.reasonForIncompletion, /^Workflow is COMPLETED by TERMINATE task: /);
      assert.deepEqual(
        done.tasks.map((task: any) => task.referenceTaskName),
        ['set', 'noop', 'stop'],
      );
    });

    it('TERMINATE (FAILED)', async () => {
      const id = await start('cf_terminate_failed');
      const done = await run(id);
      assert.equal(done.status, 'FAILED');
      assert.equal(done.reasonForIncompletion, 'nothing to do');
    });

    it('WAIT completed by name, HUMAN completed by id through POST /api/tasks', async () => {
      const id = await start('cf_wait_human');
      const byName = await call(t.app, 'POST', `/api/tasks/${id}/wait/COMPLETED`, { waited: true });
      assert.equal(byName.status, 200, byName.text);
      const mid = await run(id);
      const review = mid.tasks.find((task: any) => task.referenceTaskName === 'review');
      assert.equal(review.status, 'IN_PROGRESS');
      assert.deepEqual(review.inputData, { assignee: 'ann', instructions: 'guide' });
      // An IN_PROGRESS update keeps a HUMAN task open (no queue to put it back on).
      const progress = await call(t.app, 'POST', '/api/tasks', {
        taskId: review.taskId,
        workflowInstanceId: id,
        status: 'IN_PROGRESS',
        outputData: { seen: true },
      });
      assert.equal(progress.status, 200);
      assert.equal((await run(id)).tasks[1].status, 'IN_PROGRESS');
      const done = await call(t.app, 'POST', '/api/tasks', {
        taskId: review.taskId,
        workflowInstanceId: id,
        status: 'COMPLETED',
        outputData: { verdict: 'ok' },
      });
      assert.equal(done.status, 200, done.text);
      const finished = await run(id);
      assert.equal(finished.status, 'COMPLETED');
      assert.deepEqual(finished.output, { waited: { waited: true }, verdict: 'ok' });
    });

    it('HUMAN completed by name with FAILED fails the run', async () => {
      const id = await start('cf_wait_human');
      await call(t.app, 'POST', `/api/tasks/${id}/wait/COMPLETED`, {});
      const res = await call(t.app, 'POST', `/api/tasks/${id}/review/FAILED`, { why: 'no' });
      assert.equal(res.status, 200, res.text);
      const done = await run(id);
      assert.equal(done.status, 'FAILED');
      assert.deepEqual(done.failedReferenceTaskNames, ['review']);
    });

    it('tasks inside a loop are completed by their plain ref (the open iteration); WAIT by id; never a JOIN', async () => {
      const id = await start('cf_loop_human', { docs: ['d1', 'd2'] });
      const first = await call(t.app, 'POST', `/api/tasks/${id}/approve/COMPLETED`, { ok: 1 });
      assert.equal(first.status, 200, first.text);
      let current = await run(id);
      const pause1 = current.tasks.find((task: any) => task.referenceTaskName === 'pause__1');
      const byId = await call(t.app, 'POST', '/api/tasks', {
        taskId: pause1.taskId,
        workflowInstanceId: id,
        status: 'COMPLETED',
      });
      assert.equal(byId.status, 200, byId.text);
      await call(t.app, 'POST', `/api/tasks/${id}/approve/COMPLETED`, { ok: 2 });
      await call(t.app, 'POST', `/api/tasks/${id}/pause__2/COMPLETED`, {});
      current = await run(id);
      assert.deepEqual(
        current.tasks
          .filter((task: any) => task.taskType === 'HUMAN')
          .map((task: any) => [task.referenceTaskName, task.inputData.doc, task.outputData.ok]),
        [
          ['approve__1', 'd1', 1],
          ['approve__2', 'd2', 2],
        ],
      );
      // The JOIN is open but only the interpreter ends it: completing it by name finds nothing.
      const join = await call(t.app, 'POST', `/api/tasks/${id}/join/COMPLETED`, {});
      assert.equal(join.status, 200);
      assert.equal(join.text, '');
      await call(t.app, 'POST', `/api/tasks/${id}/hold/COMPLETED`, {});
      assert.equal((await run(id)).status, 'COMPLETED');
    });

    it('DYNAMIC', async () => {
      const id = await start('cf_dynamic');
      assert.deepEqual(await workAll(), ['dyn']);
      assert.equal((await run(id)).status, 'COMPLETED');
    });

    it('DECISION + EXCLUSIVE_JOIN', async () => {
      const id = await start('cf_decision_xjoin', { k: 'b' });
      assert.deepEqual(await workAll(), ['xb']);
      const done = await run(id);
      assert.equal(done.status, 'COMPLETED');
      assert.deepEqual(done.output, { picked: { ref: 'xb' } });
    });

    it('registration refuses a definition Conductor would fail at run time, naming the task and field', async () => {
      const res = await call(
        t.app,
        'POST',
        '/api/metadata/workflow',
        workflowDef('cf_bad', [
          { name: 'loop', taskReferenceName: 'loop', type: 'DO_WHILE', loopOver: [w('x')] },
        ]),
      );
      assert.equal(res.status, 400);
      assert.deepEqual(
        res.body.validationErrors.map((e: any) => [e.path, e.message]),
        [['tasks[0].loopCondition', 'loopCondition field is required for taskType: DO_WHILE taskName: loop']],
      );
    });
  });
}
