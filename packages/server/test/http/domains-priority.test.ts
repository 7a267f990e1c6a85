import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { call, testApp } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { startRun } from '../helpers/runs.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';

/** taskToDomain routing and high-priority queues, through the real routes on both stores. */
for (const storeCase of storeCases()) {
  describe(`domains and priority on ${storeCase.name}`, () => {
    const t = appSuite(storeCase);
    before(async () => {
      const defs = workerTaskDefs(['dp_a', 'dp_b', 'dp_c', 'dp_d']);
      assert.equal((await call(t.app, 'POST', '/api/metadata/taskdefs', defs)).status, 200);
      for (const type of ['dp_a', 'dp_b', 'dp_c', 'dp_d']) {
        const wf = workflowDef(`wf_${type}`, [{ name: type, taskReferenceName: 'only', type: 'SIMPLE' }]);
        assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', wf)).status, 200);
      }
    });

    const start = (name: string, body: Record<string, unknown> = {}) => startRun(t.app, name, body);

    async function pollOne(type: string, query = ''): Promise<any> {
      const res = await call(t.app, 'GET', `/api/tasks/poll/${type}?workerid=w${query}`);
      assert.ok(res.status === 200 || res.status === 204, res.text);
      return res.status === 204 ? undefined : res.body;
    }

    it('a domain routes to {domain}-{type}: only workers polling with that domain take it', async () => {
      const id = await start('wf_dp_a', { taskToDomain: { dp_a: 'blue' } });
      const none = await call(t.app, 'GET', '/api/tasks/poll/dp_a?workerid=plain');
      assert.equal(none.status, 204);
      assert.equal(none.text, '');
      assert.equal(await pollOne('dp_a', '&domain=green'), undefined);
      const batch = await call(t.app, 'GET', '/api/tasks/poll/batch/dp_a?workerid=plain&count=5&timeout=0');
      assert.deepEqual(batch.body, []);
      const task = await pollOne('dp_a', '&domain=blue');
      assert.equal(task.workflowInstanceId, id);
      assert.equal(task.domain, 'blue');
      assert.equal(task.queueName, 'blue-dp_a');
    });

    it('"*" applies to every type; NO_DOMAIN and comma lists as Conductor', async () => {
      const star = await start('wf_dp_b', { taskToDomain: { '*': 'red' } });
      assert.equal(await pollOne('dp_b'), undefined);
      assert.equal((await pollOne('dp_b', '&domain=red')).workflowInstanceId, star);

      const noDomain = await start('wf_dp_b', { taskToDomain: { '*': 'red', dp_b: 'NO_DOMAIN' } });
      assert.equal((await pollOne('dp_b')).workflowInstanceId, noDomain);

      // No worker has polled x or y lately: the last entry wins.
      const last = await start('wf_dp_b', { taskToDomain: { dp_b: 'x,y' } });
      assert.equal(await pollOne('dp_b', '&domain=x'), undefined, 'records a poll on x-dp_b');
      assert.equal((await pollOne('dp_b', '&domain=y')).workflowInstanceId, last);
      // x has a live worker now: the first live domain of the list wins.
      const live = await start('wf_dp_b', { taskToDomain: { dp_b: 'x,y' } });
      assert.equal((await pollOne('dp_b', '&domain=x')).workflowInstanceId, live);
      // A list ending in NO_DOMAIN with no live domain goes to the plain queue.
      const fallback = await start('wf_dp_b', { taskToDomain: { dp_b: 'z,NO_DOMAIN' } });
      assert.equal((await pollOne('dp_b')).workflowInstanceId, fallback);
    });

    it('a high-priority run queues on {type}-high and is handed out first', async () => {
      const low = await start('wf_dp_c', { priority: 10 });
      const high = await start('wf_dp_c', { priority: 60 });
      const run = (await call(t.app, 'GET', `/api/workflow/${high}`)).body;
      assert.equal(run.tasks[0].queueName, 'dp_c-high');
      const sizes = (await call(t.app, 'GET', '/api/tasks/queue/sizes')).body;
      assert.equal(sizes['dp_c-high'].waiting, 1);
      assert.equal(sizes.dp_c.waiting, 1);
      assert.equal((await pollOne('dp_c')).workflowInstanceId, high);
      assert.equal((await pollOne('dp_c')).workflowInstanceId, low);
    });

    it('inside a queue: higher priority first, then first visible first; domains have -high queues too', async () => {
      const p1 = await start('wf_dp_d', { priority: 5 });
      const p2 = await start('wf_dp_d', { priority: 20 });
      const p3 = await start('wf_dp_d', { priority: 20 });
      const batch = await call(t.app, 'GET', '/api/tasks/poll/batch/dp_d?workerid=w&count=3&timeout=0');
      assert.deepEqual(
        batch.body.map((x: any) => x.workflowInstanceId),
        [p2, p3, p1],
      );
      const blueLow = await start('wf_dp_d', { taskToDomain: { dp_d: 'blue' } });
      const blueHigh = await start('wf_dp_d', { taskToDomain: { dp_d: 'blue' }, priority: 99 });
      const high = (await call(t.app, 'GET', `/api/workflow/${blueHigh}`)).body;
      assert.equal(high.tasks[0].queueName, 'blue-dp_d-high');
      assert.equal((await pollOne('dp_d', '&domain=blue')).workflowInstanceId, blueHigh);
      assert.equal((await pollOne('dp_d', '&domain=blue')).workflowInstanceId, blueLow);
    });
  });
}

for (const storeCase of storeCases()) {
  describe(`BATON_HIGH_PRIORITY_THRESHOLD on ${storeCase.name}`, () => {
    it('moves the line between the normal and the high queue', async () => {
      const opened = await storeCase.open();
      const t = await testApp(opened.store, { env: { BATON_HIGH_PRIORITY_THRESHOLD: '80' } });
      try {
        await call(t.app, 'POST', '/api/metadata/taskdefs', workerTaskDefs(['dp_th']));
        await call(
          t.app,
          'POST',
          '/api/metadata/workflow',
          workflowDef('wf_dp_th', [{ name: 'dp_th', taskReferenceName: 'only', type: 'SIMPLE' }]),
        );
        const normal = (await call(t.app, 'POST', '/api/workflow/wf_dp_th', { priority: 79 })).text;
        const high = (await call(t.app, 'POST', '/api/workflow/wf_dp_th', { priority: 80 })).text;
        const queueOf = async (id: string) =>
          (await call(t.app, 'GET', `/api/workflow/${id}`)).body.tasks[0].queueName;
        assert.equal(await queueOf(normal), 'dp_th');
        assert.equal(await queueOf(high), 'dp_th-high');
      } finally {
        await t.close();
        await opened.cleanup();
      }
    });
  });
}
