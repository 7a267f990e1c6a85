import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';

/**
 * Values made inside Baton keep the bounds of values sent to it: a script (JavaScript or jq)
 * whose value nests deeper than the JSON depth limit fails its task with the reason, text a
 * store cannot hold is stored all the same, and a jq filter that traps does not break later ones.
 */
for (const storeCase of storeCases()) {
  describe(`script values within the bounds (${storeCase.name})`, () => {
    const t = appSuite(storeCase);

    it('fails a task whose script value is too deep, and stores odd text a script makes', async () => {
      const deepJs = '(function(){var o={};var c=o;for(var i=0;i<300;i++){c.a={};c=c.a;}return o;})()';
      await register(t.app, [
        workflowDef('deep_js', [
          {
            name: 'i',
            taskReferenceName: 'i',
            type: 'INLINE',
            inputParameters: { evaluatorType: 'javascript', expression: deepJs },
          },
        ]),
        workflowDef('deep_jq', [
          {
            name: 'j',
            taskReferenceName: 'j',
            type: 'JSON_JQ_TRANSFORM',
            inputParameters: { queryExpression: 'reduce range(0;140) as $i (1; {a: .})' },
          },
        ]),
        workflowDef('trap_jq', [
          {
            name: 'j',
            taskReferenceName: 'j',
            type: 'JSON_JQ_TRANSFORM',
            inputParameters: { queryExpression: 'reduce range(0;100000) as $i (1; {a: .})' },
          },
        ]),
        workflowDef('plain_jq', [
          {
            name: 'j',
            taskReferenceName: 'j',
            type: 'JSON_JQ_TRANSFORM',
            inputParameters: { queryExpression: '{b: 1}' },
          },
        ]),
        workflowDef('odd_text', [
          {
            name: 'i',
            taskReferenceName: 'i',
            type: 'INLINE',
            inputParameters: { evaluatorType: 'javascript', expression: '({a: "x\\u0000y", b: "\\ud800"})' },
          },
        ]),
      ]);
      const runOf = async (name: string): Promise<any> => {
        const started = await call(t.app, 'POST', '/api/workflow', { name });
        assert.equal(started.status, 200, started.text);
        const run = await call(t.app, 'GET', `/api/workflow/${started.text}`);
        assert.equal(run.status, 200, run.text);
        return run.body;
      };
      const deepRun = await runOf('deep_js');
      assert.equal(deepRun.status, 'FAILED');
      assert.match(deepRun.tasks[0].reasonForIncompletion, /nested deeper than 128 levels/);
      // jq's own build stops (a trap) well before the limit; the task fails all the same.
      assert.equal((await runOf('deep_jq')).status, 'FAILED');
      assert.equal((await runOf('trap_jq')).status, 'FAILED');
      assert.equal((await runOf('plain_jq')).status, 'COMPLETED', 'jq works again after a trap');
      const odd = await runOf('odd_text');
      assert.equal(odd.status, 'COMPLETED');
      assert.match(odd.tasks[0].outputData.result.a, /^x.y$/su);
    });
  });
}
