import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ManualClock } from '../../src/clock.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { call } from '../helpers/app.js';
import { storeCases } from '../helpers/stores.js';

/**
 * Conductor's scheduler admin routes on a manual clock: pausing stops this node firing schedules
 * (their timers go back, so nothing is lost), resuming fires what is due, and a slot missed
 * while paused is handled as any misfire (skipped unless the schedule catches up).
 */
for (const c of storeCases()) {
  void describe(`scheduler admin through HTTP (${c.name})`, () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
    const t = appSuite(c, { clock });
    const fire = async (ms: number): Promise<void> => {
      clock.advance(ms);
      await t.server.timers.fireDue(clock.now());
    };
    const states = async (name: string): Promise<string[]> =>
      (
        (await call(t.app, 'GET', `/api/schedule/${name}/executions?size=100`)).body as {
          results: Array<{ scheduledTime: number; state: string }>;
        }
      ).results
        .sort((a, b) => a.scheduledTime - b.scheduledTime)
        .map((r) => r.state);
    const admin = async (action: 'pause' | 'resume' | 'requeue') => {
      const res = await call(t.app, 'GET', `/api/scheduler/admin/${action}`);
      assert.equal(res.status, 200, res.text);
      return res.body as Record<string, unknown>;
    };

    void it('a paused node fires nothing until resumed, and loses no slot', async () => {
      await register(t.app, [
        { name: 'admin_wf', tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }] },
      ]);
      const saved = await call(t.app, 'POST', '/api/scheduler/schedules', {
        name: 'admin_every_minute',
        cronExpression: '0 * * * * *',
        startWorkflowRequest: { name: 'admin_wf' },
      });
      assert.equal(saved.status, 200, saved.text);

      assert.deepEqual(await admin('pause'), { status: 'done' });
      await fire(60_000);
      await fire(1000);
      assert.deepEqual(await states('admin_every_minute'), [], 'nothing fired while paused');
      const schedule = (await call(t.app, 'GET', '/api/scheduler/schedules/admin_every_minute')).body;
      assert.equal(schedule.paused, false, "the schedule's own flag is untouched");

      assert.deepEqual(await admin('resume'), { status: 'done' });
      await fire(1000);
      assert.deepEqual(await states('admin_every_minute'), ['EXECUTED'], 'the due slot fired on resume');

      // Paused across a whole slot and past the misfire grace: that slot is a misfire.
      await admin('pause');
      await fire(60_000);
      await fire(10_000);
      await admin('resume');
      await fire(1000);
      assert.deepEqual(await states('admin_every_minute'), ['EXECUTED', 'SKIPPED']);
      // The next slot, on time, fires as usual.
      await fire(60_000 - (clock.now() % 60_000));
      assert.deepEqual(await states('admin_every_minute'), ['EXECUTED', 'SKIPPED', 'EXECUTED']);

      assert.deepEqual(await admin('requeue'), { 'recordIds.size': 0, sampleIds: [] });
    });
  });
}
