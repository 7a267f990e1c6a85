import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { whileDatabaseAway } from '../../src/store/database-wait.js';

/** A clock that only moves when the code under test sleeps. */
function fakeTime(): { now: () => number; sleep: (ms: number) => Promise<void>; slept: number[] } {
  let t = 0;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: (ms) => {
      slept.push(ms);
      t += ms;
      return Promise.resolve();
    },
    slept,
  };
}

const refused = (): Error =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

void describe('whileDatabaseAway: start-up steps wait for an absent database, within a bound', () => {
  void it('tries again after database faults, with growing pauses, until the step succeeds', async () => {
    const time = fakeTime();
    const reasons: string[] = [];
    let calls = 0;
    const result = await whileDatabaseAway(
      () => (++calls < 5 ? Promise.reject(refused()) : Promise.resolve('migrated')),
      { waitMs: 60_000, ...time, onRetry: (reason) => reasons.push(reason) },
    );
    assert.equal(result, 'migrated');
    assert.equal(calls, 5);
    assert.deepEqual(time.slept, [250, 500, 1_000, 2_000]);
    assert.equal(reasons.length, 4);
    assert.match(reasons[0]!, /ECONNREFUSED/);
  });

  void it('gives up with the last fault once the bound has passed', async () => {
    const time = fakeTime();
    let calls = 0;
    await assert.rejects(
      whileDatabaseAway(() => (calls++, Promise.reject(refused())), { waitMs: 3_000, ...time }),
      /ECONNREFUSED/,
    );
    assert.equal(
      time.slept.reduce((a, b) => a + b, 0),
      3_000,
    );
    assert.ok(calls > 1);
  });

  void it('0 fails at the first fault; an error that is no database fault fails at once', async () => {
    const time = fakeTime();
    await assert.rejects(
      whileDatabaseAway(() => Promise.reject(refused()), { waitMs: 0, ...time }),
      /ECONNREFUSED/,
    );
    await assert.rejects(
      whileDatabaseAway(() => Promise.reject(new Error('schema 14 is newer than this node')), {
        waitMs: 60_000,
        ...time,
      }),
      /newer/,
    );
    assert.deepEqual(time.slept, []);
  });
});
