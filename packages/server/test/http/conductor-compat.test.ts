import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { appSuite, register } from '../helpers/app-suite.js';
import { call } from '../helpers/app.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { pollOneTask, postResult, runOf, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

/**
 * Conductor's request forms through the real routes: the bare input map of
 * `POST /api/workflow/{name}`, updateTaskSync, a test run by name, event handler lists, queue
 * sizes by type, the scheduler admin routes, and answers that say where Baton keeps its own rule.
 */
const FLOW = 'compat_flow';
const TYPE = 'compat_task';
const flow = workflowDef(
  FLOW,
  [
    {
      name: TYPE,
      taskReferenceName: 'step',
      type: 'SIMPLE',
      inputParameters: { who: '${workflow.input.who}' },
    },
  ],
  { said: '${step.output.said}' },
);

const FAIL_FLOW = 'compat_fail_flow';
const FAIL_TYPE = 'compat_fail_task';
const failFlow = workflowDef(FAIL_FLOW, [{ name: FAIL_TYPE, taskReferenceName: 'only', type: 'SIMPLE' }]);

const handler = (name: string, event = 'baton:compat') => ({
  name,
  event,
  active: true,
  actions: [{ action: 'complete_task', complete_task: { workflowId: '${workflowId}', taskRefName: 'x' } }],
});

