import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { appSuite } from '../helpers/app-suite.js';
import { call } from '../helpers/app.js';
import { workflowDef } from '../helpers/definitions.js';
import { runOf } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

/**
 * A JSON_JQ_TRANSFORM filter written for Conductor's jackson-jq (JsonJQTransformSpec) that real
 * jq refuses: registration names the rewrite, and the rewritten filter runs.
 */
const jqFlow = (filter: string) =>
  workflowDef('cjd_jq', [
    {
      name: 'jq',
      taskReferenceName: 'jq',
      type: 'JSON_JQ_TRANSFORM',
      inputParameters: { x: '${workflow.input.x}', queryExpression: filter },
    },
  ]);

for (const storeCase of storeCases()) {
  describe(`jackson-jq filters at registration on ${storeCase.name}`, () => {
    const t = appSuite(storeCase);

    it('JsonJQTransformSpec: {a: .x // "y"} is refused naming {a: (.x // "y")}, which runs', async () => {
      const refused = await call(t.app, 'POST', '/api/metadata/workflow', jqFlow('{a: .x // "y"}'));
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.validationErrors[0].path, 'tasks[0].inputParameters.queryExpression');
      assert.match(
        refused.body.validationErrors[0].message,
        /Conductor's jackson-jq.*write \{a: \(\.x \/\/ "y"\)\}/,
      );
      const ok = await call(t.app, 'POST', '/api/metadata/workflow', jqFlow('{a: (.x // "y")}'));
      assert.equal(ok.status, 200, ok.text);
      const id = (await call(t.app, 'POST', '/api/workflow/cjd_jq', {})).text;
      const run = await runOf(t.app, id);
      assert.equal(run.status, 'COMPLETED');
      assert.deepEqual(run.tasks[0].outputData.result, { a: 'y' });
    });
  });
}
