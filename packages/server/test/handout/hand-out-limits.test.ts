import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { ManualClock } from '../../src/clock.js';
import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { pollTasks, postResult } from '../helpers/runs.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';

/**
 * concurrentExecLimit and rate limits at hand-out, on a manual clock: tasks over a limit are
 * not handed out, their messages come back 60 s later, and the runs all finish.
 */
for (const storeCase of storeCases()) {
  describe(`hand-out limits on ${storeCase.name}`, () => {
    const clock = new ManualClock();
    const t = appSuite(storeCase, { clock });
    before(async () => {
      const defs = [
        ...workerTaskDefs(['lim_conc'], { concurrentExecLimit: 2, retryCount: 1 }),
        ...workerTaskDefs(['lim_rate'], { rateLimitPerFrequency: 3, rateLimitFrequencyInSeconds: 10 }),
      ];
      assert.equal((await call(t.app, 'POST', '/api/metadata/taskdefs', defs)).status, 200);
      for (const type of ['lim_conc', 'lim_rate']) {
        const wf = workflowDef(`wf_${type}`, [{ name: type, taskReferenceName: 'only', type: 'SIMPLE' }]);
        assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', wf)).status, 200);
      }
    });

    async function startRuns(name: string, n: number): Promise<string[]> {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const res = await call(t.app, 'POST', `/api/workflow/${name}`, { input: { i } });
        assert.equal(res.status, 200, res.text);
        ids.push(res.text);
      }
      return ids;
    }

    const poll = (type: string, count: number) => pollTasks(t.app, type, count);

    async function complete(tasks: any[]): Promise<void> {
      for (const task of tasks) await postResult(t.app, task, 'COMPLETED', { outputData: { ok: true } });
    }

    async function sizes(queue: string): Promise<any> {
      return (await call(t.app, 'GET', '/api/tasks/queue/sizes')).body[queue];
    }

    async function waitReasons(ids: string[]): Promise<string[]> {
      const out: string[] = [];
      for (const id of ids) {
        const run = (await call(t.app, 'GET', `/api/workflow/${id}`)).body;
        for (const w of run.waitingFor ?? []) out.push(w.reason);
      }
      return out.sort();
    }

    async function statuses(ids: string[]): Promise<string[]> {
      const out: string[] = [];
      for (const id of ids) out.push((await call(t.app, 'GET', `/api/workflow/${id}/status`)).body.status);
      return out;
    }

    it('concurrentExecLimit 2: two of five handed out, the rest back in 60 s, all done in the end', async () => {
      const ids = await startRuns('wf_lim_conc', 5);
      const first = await poll('lim_conc', 5);
      assert.equal(first.length, 2);
      assert.deepEqual(await sizes('lim_conc'), {
        ...(await sizes('lim_conc')),
        waiting: 0,
        scheduled: 3,
        inFlight: 2,
      });
      assert.deepEqual(await waitReasons(ids), [
        'concurrency-limit',
        'concurrency-limit',
        'concurrency-limit',
        'lock',
        'lock',
      ]);
      const deferred = (
        await call(
          t.app,
          'GET',
          `/api/workflow/${ids.find((id) => !first.some((x) => x.workflowInstanceId === id))}`,
        )
      ).body;
      const w = deferred.waitingFor[0];
      assert.equal(w.until, clock.now() + 60_000);
      assert.match(w.message, /lim_conc is at its concurrentExecLimit/);
      assert.equal(deferred.tasks[0].limitDeferral.reason, 'concurrency-limit');

      // Completing frees slots, but the deferred messages stay hidden for their 60 s.
      await complete(first);
      assert.deepEqual(await poll('lim_conc', 5), []);
      clock.advance(59_999);
      assert.deepEqual(await poll('lim_conc', 5), []);
      clock.advance(1);
      const second = await poll('lim_conc', 5);
      assert.equal(second.length, 2, 'still at most two in progress');
      assert.equal((await poll('lim_conc', 5)).length, 0);
      await complete(second);
      clock.advance(60_000);
      const third = await poll('lim_conc', 5);
      assert.equal(third.length, 1);
      await complete(third);
      assert.deepEqual(await statuses(ids), Array(5).fill('COMPLETED'));
    });

    it('an attempt lost to lock expiry does not count against concurrentExecLimit', async () => {
      const ids = await startRuns('wf_lim_conc', 2);
      const taken = await poll('lim_conc', 1);
      assert.equal(taken.length, 1);
      // The worker died: after its 60 s lock the response timer times the attempt out and
      // queues the next one at once; only that new attempt and the waiting task are open.
      clock.advance(60_000);
      assert.ok((await t.server.timers.fireDue()) >= 1);
      const again = await poll('lim_conc', 5);
      assert.equal(again.length, 2, 'the new attempt and the waiting one: two in progress');
      assert.ok(
        !again.some((task) => task.taskId === taken[0]?.taskId),
        'the lapsed attempt is not handed out',
      );
      await complete(again);
      assert.deepEqual(await statuses(ids), ['COMPLETED', 'COMPLETED']);
    });

    it('rate limit 3 per 10 s: three handed out, the rest back in 60 s, in a new window', async () => {
      const ids = await startRuns('wf_lim_rate', 5);
      const one = await poll('lim_rate', 1);
      const two = await poll('lim_rate', 1);
      const three = await poll('lim_rate', 1);
      assert.equal(one.length + two.length + three.length, 3);
      // The fourth hand-out in the window is refused even with capacity to spare.
      const refused = await call(t.app, 'GET', '/api/tasks/poll/lim_rate?workerid=w');
      assert.equal(refused.status, 204);
      const rest = await poll('lim_rate', 5);
      assert.equal(rest.length, 0, 'the last one too');
      assert.equal((await waitReasons(ids)).filter((r) => r === 'rate-limit').length, 2);
      await complete([...one, ...two, ...three]);
      clock.advance(60_000);
      const later = await poll('lim_rate', 5);
      assert.equal(later.length, 2);
      await complete(later);
      assert.deepEqual(await statuses(ids), Array(5).fill('COMPLETED'));
      const metrics = (await call(t.app, 'GET', '/metrics')).text;
      assert.match(metrics, /baton_tasks_limit_deferred_total\{task_type="lim_rate",reason="rate-limit"\} 2/);
    });
  });
}
