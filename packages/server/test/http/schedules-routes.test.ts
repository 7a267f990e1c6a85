import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { orkesConductorClient, SchedulerClient } from '@io-orkes/conductor-javascript';

import { ManualClock } from '../../src/clock.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { call, testApp } from '../helpers/app.js';
import { storeCases } from '../helpers/stores.js';

/** Schedules through the real routes, on a manual clock: timers are fired by the test. */
for (const c of storeCases()) {
  void describe(`schedules through HTTP (${c.name})`, () => {
    // A minute boundary, so slots fall on whole minutes.
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
    const t = appSuite(c, { clock });
    const fire = async (ms: number): Promise<void> => {
      clock.advance(ms);
      await t.server.timers.fireDue(clock.now());
    };
    const slots = async (name: string) =>
      (
        (await call(t.app, 'GET', `/api/schedule/${name}/executions?size=100`)).body as {
          results: Array<{
            scheduledTime: number;
            state: string;
            workflowId?: string;
            reason?: string;
            executionId: string;
          }>;
        }
      ).results.sort((a, b) => a.scheduledTime - b.scheduledTime);

    void it('refuses bad expressions, zones and requests with a message naming the field', async () => {
      const base = { name: 'bad', cronExpression: '0 * * * * *', startWorkflowRequest: { name: 'w' } };
      const cron = await call(t.app, 'POST', '/api/schedule', { ...base, cronExpression: '61 * * * * *' });
      assert.equal(cron.status, 400);
      assert.equal(cron.body.validationErrors[0].path, 'body.cronExpression');
      const zone = await call(t.app, 'POST', '/api/schedule', { ...base, zoneId: 'Mars/Olympus' });
      assert.equal(zone.status, 400);
      assert.equal(zone.body.validationErrors[0].path, 'body.zoneId');
      assert.equal(
        (await call(t.app, 'POST', '/api/schedule', { ...base, startWorkflowRequest: {} })).status,
        400,
      );
      assert.equal((await call(t.app, 'POST', '/api/schedule', { ...base, name: 'a b' })).status, 400);
      const missing = await call(t.app, 'PUT', '/api/schedule', base);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.message, "Schedule 'bad' not found");
      assert.equal((await call(t.app, 'GET', '/api/scheduler/schedules/nope')).status, 404);
      assert.equal((await call(t.app, 'DELETE', '/api/schedule/nope')).status, 404);
      const few = await call(t.app, 'GET', '/api/scheduler/nextFewSchedules?cronExpression=nope');
      assert.equal(few.status, 400);
    });

    void it('fires each slot once with the scheduler fields in the run input; a slot missed is skipped or caught up', async () => {
      await register(t.app, [
        { name: 'sched_wf', tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }] },
      ]);
      const schedule = {
        name: 'minutely',
        cronExpression: '0 * * * * *',
        startWorkflowRequest: { name: 'sched_wf', input: { k: 1 }, correlationId: 'sched' },
        description: 'every minute',
      };
      const saved = await call(t.app, 'POST', '/api/schedule', schedule);
      assert.equal(saved.status, 200, saved.text);
      assert.equal(saved.body.zoneId, 'UTC');
      assert.equal(saved.body.nextRunTime, clock.now() + 60_000);
      await fire(60_000);
      await fire(60_000);
      let list = await slots('minutely');
      assert.deepEqual(
        list.map((s) => [s.scheduledTime - clock.now(), s.state]),
        [
          [-60_000, 'EXECUTED'],
          [0, 'EXECUTED'],
        ],
      );
      const run = await call(t.app, 'GET', `/api/workflow/${list[1]?.workflowId}`);
      assert.equal(run.body.input.k, 1);
      assert.equal(run.body.input._startedByScheduler, 'minutely');
      assert.equal(run.body.input._scheduledTime, list[1]?.scheduledTime);
      assert.equal(run.body.input._executedTime, clock.now());
      assert.equal(run.body.input._executionId, list[1]?.executionId);
      assert.equal(run.body.correlationId, 'sched');
      // Firing again at the same time starts nothing new.
      await t.server.timers.fireDue(clock.now());
      assert.equal((await slots('minutely')).length, 2);

      // No node ran for 5 minutes: without catch-up, the missed slots are recorded skipped.
      await fire(5 * 60_000);
      list = await slots('minutely');
      assert.deepEqual(
        list.slice(2).map((s) => s.state),
        ['SKIPPED', 'SKIPPED', 'SKIPPED', 'SKIPPED', 'EXECUTED'],
      );
      assert.match(String(list[2]?.reason), /runCatchupScheduleInstances/);
      // With catch-up, they are started (the definition change itself owes nothing before it).
      await call(t.app, 'POST', '/api/schedule', { ...schedule, runCatchupScheduleInstances: true });
      await fire(3 * 60_000);
      list = await slots('minutely');
      assert.deepEqual(
        list.slice(7).map((s) => s.state),
        ['EXECUTED', 'EXECUTED', 'EXECUTED'],
      );
      assert.equal(new Set(list.map((s) => s.scheduledTime)).size, list.length, 'no slot twice');
      const runs = await call(t.app, 'GET', '/api/workflow/search?name=sched_wf&size=1');
      assert.equal(runs.body.totalHits, list.filter((s) => s.state === 'EXECUTED').length);
    });

    void it('an update that keeps the expression still starts the slot that was due; a new expression owes nothing before it', async () => {
      await register(t.app, [
        { name: 'sched_upd', tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }] },
      ]);
      const schedule = {
        name: 'updated',
        cronExpression: '0 * * * * *',
        startWorkflowRequest: { name: 'sched_upd', input: { v: 1 } },
      };
      const first = await call(t.app, 'POST', '/api/schedule', schedule);
      assert.equal(first.status, 200);
      // The slot falls due, and the schedule is saved again before its timer fires.
      const due = first.body.nextRunTime as number;
      clock.advance(due - clock.now() + 1000);
      const kept = { ...schedule, startWorkflowRequest: { name: 'sched_upd', input: { v: 2 } } };
      assert.equal((await call(t.app, 'POST', '/api/schedule', kept)).status, 200);
      await t.server.timers.fireDue(clock.now());
      let list = await slots('updated');
      assert.deepEqual(
        list.map((s) => [s.scheduledTime, s.state]),
        [[due, 'EXECUTED']],
      );
      const run = await call(t.app, 'GET', `/api/workflow/${list[0]?.workflowId}`);
      assert.equal(run.body.input.v, 2, 'the slot runs with the saved input');
      // Saving again at once changes nothing already handled.
      assert.equal((await call(t.app, 'POST', '/api/schedule', kept)).status, 200);
      await t.server.timers.fireDue(clock.now());
      assert.equal((await slots('updated')).length, 1);

      // A changed expression starts from its save: the old expression's due slot is not owed.
      clock.advance(60_000);
      const changed = await call(t.app, 'POST', '/api/schedule', { ...kept, cronExpression: '30 * * * * *' });
      assert.equal(changed.status, 200);
      await t.server.timers.fireDue(clock.now());
      assert.equal((await slots('updated')).length, 1);
      const next = changed.body.nextRunTime as number;
      assert.equal(new Date(next).getUTCSeconds(), 30);
      clock.advance(next - clock.now() + 1000);
      await t.server.timers.fireDue(clock.now());
      list = await slots('updated');
      assert.deepEqual(
        list.map((s) => [s.scheduledTime, s.state]),
        [
          [due, 'EXECUTED'],
          [next, 'EXECUTED'],
        ],
      );
      assert.equal((await call(t.app, 'DELETE', '/api/schedule/updated')).status, 200);
      // Back on a minute boundary, where the other tests expect the clock.
      clock.advance(60_000 - (clock.now() % 60_000));
    });

    void it('records a slot FAILED with the reason when its workflow is not registered', async () => {
      const saved = await call(t.app, 'POST', '/api/schedule', {
        name: 'orphan',
        cronExpression: '0 * * * * *',
        startWorkflowRequest: { name: 'never_registered' },
      });
      assert.equal(saved.status, 200, saved.text);
      await fire(60_000);
      const list = await slots('orphan');
      assert.equal(list.length, 1);
      assert.equal(list[0]?.state, 'FAILED');
      assert.match(String(list[0]?.reason), /never_registered/);
      assert.equal((await call(t.app, 'DELETE', '/api/schedule/orphan')).status, 200);
    });

    void it('pauses (GET as Orkes, PUT as Conductor) and resumes without owing the paused slots', async () => {
      await register(t.app, [
        { name: 'sched_pause', tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }] },
      ]);
      await call(t.app, 'POST', '/api/scheduler/schedules', {
        name: 'pausable',
        cronExpression: '0 * * * * *',
        startWorkflowRequest: { name: 'sched_pause' },
        runCatchupScheduleInstances: true,
      });
      assert.equal(
        (await call(t.app, 'GET', '/api/scheduler/schedules/pausable/pause?reason=maintenance')).status,
        200,
      );
      const paused = await call(t.app, 'GET', '/api/schedule/pausable');
      assert.equal(paused.body.paused, true);
      assert.equal(paused.body.pausedReason, 'maintenance');
      await fire(3 * 60_000);
      assert.equal((await slots('pausable')).length, 0);
      assert.equal((await call(t.app, 'PUT', '/api/schedule/pausable/resume')).status, 200);
      await fire(60_000);
      const list = await slots('pausable');
      assert.deepEqual(
        list.map((s) => s.state),
        ['EXECUTED'],
      );
      assert.equal((await call(t.app, 'PUT', '/api/scheduler/schedules/pausable/pause')).status, 200);
      const bulk = await call(t.app, 'PUT', '/api/scheduler/bulk/resume', ['pausable', 'ghost']);
      assert.deepEqual(bulk.body.bulkSuccessfulResults, ['pausable']);
      assert.match(String(bulk.body.bulkErrorResults.ghost), /not found/);
      const listed = await call(t.app, 'GET', '/api/scheduler/schedules?workflowName=sched_pause');
      assert.deepEqual(
        (listed.body as Array<{ name: string }>).map((s) => s.name),
        ['pausable'],
      );
      const found = await call(
        t.app,
        'GET',
        '/api/scheduler/schedules/search?workflowName=sched_pause&paused=false',
      );
      assert.deepEqual(
        found.body.results.map((s: { name: string }) => s.name),
        ['pausable'],
      );
      assert.equal(
        (await call(t.app, 'GET', '/api/scheduler/schedules/search?paused=true&freeText=pausable')).body
          .totalHits,
        0,
      );
      assert.equal((await call(t.app, 'DELETE', '/api/scheduler/schedules/pausable')).status, 200);
      await fire(5 * 60_000);
      assert.equal((await slots('pausable')).length, 1, 'a deleted schedule fires no more');
    });

    void it("takes Spring's forms (0/5, ?, L-3, 5L, LW, #) and fires a 0/5 schedule every five seconds", async () => {
      await register(t.app, [
        { name: 'spring_wf', tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }] },
      ]);
      const saved = await call(t.app, 'POST', '/api/scheduler/schedules', {
        name: 'every_five',
        cronExpression: '0/5 * * ? * *',
        startWorkflowRequest: { name: 'spring_wf' },
      });
      assert.equal(saved.status, 200, saved.text);
      const from = Math.ceil(clock.now() / 5_000) * 5_000;
      assert.equal(saved.body.nextRunTime, from === clock.now() ? from + 5_000 : from);
      await fire(saved.body.nextRunTime - clock.now());
      await fire(5_000);
      const fired = await slots('every_five');
      assert.deepEqual(
        fired.map((s) => [s.scheduledTime, s.state]),
        [
          [saved.body.nextRunTime, 'EXECUTED'],
          [saved.body.nextRunTime + 5_000, 'EXECUTED'],
        ],
      );
      assert.equal((await call(t.app, 'DELETE', '/api/scheduler/schedules/every_five')).status, 200);

      const start = Date.UTC(2026, 0, 1);
      const few = async (cron: string): Promise<string[]> => {
        const res = await call(
          t.app,
          'GET',
          `/api/scheduler/nextFewSchedules?cronExpression=${encodeURIComponent(cron)}&scheduleStartTime=${start}&limit=2`,
        );
        assert.equal(res.status, 200, `${cron}: ${res.text}`);
        return (res.body as number[]).map((ms) => new Date(ms).toISOString().slice(0, 10));
      };
      assert.deepEqual(await few('0 0 0 L-3 * *'), ['2026-01-28', '2026-02-25']);
      assert.deepEqual(await few('0 0 0 * * 5L'), ['2026-01-30', '2026-02-27']);
      assert.deepEqual(await few('0 0 0 LW * *'), ['2026-01-30', '2026-02-27']);
      assert.deepEqual(await few('0 0 0 ? * MON#1'), ['2026-01-05', '2026-02-02']);
    });

    void it('answers the next slots in a zone across DST, in Spring 6-field, 5-field and macro forms', async () => {
      const next = async (q: string): Promise<number[]> =>
        (await call(t.app, 'GET', `/api/scheduler/nextFewSchedules?${q}`)).body as number[];
      // Europe/Berlin springs forward on 2026-03-29 (02:00 → 03:00) and falls back on 2026-10-25.
      const spring = await next(
        `cronExpression=${encodeURIComponent('0 0 9 * * ?')}&zoneId=Europe/Berlin&scheduleStartTime=${Date.UTC(2026, 2, 28)}&limit=2`,
      );
      assert.deepEqual(
        spring.map((ms) => new Date(ms).toISOString()),
        ['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z'],
      );
      const fall = await next(
        `cronExpression=${encodeURIComponent('0 0 9 * * *')}&zoneId=Europe/Berlin&scheduleStartTime=${Date.UTC(2026, 9, 24)}&limit=2`,
      );
      assert.deepEqual(
        fall.map((ms) => new Date(ms).toISOString()),
        ['2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z'],
      );
      // 02:30 does not exist on the spring day (fires at 03:00 local, the first instant after the
      // gap) and exists twice on the autumn day (fires once, at the first).
      const gap = await next(
        `cronExpression=${encodeURIComponent('0 30 2 * * *')}&zoneId=Europe/Berlin&scheduleStartTime=${Date.UTC(2026, 2, 28, 12)}&limit=2`,
      );
      assert.deepEqual(
        gap.map((ms) => new Date(ms).toISOString()),
        ['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z'],
      );
      const overlap = await next(
        `cronExpression=${encodeURIComponent('0 30 2 * * *')}&zoneId=Europe/Berlin&scheduleStartTime=${Date.UTC(2026, 9, 24, 12)}&limit=2`,
      );
      assert.deepEqual(
        overlap.map((ms) => new Date(ms).toISOString()),
        ['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z'],
      );
      const five = await next(`cronExpression=${encodeURIComponent('*/15 * * * *')}&limit=2`);
      assert.deepEqual(
        five.map((ms) => ms % (15 * 60_000)),
        [0, 0],
      );
      assert.equal(five[1]! - five[0]!, 15 * 60_000);
      const daily = await next(`cronExpression=${encodeURIComponent('@daily')}&zoneId=UTC&limit=1`);
      assert.equal(new Date(daily[0]!).toISOString().slice(11), '00:00:00.000Z');
    });
  });
}

