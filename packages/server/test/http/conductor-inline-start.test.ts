import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { appSuite, register } from '../helpers/app-suite.js';
import { call } from '../helpers/app.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { pollOneTask, postResult, runOf } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

/**
 * `POST /api/workflow` with Conductor's inline `workflowDef` (DynamicForkJoinSpec "dynamic fork
 * join invalid input", WorkflowAndTaskConfigurationSpec "workflow with no tasks"): the run
 * follows the definition it carries, checked as registration checks one, and nothing is registered.
 */

const dynamicFork = workflowDef('cis_dynamic_fork_start', [
  {
    name: 'dynamicfanouttask',
    taskReferenceName: 'dynamicfanouttask',
    type: 'FORK_JOIN_DYNAMIC',
    inputParameters: {
      dynamicTasks: '${workflow.input.dynamicTasks}',
      dynamicTasksInput: '${workflow.input.dynamicTasksInput}',
    },
    dynamicForkTasksParam: 'dynamicTasks',
    dynamicForkTasksInputParamName: 'dynamicTasksInput',
  },
  { name: 'join', taskReferenceName: 'dynamicfanouttask_join', type: 'JOIN', joinOn: [] },
]);
const simple = workflowDef('cis_simple_inline', [
  {
    name: 'cis_task',
    taskReferenceName: 'only',
    type: 'SIMPLE',
    inputParameters: { who: '${workflow.input.who}' },
  },
]);

const start = (app: Parameters<typeof call>[0], body: Record<string, unknown>) =>
  call(app, 'POST', '/api/workflow', body);

for (const storeCase of storeCases()) {
  describe(`inline definitions at start: ${storeCase.name}`, () => {
    const t = appSuite(storeCase);
    before(() => register(t.app, [], workerTaskDefs(['cis_task'])));

    it('DynamicForkJoinSpec "dynamic fork join invalid input": the inline definition runs and the run fails', async () => {
      const res = await start(t.app, {
        name: dynamicFork.name,
        version: 1,
        input: {
          dynamicTasks: [{ name: 'cis_task', taskReferenceName: 'xdt1', type: 'SIMPLE' }],
          dynamicTasksInput: 'invalid',
        },
        workflowDef: dynamicFork,
      });
      assert.equal(res.status, 200, res.text);
      const run = await runOf(t.app, res.text);
      assert.equal(run.status, 'FAILED');
      assert.equal(run.workflowName, dynamicFork.name);
      assert.equal(run.workflowVersion, 1);
      assert.ok(run.reasonForIncompletion, 'the run says why it failed');
      // Run as given, never registered.
      const lookup = await call(t.app, 'GET', `/api/metadata/workflow/${String(dynamicFork.name)}`);
      assert.equal(lookup.status, 404, lookup.text);
    });

    it('an inline definition runs to its end, with the input, correlation id and schema version 2', async () => {
      const res = await start(t.app, {
        name: simple.name,
        correlationId: 'inline',
        input: { who: 'me' },
        workflowDef: simple,
      });
      assert.equal(res.status, 200, res.text);
      const task = await pollOneTask(t.app, 'cis_task');
      assert.deepEqual(task.inputData, { who: 'me' });
      await postResult(t.app, task, 'COMPLETED', { done: true });
      const run = await runOf(t.app, res.text);
      assert.equal(run.status, 'COMPLETED');
      assert.equal(run.correlationId, 'inline');
      assert.equal(run.workflowDefinition.schemaVersion, 2);
    });

    it('WorkflowAndTaskConfigurationSpec "workflow with no tasks": refused as registration refuses it, starting nothing', async () => {
      const before = (await call(t.app, 'GET', '/api/workflow/search?size=1')).body.totalHits;
      const empty = await start(t.app, {
        name: 'empty_workflow',
        correlationId: 'empty_workflow',
        workflowDef: { name: 'empty_workflow', schemaVersion: 2 },
      });
      assert.equal(empty.status, 400, empty.text);
      assert.equal(empty.body.validationErrors[0].path, 'body.workflowDef.tasks');
      assert.match(empty.body.message, /WorkflowTask list cannot be empty/);
      const badRef = await start(t.app, {
        name: 'cis_bad',
        workflowDef: workflowDef('cis_bad', [
          { name: 'cis_task', taskReferenceName: 'same', type: 'SIMPLE' },
          { name: 'cis_task', taskReferenceName: 'same', type: 'SIMPLE' },
        ]),
      });
      assert.equal(badRef.status, 400, badRef.text);
      assert.match(badRef.body.validationErrors[0].path, /^body\.workflowDef\.tasks\[1\]/);
      const otherName = await start(t.app, { name: 'other', workflowDef: simple });
      assert.equal(otherName.status, 400, otherName.text);
      assert.equal(otherName.body.validationErrors[0].path, 'body.workflowDef.name');
      // The start by name takes the bare input map or the start request, never a definition.
      const byName = await call(t.app, 'POST', `/api/workflow/${String(simple.name)}`, {
        input: {},
        workflowDef: simple,
      });
      assert.equal(byName.status, 400, byName.text);
      assert.match(byName.body.message, /inline workflowDef is taken only by POST \/api\/workflow/);
      const after = (await call(t.app, 'GET', '/api/workflow/search?size=1')).body.totalHits;
      assert.equal(after, before, 'no run was started');
    });
  });
}
