import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { storeCases } from '../helpers/stores.js';
import { taskDefs, threeStepWorkflow } from './fixtures.js';

for (const storeCase of storeCases()) {
  describe(`metadata routes on ${storeCase.name}`, () => {
    const t = appSuite(storeCase);

    it('registers task definitions (list or one) and creates their queues', async () => {
      const res = await call(t.app, 'POST', '/api/metadata/taskdefs', taskDefs());
      assert.equal(res.status, 200, res.text);
      const one = await call(t.app, 'POST', '/api/metadata/taskdefs', {
        name: 'single_def',
        responseTimeoutSeconds: 5,
      });
      assert.equal(one.status, 200, one.text);
      const got = await call(t.app, 'GET', '/api/metadata/taskdefs/http_a');
      assert.equal(got.status, 200);
      assert.equal(got.body.name, 'http_a');
      assert.equal(got.body.retryCount, 0);
      const sizes = await call(t.app, 'GET', '/api/tasks/queue/sizes');
      assert.ok('http_a' in sizes.body && 'single_def' in sizes.body, JSON.stringify(sizes.body));
      const list = await call(t.app, 'GET', '/api/metadata/taskdefs');
      assert.ok(list.body.length >= 4);
      assert.equal((await call(t.app, 'GET', '/api/metadata/taskdefs/nope')).status, 404);
    });

    it('rejects a task definition whose response timeout exceeds its timeout, naming the field', async () => {
      const res = await call(t.app, 'POST', '/api/metadata/taskdefs', [
        { name: 'bad_timeouts', timeoutSeconds: 10, responseTimeoutSeconds: 20 },
      ]);
      assert.equal(res.status, 400);
      assert.match(res.body.message, /responseTimeoutSeconds/);
      assert.ok(res.body.validationErrors.length >= 1);
      assert.equal((await call(t.app, 'GET', '/api/metadata/taskdefs/bad_timeouts')).status, 404);
    });

    it('assigns versions: new name → 1, again → 2; an existing version is 409 unless overwrite', async () => {
      const def = threeStepWorkflow('versions_wf');
      const first = await call(t.app, 'POST', '/api/metadata/workflow', def);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.version, 1);
      const second = await call(t.app, 'POST', '/api/metadata/workflow', def);
      assert.equal(second.body.version, 2);
      const dup = await call(t.app, 'POST', '/api/metadata/workflow', { ...def, version: 1 });
      assert.equal(dup.status, 409);
      assert.equal(dup.body.message, 'Workflow with versions_wf.1 already exists!');
      const over = await call(t.app, 'POST', '/api/metadata/workflow?overwrite=true', {
        ...def,
        version: 1,
        description: 'replaced',
      });
      assert.equal(over.status, 200, over.text);
      assert.equal(
        (await call(t.app, 'GET', '/api/metadata/workflow/versions_wf?version=1')).body.description,
        'replaced',
      );
      assert.equal((await call(t.app, 'GET', '/api/metadata/workflow/versions_wf')).body.version, 2);
      const missing = await call(t.app, 'GET', '/api/metadata/workflow/versions_wf?version=9');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.message, 'No such workflow found by name: versions_wf, version: 9');
      const all = await call(t.app, 'GET', '/api/metadata/workflow');
      assert.equal(all.body.filter((d: { name: string }) => d.name === 'versions_wf').length, 2);
    });

    it('PUT upserts a list, all or nothing', async () => {
      const ok = await call(t.app, 'PUT', '/api/metadata/workflow', [
        { ...threeStepWorkflow('put_a'), version: 3 },
        threeStepWorkflow('put_b'),
      ]);
      assert.equal(ok.status, 200, ok.text);
      assert.deepEqual(ok.body.bulkSuccessfulResults, ['put_a.3', 'put_b.1']);
      const bad = await call(t.app, 'PUT', '/api/metadata/workflow', [
        threeStepWorkflow('put_c'),
        { name: 'put_d' },
      ]);
      assert.equal(bad.status, 400);
      assert.ok(bad.body.validationErrors.some((e: { path: string }) => e.path.startsWith('[1]')));
      assert.equal((await call(t.app, 'GET', '/api/metadata/workflow/put_c')).status, 404);
    });

    it('lists every problem of a bad definition with its path', async () => {
      const res = await call(t.app, 'POST', '/api/metadata/workflow', {
        name: 'bad_wf',
        tasks: [
          { name: 'http_a', taskReferenceName: 'dup', type: 'SIMPLE' },
          { name: 'http_b', taskReferenceName: 'dup', type: 'SIMPLE' },
          { name: 'x', taskReferenceName: 'weird', type: 'NOT_A_KIND' },
          { name: 'http_c', taskReferenceName: 'c', inputParameters: { v: '${ghost.output.v}' } },
          { taskReferenceName: 'noname' },
        ],
      });
      assert.equal(res.status, 400, res.text);
      const paths = res.body.validationErrors.map((e: { path: string }) => e.path).join(' | ');
      assert.match(paths, /tasks\[1\]\.taskReferenceName/);
      assert.match(paths, /tasks\[2\]\.type/);
      assert.match(paths, /tasks\[3\]\.inputParameters\.v/);
      assert.match(paths, /tasks\[4\]\.name/);
      const empty = await call(t.app, 'POST', '/api/metadata/workflow', {});
      assert.equal(empty.status, 400);
      const messages = empty.body.validationErrors.map((e: { message: string }) => e.message);
      assert.ok(messages.includes('WorkflowDef name cannot be null or empty'), messages.join());
      assert.ok(messages.includes('WorkflowTask list cannot be empty'), messages.join());
      assert.equal((await call(t.app, 'GET', '/api/metadata/workflow/bad_wf')).status, 404);
    });

    it('refuses to delete a version that has runs (409) and deletes one that has none', async () => {
      await call(t.app, 'POST', '/api/metadata/workflow', threeStepWorkflow('del_wf'));
      await call(t.app, 'POST', '/api/metadata/workflow', threeStepWorkflow('del_wf'));
      const started = await call(t.app, 'POST', '/api/workflow/del_wf', { version: 1, input: { x: 1 } });
      assert.equal(started.status, 200, started.text);
      const refused = await call(t.app, 'DELETE', '/api/metadata/workflow/del_wf/1');
      assert.equal(refused.status, 409);
      assert.equal((await call(t.app, 'GET', '/api/metadata/workflow/del_wf?version=1')).status, 200);
      assert.equal((await call(t.app, 'DELETE', '/api/metadata/workflow/del_wf/2')).status, 200);
      assert.equal((await call(t.app, 'GET', '/api/metadata/workflow/del_wf?version=2')).status, 404);
      assert.equal((await call(t.app, 'DELETE', '/api/metadata/workflow/del_wf/2')).status, 404);
    });

    it('serves the OpenAPI document generated from the route schemas', async () => {
      const res = await call(t.app, 'GET', '/api/openapi.json');
      assert.equal(res.status, 200);
      assert.ok(res.body.paths['/api/metadata/workflow']);
      assert.ok(res.body.paths['/api/tasks/poll/batch/{taskType}']);
      const health = await call(t.app, 'GET', '/health');
      assert.equal(health.status, 200);
      assert.equal(health.body.components.database.status, 'UP');
    });
  });
}
