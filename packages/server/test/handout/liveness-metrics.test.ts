import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { pino } from 'pino';

import { ManualClock } from '../../src/clock.js';
import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';

/** The value of one Prometheus sample, or undefined when absent. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * Worker liveness (no poll in 10 s = no active worker) in the queue views and as a warning when
 * work is queued, and the Prometheus metrics, on a manual clock.
 */
for (const storeCase of storeCases()) {
  describe(`liveness and metrics on ${storeCase.name}`, () => {
    const clock = new ManualClock();
    const logLines: Array<Record<string, unknown>> = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => logLines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const t = appSuite(storeCase, { clock, logger });
    before(async () => {
      assert.equal(
        (await call(t.app, 'POST', '/api/metadata/taskdefs', workerTaskDefs(['lv_img', 'lv_two']))).status,
        200,
      );
      const wf = workflowDef('wf_lv', [
        { name: 'lv_img', taskReferenceName: 'img', type: 'SIMPLE' },
        { name: 'lv_two', taskReferenceName: 'two', type: 'SIMPLE' },
      ]);
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', wf)).status, 200);
    });

    const metrics = async (): Promise<string> => {
      const res = await call(t.app, 'GET', '/metrics');
      assert.equal(res.status, 200);
      assert.match(String(res.headers['content-type']), /text\/plain; version=0\.0\.4/);
      return res.text;
    };

    it('a type polled within 10 s has an active worker; after 10 s without a poll it has none', async () => {
      const polledAt = clock.now();
      assert.equal((await call(t.app, 'GET', '/api/tasks/poll/lv_img?workerid=w-img')).status, 204);
      const fresh = (await call(t.app, 'GET', '/api/tasks/queue/polldata?taskType=lv_img')).body;
      assert.deepEqual(fresh, [
        { queueName: 'lv_img', workerId: 'w-img', lastPollTime: polledAt, active: true },
      ]);
      const sizes = (await call(t.app, 'GET', '/api/tasks/queue/sizes')).body;
      assert.equal(sizes.lv_img.activeWorkers, 1);
      assert.equal(sizes.lv_img.lastPollTime, polledAt);
      assert.equal(sizes.lv_img.noActiveWorkerSince, undefined);

      clock.advance(10_000);
      const stale = (await call(t.app, 'GET', '/api/tasks/queue/polldata?taskType=lv_img')).body;
      assert.equal(stale[0].active, false);
      const later = (await call(t.app, 'GET', '/api/tasks/queue/sizes')).body.lv_img;
      assert.equal(later.activeWorkers, 0);
      assert.equal(later.lastPollTime, polledAt);
      assert.equal(later.noActiveWorkerSince, polledAt + 10_000);
      const admin = (await call(t.app, 'GET', '/api/admin/queues')).body.find(
        (q: any) => q.queueName === 'lv_img',
      );
      assert.equal(admin.activeWorkers, 0);
      assert.equal(admin.noActiveWorkerSince, polledAt + 10_000);
      // Never polled: no workers, no last poll.
      const two = (await call(t.app, 'GET', '/api/tasks/queue/sizes')).body.lv_two;
      assert.equal(two.activeWorkers, 0);
      assert.equal(two.lastPollTime, undefined);
    });

    it('queueing work for a type without an active worker logs a warning and counts a metric', async () => {
      clock.advance(32_000); // 42 s since the last poll of lv_img
      assert.equal(
        sample(await metrics(), 'baton_no_worker_warnings_total', 'task_type="lv_img"'),
        undefined,
      );
      const id = (await call(t.app, 'POST', '/api/workflow/wf_lv', { input: {} })).text;
      const warning = logLines.find((l) => l.taskType === 'lv_img');
      assert.ok(warning, 'a warning names the type');
      assert.equal(warning.level, 40);
      assert.equal(warning.secondsSinceLastPoll, 42);
      assert.match(String(warning.msg), /no worker has polled it for 42 s/);
      assert.equal(sample(await metrics(), 'baton_no_worker_warnings_total', 'task_type="lv_img"'), 1);
      const run = (await call(t.app, 'GET', `/api/workflow/${id}`)).body;
      assert.equal(run.waitingFor[0].reason, 'no-worker');
      assert.equal(run.waitingFor[0].message, 'waiting: no worker has polled lv_img for 42 s');

      // With a live worker, queueing warns no more.
      const task = (await call(t.app, 'GET', '/api/tasks/poll/lv_img?workerid=w-img')).body;
      await call(t.app, 'POST', '/api/tasks', {
        taskId: task.taskId,
        workflowInstanceId: id,
        status: 'COMPLETED',
      });
      await call(t.app, 'GET', '/api/tasks/poll/lv_img?workerid=w-img');
      const before = logLines.length;
      await call(t.app, 'POST', '/api/workflow/wf_lv', { input: {} });
      assert.equal(logLines.slice(before).filter((l) => l.taskType === 'lv_img').length, 0);
      assert.equal(sample(await metrics(), 'baton_no_worker_warnings_total', 'task_type="lv_img"'), 1);
      // lv_two was never polled: its enqueue (after img completed) warned.
      assert.ok(
        logLines.some((l) => l.taskType === 'lv_two' && /no worker has ever polled/.test(String(l.msg))),
      );
    });

    it('/metrics counts runs, hand-outs, ended tasks, queue depth, ALERT_ONLY timeouts', async () => {
      const before = await metrics();
      const started = sample(before, 'baton_runs_started_total', 'workflow_name="wf_lv"') ?? 0;
      const ended = sample(before, 'baton_runs_ended_total', 'workflow_name="wf_lv",status="COMPLETED"') ?? 0;
      const handed = sample(before, 'baton_tasks_handed_out_total', 'task_type="lv_two"') ?? 0;
      const done =
        sample(before, 'baton_tasks_completed_total', 'task_type="lv_two",status="COMPLETED"') ?? 0;

      const id = (await call(t.app, 'POST', '/api/workflow/wf_lv', { input: {} })).text;
      let text = await metrics();
      assert.equal(sample(text, 'baton_runs_started_total', 'workflow_name="wf_lv"'), started + 1);
      assert.ok((sample(text, 'baton_queue_messages', 'queue="lv_img",state="waiting"') ?? 0) >= 1);

      for (const ref of ['img', 'two']) {
        const type = ref === 'img' ? 'lv_img' : 'lv_two';
        for (;;) {
          const task = (await call(t.app, 'GET', `/api/tasks/poll/${type}?workerid=w`)).body;
          assert.ok(task, `a ${type} task`);
          await call(t.app, 'POST', '/api/tasks', {
            taskId: task.taskId,
            workflowInstanceId: task.workflowInstanceId,
            status: 'COMPLETED',
          });
          if (task.workflowInstanceId === id) break;
        }
      }
      // Drain what earlier tests left so the run above can end.
      for (;;) {
        const task = (await call(t.app, 'GET', '/api/tasks/poll/lv_two?workerid=w')).body;
        if (!task) break;
        await call(t.app, 'POST', '/api/tasks', {
          taskId: task.taskId,
          workflowInstanceId: task.workflowInstanceId,
          status: 'COMPLETED',
        });
      }
      assert.equal((await call(t.app, 'GET', `/api/workflow/${id}/status`)).body.status, 'COMPLETED');
      text = await metrics();
      assert.ok(
        (sample(text, 'baton_runs_ended_total', 'workflow_name="wf_lv",status="COMPLETED"') ?? 0) > ended,
      );
      assert.ok((sample(text, 'baton_tasks_handed_out_total', 'task_type="lv_two"') ?? 0) > handed);
      assert.ok(
        (sample(text, 'baton_tasks_completed_total', 'task_type="lv_two",status="COMPLETED"') ?? 0) > done,
      );
      assert.ok((sample(text, 'baton_task_schedule_to_start_seconds_count', 'task_type="lv_two"') ?? 0) >= 1);
      assert.equal(sample(text, 'baton_queue_messages', 'queue="lv_two",state="waiting"'), 0);

      t.server.metrics.alertOnlyTimeout('lv_img', 'POLL_TIMEOUT');
      text = await metrics();
      assert.equal(
        sample(text, 'baton_alert_only_timeouts_total', 'task_type="lv_img",timeout_kind="POLL_TIMEOUT"'),
        1,
      );
    });

    it('/metrics says how long the event loop was held since the previous scrape', async () => {
      await metrics(); // starts the measure over
      // The measure starts over from its next sample, 10 ms on (a hold before it is not seen).
      await new Promise((resolve) => setTimeout(resolve, 30));
      // Hold the event loop for 150 ms, then let its sampling timer run late once.
      const until = performance.now() + 150;
      while (performance.now() < until);
      await new Promise((resolve) => setTimeout(resolve, 30));
      const text = await metrics();
      const max = sample(text, 'baton_event_loop_delay_seconds', 'stat="max"') ?? 0;
      assert.ok(max >= 0.1, `held 150 ms, reported ${max} s`);
      // Most samples ran on time: the sampling period is not reported as a hold.
      const p50 = sample(text, 'baton_event_loop_delay_seconds', 'stat="p50"');
      assert.ok(p50 !== undefined && p50 <= max && p50 < 0.1, `p50 ${p50} s`);
      const p99 = sample(text, 'baton_event_loop_delay_seconds', 'stat="p99"');
      assert.ok(p99 !== undefined && p99 <= max);
      // The next scrape no longer counts that hold.
      await new Promise((resolve) => setTimeout(resolve, 30));
      const next = sample(await metrics(), 'baton_event_loop_delay_seconds', 'stat="max"') ?? 0;
      assert.ok(next < 0.1, `the hold was counted again: ${next} s`);
    });
  });
}