for (const c of storeCases()) {
  void describe(`Conductor compatibility through HTTP (${c.name})`, () => {
    const t = appSuite(c);

    void it('registers the definitions', async () => {
      await register(t.app, [flow, failFlow], workerTaskDefs([TYPE, FAIL_TYPE]));
    });

    void it('starts a run from a bare input map with Conductor query parameters', async () => {
      const res = await call(
        t.app,
        'POST',
        `/api/workflow/${FLOW}?version=1&correlationId=bare-1&priority=7`,
        {
          input1: 'value1',
          who: 'ada',
        },
      );
      assert.equal(res.status, 200, res.text);
      const run = await runOf(t.app, res.text);
      assert.deepEqual(run.input, { input1: 'value1', who: 'ada' });
      assert.equal(run.correlationId, 'bare-1');
      assert.equal(run.priority, 7);
      assert.equal(run.workflowVersion, 1);
      // A key called `name` is part of an input map, not the definition's name.
      const named = await startRun(t.app, FLOW, { name: 'grace', age: 3 });
      assert.deepEqual((await runOf(t.app, named)).input, { name: 'grace', age: 3 });
      // An empty body is an empty input.
      const empty = await startRun(t.app, FLOW, {});
      assert.deepEqual((await runOf(t.app, empty)).input, {});
    });

    void it("keeps the contract's start request, with the query filling what it leaves out", async () => {
      const id = await startRun(t.app, FLOW, { input: { who: 'barbara' }, correlationId: 'req-1' });
      const run = await runOf(t.app, id);
      assert.deepEqual(run.input, { who: 'barbara' });
      assert.equal(run.correlationId, 'req-1');
      const res = await call(t.app, 'POST', `/api/workflow/${FLOW}?priority=4`, { input: { who: 'x' } });
      assert.equal(res.status, 200, res.text);
      assert.equal((await runOf(t.app, res.text)).priority, 4);
      // `name` may repeat the path's.
      assert.equal(
        (await call(t.app, 'POST', `/api/workflow/${FLOW}`, { name: FLOW, input: {} })).status,
        200,
      );
    });

    void it('refuses a start request with unknown keys, naming them, and starts nothing', async () => {
      const before = (await call(t.app, 'GET', `/api/workflow/search?name=${FLOW}&size=1`)).body.totalHits;
      const typo = await call(t.app, 'POST', `/api/workflow/${FLOW}`, {
        input: {},
        corelationId: 'x',
        extra: 1,
      });
      assert.equal(typo.status, 400, typo.text);
      assert.match(typo.body.message, /corelationId/);
      assert.deepEqual(
        typo.body.validationErrors.map((e: { path: string }) => e.path),
        ['body.corelationId', 'body.extra'],
      );
      const otherName = await call(t.app, 'POST', `/api/workflow/${FLOW}`, { name: 'other', input: {} });
      assert.equal(otherName.status, 400, otherName.text);
      assert.match(otherName.body.message, /differs from the name in the path/);
      const twice = await call(t.app, 'POST', `/api/workflow/${FLOW}?version=2`, { version: 1 });
      assert.equal(twice.status, 400, twice.text);
      assert.match(twice.body.message, /version is given twice/);
      const inline = await call(t.app, 'POST', `/api/workflow/${FLOW}`, { input: {}, workflowDef: flow });
      assert.equal(inline.status, 400, inline.text);
      assert.match(inline.body.message, /inline workflowDef is taken only by POST \/api\/workflow/);
      const typoByBody = await call(t.app, 'POST', '/api/workflow', { name: FLOW, corelationId: 'x' });
      assert.equal(typoByBody.status, 400, typoByBody.text);
      assert.equal(typoByBody.body.validationErrors[0].path, 'body.corelationId');
      const typoExecute = await call(t.app, 'POST', `/api/workflow/execute/${FLOW}/1`, {
        input: {},
        inptu: {},
      });
      assert.equal(typoExecute.status, 400, typoExecute.text);
      assert.equal(typoExecute.body.validationErrors[0].path, 'body.inptu');
      const after = (await call(t.app, 'GET', `/api/workflow/search?name=${FLOW}&size=1`)).body.totalHits;
      assert.equal(after, before, 'no run was started');
    });

    void it('updateTaskSync answers the run after the update, and 404 with no open task', async () => {
      const id = await startRun(t.app, FLOW, { who: 'sync' });
      const res = await call(t.app, 'POST', `/api/tasks/${id}/step/COMPLETED/sync?workerid=w-sync`, {
        said: 'hi',
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.workflowId, id);
      assert.equal(res.body.status, 'COMPLETED');
      assert.deepEqual(res.body.output, { said: 'hi' });
      assert.equal(res.body.tasks[0].status, 'COMPLETED');
      assert.equal(res.body.tasks[0].workerId, 'w-sync');
      // The task has ended: a repeat of its recorded result is acknowledged (a worker whose answer
      // was lost), another result is refused naming the status.
      const again = await call(t.app, 'POST', `/api/tasks/${id}/step/COMPLETED/sync?workerid=w-sync`, {
        said: 'hi',
      });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.status, 'COMPLETED');
      const other = await call(t.app, 'POST', `/api/tasks/${id}/step/COMPLETED/sync?workerid=w-sync`, {
        said: 'bye',
      });
      assert.equal(other.status, 409, other.text);
      assert.match(other.body.message, /COMPLETED/);
      const never = await call(t.app, 'POST', `/api/tasks/${id}/no_such_step/COMPLETED/sync`, {});
      assert.equal(never.status, 404, never.text);
      assert.match(never.body.message, /no open task no_such_step/);
      const unknown = await call(t.app, 'POST', '/api/tasks/no-such-run/step/COMPLETED/sync', {});
      assert.equal(unknown.status, 404, unknown.text);
    });

    void it('runs a test run of the registered definition named in the body', async () => {
      const res = await call(t.app, 'POST', '/api/workflow/test', {
        name: FLOW,
        version: 1,
        input: { who: 'mock' },
        taskRefToMockOutput: { step: [{ status: 'COMPLETED', output: { said: 'mocked' } }] },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'COMPLETED');
      assert.deepEqual(res.body.output, { said: 'mocked' });
      const missing = await call(t.app, 'POST', '/api/workflow/test', { name: 'no_such_flow' });
      assert.equal(missing.status, 404, missing.text);
      const neither = await call(t.app, 'POST', '/api/workflow/test', { input: {} });
      assert.equal(neither.status, 400, neither.text);
      assert.match(neither.body.message, /workflowDef, or the name/);
    });

    void it('adds a list of event handlers all or nothing', async () => {
      const ok = await call(t.app, 'POST', '/api/event', [handler('compat_a'), handler('compat_b')]);
      assert.equal(ok.status, 200, ok.text);
      const names = async () =>
        ((await call(t.app, 'GET', '/api/event')).body as Array<{ name: string }>).map((h) => h.name).sort();
      assert.deepEqual(await names(), ['compat_a', 'compat_b']);
      const clash = await call(t.app, 'POST', '/api/event', [handler('compat_c'), handler('compat_a')]);
      assert.equal(clash.status, 409, clash.text);
      assert.match(clash.body.message, /none of the list was added/);
      const bad = await call(t.app, 'POST', '/api/event', [
        handler('compat_d'),
        handler('compat_e', 'bogus'),
      ]);
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.validationErrors[0].path, 'body[1].event');
      const repeated = await call(t.app, 'POST', '/api/event', [handler('compat_f'), handler('compat_f')]);
      assert.equal(repeated.status, 400, repeated.text);
      assert.equal((await call(t.app, 'POST', '/api/event', [])).status, 400);
      assert.deepEqual(await names(), ['compat_a', 'compat_b'], 'nothing added by the refused lists');
      const byName = await call(t.app, 'GET', '/api/event/handler/compat_a');
      assert.equal(byName.status, 200, byName.text);
      assert.equal(byName.body.name, 'compat_a');
      assert.equal((await call(t.app, 'GET', '/api/event/handler/compat_none')).status, 404);
      // One handler, as before.
      assert.equal((await call(t.app, 'POST', '/api/event', handler('compat_g'))).status, 200);
    });

    void it("answers queue sizes in Conductor's shape for named types, and the contract's counts otherwise", async () => {
      await startRun(t.app, FLOW, { who: 'queued' });
      const sizes = (await call(t.app, 'GET', `/api/tasks/queue/sizes`)).body;
      const waiting = sizes[TYPE].waiting as number;
      assert.ok(waiting >= 1, JSON.stringify(sizes));
      assert.equal(typeof sizes[TYPE].deadLettered, 'number');
      const named = await call(t.app, 'GET', `/api/tasks/queue/sizes?taskType=${TYPE}&taskType=nothing_here`);
      assert.equal(named.status, 200, named.text);
      assert.deepEqual(named.body, { [TYPE]: waiting, nothing_here: 0 });
      const comma = await call(t.app, 'GET', `/api/tasks/queue/sizes?taskType=${TYPE},nothing_here`);
      assert.deepEqual(comma.body, named.body);
      // A taken task no longer waits.
      await pollOneTask(t.app, TYPE);
      const afterPoll = (await call(t.app, 'GET', `/api/tasks/queue/sizes?taskType=${TYPE}`)).body;
      assert.equal(afterPoll[TYPE], waiting - 1);
    });

    void it("serves Conductor's scheduler admin routes", async () => {
      for (const action of ['pause', 'resume'] as const) {
        const res = await call(t.app, 'GET', `/api/scheduler/admin/${action}`);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body, { status: 'done' });
      }
      const requeue = await call(t.app, 'GET', '/api/scheduler/admin/requeue');
      assert.equal(requeue.status, 200, requeue.text);
      assert.deepEqual(requeue.body, { 'recordIds.size': 0, sampleIds: [] });
    });

    void it('says where Baton keeps its own rule: linked runs, and versions with runs', async () => {
      const id = await startRun(t.app, FAIL_FLOW, {});
      const task = await pollOneTask(t.app, FAIL_TYPE, 'w-fail');
      await postResult(t.app, task, 'FAILED_WITH_TERMINAL_ERROR');
      assert.equal((await runOf(t.app, id)).status, 'FAILED');
      const retried = await call(t.app, 'POST', `/api/workflow/${id}/retry`);
      assert.equal(retried.status, 200, retried.text);
      assert.notEqual(retried.text, id);
      assert.match(
        String(retried.headers['x-baton-linked-run']),
        /new run \(retry_of .*does not continue a run in place/,
      );
      const twice = await call(t.app, 'POST', `/api/workflow/${id}/retry`);
      assert.equal(twice.status, 409, twice.text);
      assert.match(
        twice.body.message,
        new RegExp(`retried by ${retried.text}: Baton retries into a new linked run`),
      );
      const paused = await call(t.app, 'PUT', `/api/workflow/${id}/pause`);
      assert.equal(paused.status, 409, paused.text);
      assert.match(paused.body.message, new RegExp(`new linked run ${retried.text}`));
      const bulk = await call(t.app, 'POST', '/api/workflow/bulk/restart', [id]);
      assert.equal(bulk.status, 200, bulk.text);
      assert.deepEqual(bulk.body.bulkSuccessfulResults, [id]);
      const restartedAs = bulk.body.linkedRuns[id] as string;
      assert.notEqual(restartedAs, id);
      assert.equal((await runOf(t.app, restartedAs)).workflowId, restartedAs);
      const removeVersion = await call(t.app, 'DELETE', `/api/metadata/workflow/${FAIL_FLOW}/1`);
      assert.equal(removeVersion.status, 409, removeVersion.text);
      assert.match(removeVersion.body.message, /Conductor would remove it\): remove those runs first/);
    });

    void it("answers Conductor paths Baton lacks with 404 naming the feature, not another route's error", async () => {
      for (const [method, url] of [
        ['DELETE', `/api/metadata/workflow/${FLOW}/tags`],
        ['GET', `/api/metadata/workflow/${FLOW}/tags`],
        ['POST', '/api/tasks/queue/requeue/some_type'],
        ['GET', '/api/event/message'],
        ['GET', '/api/metadata/workflow/names'],
        ['GET', '/api/workflow/search-v2'],
      ] as const) {
        const res = await call(t.app, method, url, method === 'POST' ? {} : undefined);
        assert.equal(res.status, 404, `${method} ${url}: ${res.text}`);
        assert.match(res.body.message, /^Conductor's /, `${method} ${url}: ${res.text}`);
      }
    });
  });
}
