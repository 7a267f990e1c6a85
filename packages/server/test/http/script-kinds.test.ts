import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';

/** INLINE, LAMBDA and JSON_JQ_TRANSFORM through the real routes and the real sandbox, on both stores. */
for (const storeCase of storeCases()) {
  describe(`script kinds on ${storeCase.name}`, () => {
    const t = appSuite(storeCase, { env: { BATON_SCRIPT_TIMEOUT_MS: '1000' } });
    before(async () => {
      await register(t.app, [
        workflowDef(
          'scripts',
          [
            {
              name: 'inline',
              taskReferenceName: 'inline',
              type: 'INLINE',
              inputParameters: {
                items: '${workflow.input.items}',
                evaluatorType: 'javascript',
                expression: 'if ($.items.length > 2) { "many"; } else { "few"; }',
              },
            },
            {
              name: 'lambda',
              taskReferenceName: 'lambda',
              type: 'LAMBDA',
              inputParameters: {
                items: '${workflow.input.items}',
                scriptExpression: 'return {total: $.items.reduce((a, b) => a + b, 0)};',
              },
            },
            {
              name: 'jq',
              taskReferenceName: 'jq',
              type: 'JSON_JQ_TRANSFORM',
              inputParameters: {
                items: '${workflow.input.items}',
                size: '${inline.output.result}',
                queryExpression: '{size: .size, big: [.items[] | select(. > 1)]}',
              },
            },
          ],
          {
            size: '${jq.output.result.size}',
            big: '${jq.output.result.big}',
            total: '${lambda.output.result.total}',
          },
        ),
        workflowDef('spin', [
          {
            name: 'spin',
            taskReferenceName: 'spin',
            type: 'INLINE',
            inputParameters: { expression: 'while (true) {}' },
          },
        ]),
      ]);
    });

    async function start(name: string, input: Record<string, unknown> = {}): Promise<any> {
      const res = await call(t.app, 'POST', `/api/workflow/${name}`, { input });
      assert.equal(res.status, 200, res.text);
      return (await call(t.app, 'GET', `/api/workflow/${res.text}`)).body;
    }

    it('runs INLINE, LAMBDA and jq tasks inside the start, one after the other', async () => {
      const run = await start('scripts', { items: [1, 2, 3] });
      assert.equal(run.status, 'COMPLETED', run.reasonForIncompletion);
      assert.deepEqual(run.output, { size: 'many', big: [2, 3], total: 6 });
      assert.deepEqual(
        run.tasks.map((task: any) => [task.taskType, task.status]),
        [
          ['INLINE', 'COMPLETED'],
          ['LAMBDA', 'COMPLETED'],
          ['JSON_JQ_TRANSFORM', 'COMPLETED'],
        ],
      );
      assert.deepEqual(run.tasks[2].outputData.resultList, [{ size: 'many', big: [2, 3] }]);
    });

    it('an endless INLINE script fails its task with a clear reason while another run completes', async () => {
      const [spinning, other] = await Promise.all([start('spin'), start('scripts', { items: [5] })]);
      assert.equal(spinning.status, 'FAILED');
      assert.equal(spinning.tasks[0].status, 'FAILED_WITH_TERMINAL_ERROR');
      assert.equal(spinning.tasks[0].reasonForIncompletion, 'script exceeded its time limit of 1000 ms');
      assert.deepEqual(spinning.tasks[0].outputData, { error: 'script exceeded its time limit of 1000 ms' });
      assert.equal(other.status, 'COMPLETED');
      assert.deepEqual(other.output, { size: 'few', big: [5], total: 5 });
    });

    it('refuses scripts that do not parse and filters that do not compile, naming task and field', async () => {
      const res = await call(
        t.app,
        'POST',
        '/api/metadata/workflow',
        workflowDef('broken', [
          { name: 'a', taskReferenceName: 'a', type: 'INLINE', inputParameters: { expression: 'if (' } },
          {
            name: 'b',
            taskReferenceName: 'b',
            type: 'JSON_JQ_TRANSFORM',
            inputParameters: { queryExpression: '.x |' },
          },
          { name: 'c', taskReferenceName: 'c', type: 'LAMBDA', inputParameters: {} },
          { name: 'd', taskReferenceName: 'd', type: 'SUB_WORKFLOW' },
        ]),
      );
      assert.equal(res.status, 400, res.text);
      const byPath = new Map(res.body.validationErrors.map((e: any) => [e.path, e.message]));
      assert.match(
        String(byPath.get('tasks[0].inputParameters.expression')),
        /INLINE task a does not parse: SyntaxError/,
      );
      assert.match(
        String(byPath.get('tasks[1].inputParameters.queryExpression')),
        /JSON_JQ_TRANSFORM task b does not compile/,
      );
      assert.equal(
        byPath.get('tasks[2].inputParameters.scriptExpression'),
        'inputParameters.scriptExpression field is required for taskType: LAMBDA taskName: c',
      );
      assert.equal(
        byPath.get('tasks[3].subWorkflowParam'),
        'subWorkflowParam field is required for taskType: SUB_WORKFLOW taskName: d',
      );
    });
  });
}