void describe("Conductor's SDK scheduler client against Baton", () => {
  void it('saves, reads, lists, pauses, resumes, previews and deletes a schedule', async () => {
    const [first] = storeCases();
    assert.ok(first);
    const opened = await first.open();
    const app = await testApp(opened.store, { env: { BATON_PORT: '0' } });
    try {
      const address = await app.server.listen();
      await register(app.app, [
        { name: 'sdk_sched', tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }] },
      ]);
      const client = await orkesConductorClient({ serverUrl: address });
      const scheduler = new SchedulerClient(client);
      await scheduler.saveSchedule({
        name: 'sdk_nightly',
        cronExpression: '0 0 2 * * ?',
        zoneId: 'Europe/Berlin',
        startWorkflowRequest: { name: 'sdk_sched', input: { via: 'sdk' } },
      });
      const got = await scheduler.getSchedule('sdk_nightly');
      assert.equal(got.cronExpression, '0 0 2 * * ?');
      assert.equal(got.zoneId, 'Europe/Berlin');
      assert.ok((await scheduler.getAllSchedules('sdk_sched')).some((s) => s.name === 'sdk_nightly'));
      await scheduler.pauseSchedule('sdk_nightly', 'quiet');
      assert.equal((await scheduler.getSchedule('sdk_nightly')).paused, true);
      await scheduler.resumeSchedule('sdk_nightly');
      assert.equal((await scheduler.getSchedule('sdk_nightly')).paused, false);
      const upcoming = await scheduler.getNextFewSchedules('0 0 2 * * ?', undefined, undefined, 3);
      assert.equal(upcoming.length, 3);
      const search = await scheduler.search(0, 10);
      assert.equal(typeof search.totalHits, 'number');
      await scheduler.deleteSchedule('sdk_nightly');
      await assert.rejects(scheduler.getSchedule('sdk_nightly'));
    } finally {
      await app.close();
      await opened.cleanup();
    }
  });
});
