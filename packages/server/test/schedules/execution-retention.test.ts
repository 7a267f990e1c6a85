import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import pino from 'pino';

import { ManualClock } from '../../src/clock.js';
import { compileOptions } from '../../src/config/options.js';
import { ScheduleExecutionRetention } from '../../src/schedules/execution-retention.js';
import type { ScheduleExecutionRow } from '../../src/store/store.js';
import { storeSuite } from '../helpers/store-suite.js';
import { storeCases } from '../helpers/stores.js';
import { T0, uid } from '../store/fixtures.js';

/**
 * The schedule history's retention (`BATON_SCHEDULE_RETENTION_DAYS`): a pass deletes every
 * execution older than the retention in batches, keeping each schedule's latest slot.
 */

const DAY = 24 * 3600 * 1000;

void describe('BATON_SCHEDULE_RETENTION_DAYS', () => {
  void it('defaults to 30 days and takes 1 to 3650', () => {
    assert.equal(compileOptions({}).scheduleExecutionRetentionDays, 30);
    assert.equal(compileOptions({ BATON_SCHEDULE_RETENTION_DAYS: '7' }).scheduleExecutionRetentionDays, 7);
    assert.throws(
      () => compileOptions({ BATON_SCHEDULE_RETENTION_DAYS: '0' }),
      /BATON_SCHEDULE_RETENTION_DAYS must be an integer from 1/,
    );
  });
});

for (const c of storeCases()) {
  void describe(`schedule history retention (${c.name})`, () => {
    const { store } = storeSuite(c);

    void it('deletes what is past the retention, batch after batch, and keeps the latest slot', async () => {
      const name = uid('every-hour-');
      // Twelve hourly slots: the first ten are over a day old once the clock stands at T0 + 34 h.
      const rows: ScheduleExecutionRow[] = Array.from({ length: 12 }, (_, i) => ({
        executionId: uid('x-'),
        scheduleName: name,
        scheduledTime: T0 + i * 3_600_000,
        executionTime: T0 + i * 3_600_000 + 5,
        state: 'EXECUTED',
        record: { workflowId: `w-${i}` },
      }));
      await store.transaction(async (tx) => {
        for (const row of rows) await tx.events.claimScheduleSlot(row);
      });
      const clock = new ManualClock(T0 + 34 * 3_600_000);
      const batches: number[] = [];
      const retention = new ScheduleExecutionRetention(store, clock, pino({ level: 'silent' }), {
        retentionMs: DAY,
        batch: 3,
        onDeleted: (n) => batches.push(n),
      });
      assert.equal(await retention.runOnce(), 10);
      assert.deepEqual(batches, [3, 3, 3, 1], 'in batches of at most three, each counted');
      const left = await store.read((tx) => tx.events.listScheduleExecutions(name, 0, 20));
      assert.deepEqual(
        left.results.map((r) => r.scheduledTime),
        [T0 + 11 * 3_600_000, T0 + 10 * 3_600_000],
      );
      assert.equal(await retention.runOnce(), 0, 'nothing more');

      // Days later the schedule's last slot stays, whatever its age.
      clock.advance(30 * DAY);
      assert.equal(await retention.runOnce(), 1);
      assert.equal(await store.read((tx) => tx.events.lastScheduledTime(name)), T0 + 11 * 3_600_000);
    });
  });
}
