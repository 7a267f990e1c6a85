import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { appSuite, register } from '../helpers/app-suite.js';
import { call } from '../helpers/app.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { pollOneTask, postResult, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';
import { ManualClock } from '../../src/clock.js';

/** Task search and the query form of run search, through the real routes, on every store. */

const flowA = workflowDef('ts_flow_a', [
  {
    name: 'ts_alpha',
    taskReferenceName: 'alpha',
    type: 'SIMPLE',
    inputParameters: { who: '${workflow.input.who}' },
  },
  { name: 'ts_beta', taskReferenceName: 'beta', type: 'SIMPLE', inputParameters: {} },
]);
const flowB = workflowDef('ts_flow_b', [
  {
    name: 'ts_alpha',
    taskReferenceName: 'alpha',
    type: 'SIMPLE',
    inputParameters: { who: '${workflow.input.who}' },
  },
]);

for (const storeCase of storeCases()) {
  describe(`task search: ${storeCase.name}`, () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    const t = appSuite(storeCase, { clock });
    const runs: Record<string, string> = {};
    let startOfSecond = 0;

    before(async () => {
      await register(t.app, [flowA, flowB], workerTaskDefs(['ts_alpha', 'ts_beta']));
      // a1: alpha COMPLETED (output mentions 'zanzibar'), beta waiting; a2: alpha FAILED (run FAILED);
      // b1: alpha waiting.
      runs.a1 = await startRun(t.app, 'ts_flow_a', { input: { who: 'ada' } });
      clock.advance(1000);
      const a1 = await pollOneTask(t.app, 'ts_alpha');
      await postResult(t.app, a1, 'COMPLETED', { outputData: { place: 'Zanzibar' } });
      clock.advance(60_000);
      startOfSecond = clock.now();
      runs.a2 = await startRun(t.app, 'ts_flow_a', { input: { who: 'grace' } });
      clock.advance(1000);
      const a2 = await pollOneTask(t.app, 'ts_alpha', 'w-grace');
      await postResult(t.app, a2, 'FAILED', { reasonForIncompletion: 'boom' });
      clock.advance(1000);
      runs.b1 = await startRun(t.app, 'ts_flow_b', { input: { who: 'barbara' } });
    });

    const search = async (query: string): Promise<{ totalHits: number; results: any[] }> => {
      const res = await call(t.app, 'GET', `/api/tasks/search?${query}`);
      assert.equal(res.status, 200, res.text);
      return res.body;
    };

    it('finds tasks by type, status, run, run name and free text, as TaskSummary rows', async () => {
      const alpha = await search('taskType=ts_alpha');
      assert.equal(alpha.totalHits, 3);
      const done = await search('taskType=ts_alpha&status=COMPLETED');
      assert.equal(done.totalHits, 1);
      const row = done.results[0];
      assert.equal(row.workflowId, runs.a1);
      assert.equal(row.workflowType, 'ts_flow_a');
      assert.equal(row.taskType, 'ts_alpha');
      assert.equal(row.status, 'COMPLETED');
      assert.equal(JSON.parse(row.output).place, 'Zanzibar');
      assert.equal(JSON.parse(row.input).who, 'ada');
      assert.match(row.startTime, /^2026-06-01T00:00:01\.000Z$/);
      assert.equal((await search(`workflowId=${runs.a1}`)).totalHits, 2);
      assert.equal((await search('workflowType=ts_flow_b')).totalHits, 1);
      assert.equal((await search('workflowName=ts_flow_a&status=SCHEDULED')).totalHits, 1);
      assert.equal((await search('freeText=zanzibar')).totalHits, 1);
      assert.equal((await search('freeText=barbara')).results[0].workflowId, runs.b1);
      assert.equal((await search('status=FAILED,SCHEDULED')).totalHits, 3);
    });

    it('finds the tasks a worker holds or held, alone, with other filters, and in a query', async () => {
      const held = await search('workerId=w-grace');
      assert.deepEqual(
        held.results.map((r) => [r.workflowId, r.status]),
        [[runs.a2, 'FAILED']],
      );
      assert.equal((await search('taskType=ts_alpha&workerId=w')).totalHits, 1);
      assert.equal((await search('taskType=ts_beta&workerId=w-grace')).totalHits, 0);
      assert.equal((await search(`query=${encodeURIComponent("workerId = 'w-grace'")}`)).totalHits, 1);
    });

    it('filters on start time, pages and sorts', async () => {
      assert.equal((await search(`taskType=ts_alpha&from=${startOfSecond}`)).totalHits, 1);
      assert.equal(
        (await search(`taskType=ts_alpha&to=${new Date(startOfSecond).toISOString()}`)).totalHits,
        1,
      );
      const asc = await search('taskType=ts_alpha&sort=updateTime:ASC&size=2');
      assert.equal(asc.totalHits, 3);
      assert.equal(asc.results.length, 2);
      assert.equal(asc.results[0].workflowId, runs.a1);
      const next = await search('taskType=ts_alpha&sort=updateTime:ASC&size=2&start=2');
      assert.deepEqual(
        next.results.map((r) => r.workflowId),
        [runs.b1],
      );
      const desc = await search('taskType=ts_alpha');
      assert.equal(desc.results[0].workflowId, runs.b1, 'default: latest update first');
    });

    it("takes Conductor's query expression, alone or with plain filters", async () => {
      const q = (text: string): string => `query=${encodeURIComponent(text)}`;
      assert.equal(
        (await search(q('taskType IN (ts_alpha,ts_beta) AND status IN (COMPLETED)'))).totalHits,
        1,
      );
      assert.equal((await search(q(`taskType IN (ts_alpha) AND startTime > ${startOfSecond}`))).totalHits, 1);
      assert.equal((await search(q('status = FAILED OR workflowType = ts_flow_b'))).totalHits, 2);
      assert.equal((await search(`${q('status NOT IN (COMPLETED)')}&taskType=ts_alpha`)).totalHits, 2);
      assert.equal((await search(`${q('taskType = "ts_alpha"')}&freeText=grace`)).totalHits, 1);
      const v2 = await call(t.app, 'GET', `/api/tasks/search-v2?${q('status = COMPLETED')}`);
      assert.equal(v2.status, 200);
      assert.equal(v2.body.results[0].outputData.place, 'Zanzibar');
    });

    it('answers 400 naming the position of a syntax error, and naming a bad field or value', async () => {
      const syntax = await call(
        t.app,
        'GET',
        `/api/tasks/search?query=${encodeURIComponent('taskType IN (a AND')}`,
      );
      assert.equal(syntax.status, 400);
      assert.match(syntax.body.message, /syntax error at position 16: expected ',' or '\)', found 'AND'/);
      assert.equal(syntax.body.validationErrors[0].path, 'querystring.query');
      const field = await call(t.app, 'GET', `/api/tasks/search?query=${encodeURIComponent('size = 3')}`);
      assert.equal(field.status, 400);
      assert.match(field.body.message, /unknown field 'size'/);
      for (const bad of ['status=DONE', 'sort=color:ASC', 'from=yesterday', 'size=5000', 'start=-1']) {
        const res = await call(t.app, 'GET', `/api/tasks/search?${bad}`);
        assert.equal(res.status, 400, bad);
      }
      // Text that would break string-built SQL is only ever a bound value.
      const sneaky = await search(`query=${encodeURIComponent(`taskType = "x' OR '1'='1"`)}`);
      assert.equal(sneaky.totalHits, 0);
    });

    it('run search takes the same query form (it no longer answers every run)', async () => {
      const runSearch = async (text: string): Promise<{ totalHits: number; results: any[] }> => {
        const res = await call(t.app, 'GET', `/api/workflow/search?query=${encodeURIComponent(text)}`);
        assert.equal(res.status, 200, res.text);
        return res.body;
      };
      assert.equal((await runSearch('workflowType IN (ts_flow_a) AND status IN (RUNNING)')).totalHits, 1);
      assert.equal(
        (await runSearch('workflowType IN (ts_flow_a, ts_flow_b) AND status IN (RUNNING, FAILED)')).totalHits,
        3,
      );
      assert.equal((await runSearch(`workflowId = ${runs.a2}`)).results[0].status, 'FAILED');
      assert.equal((await runSearch(`startTime >= ${startOfSecond}`)).totalHits, 2);
      const bad = await call(
        t.app,
        'GET',
        `/api/workflow/search?query=${encodeURIComponent('status IN (RUNNING')}`,
      );
      assert.equal(bad.status, 400);
      assert.match(bad.body.message, /position 19/);
    });
  });
}
