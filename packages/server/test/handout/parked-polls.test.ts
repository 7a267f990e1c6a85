import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { TaskRecord } from '@baton/protocol';

import { ParkedPolls } from '../../src/handout/parked-polls.js';

const task = (taskId: string): TaskRecord => ({ taskId }) as unknown as TaskRecord;

/** Whether `promise` has settled by the time the queued callbacks have run. */
async function settledNow(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

void describe('parked polls', () => {
  void it('offers a queue’s work to the poll waiting longest, within the room it asked for', () => {
    const polls = new ParkedPolls();
    const other = polls.park(['x-high', 'x'], 5, 'wx');
    const first = polls.park(['q-high', 'q'], 1, 'w1');
    const second = polls.park(['q-high', 'q'], 2, 'w2');
    const attempt = polls.attempt();
    assert.equal(attempt.offer('q'), first);
    assert.equal(attempt.offer('q-high'), second);
    assert.equal(attempt.offer('q'), second);
    assert.equal(attempt.offer('q'), undefined, 'every poll of q is full');
    assert.equal(attempt.offer('nobody'), undefined);
    assert.notEqual(attempt.offer('x'), undefined);
    assert.equal(other.tasks.length, 0);
    assert.equal(polls.size, 3);
  });

  void it('delivers on commit: the poll stops waiting, takes no more, and settles once all are in', async () => {
    const polls = new ParkedPolls();
    const poll = polls.park(['q'], 3, 'w');
    const a = polls.attempt();
    const b = polls.attempt();
    const pa = a.offer('q');
    const pb = b.offer('q');
    assert.ok(pa && pb);
    a.handTo(pa, task('t1'));
    b.handTo(pb, task('t2'));
    const settled = poll.settled();
    a.deliver();
    assert.equal(poll.arrived.aborted, true, 'its wait ends at the first delivery');
    assert.equal(polls.attempt().offer('q'), undefined, 'a poll that has work takes no more offers');
    assert.equal(await settledNow(settled), false, 'b has not settled yet');
    b.deliver();
    assert.equal(await settledNow(settled), true);
    assert.deepEqual(
      poll.tasks.map((t) => t.taskId),
      ['t1', 't2'],
    );
  });

  void it('gives the room back when the attempt does not commit, and settles each attempt once', async () => {
    const polls = new ParkedPolls();
    const poll = polls.park(['q'], 1, 'w');
    const failed = polls.attempt();
    const reserved = failed.offer('q');
    assert.ok(reserved);
    failed.handTo(reserved, task('t1'));
    assert.equal(polls.attempt().offer('q'), undefined, 'full while reserved');
    failed.release();
    failed.deliver();
    failed.release();
    assert.equal(failed.offer('q'), undefined, 'a settled attempt reserves nothing more');
    assert.equal(await settledNow(poll.settled()), true);
    assert.equal(poll.arrived.aborted, false);
    assert.equal(poll.tasks.length, 0);
    // The room is back for the next attempt.
    const next = polls.attempt();
    const again = next.offer('q');
    assert.equal(again, poll);
    next.handTo(poll, task('t2'));
    next.deliver();
    assert.deepEqual(
      poll.tasks.map((t) => t.taskId),
      ['t2'],
    );
  });

  void it('releases a reservation that was never handed a task, and refuses a task it did not reserve', () => {
    const polls = new ParkedPolls();
    const poll = polls.park(['q'], 1, 'w');
    const attempt = polls.attempt();
    assert.equal(attempt.offer('q'), poll);
    assert.throws(() => polls.attempt().handTo(poll, task('t0')), /did not reserve/);
    attempt.deliver();
    assert.equal(poll.tasks.length, 0);
    assert.equal(poll.arrived.aborted, false);
  });

  void it('takes an unparked poll out of the offers, while its reservations still settle', async () => {
    const polls = new ParkedPolls();
    const poll = polls.park(['q'], 2, 'w');
    const attempt = polls.attempt();
    const reserved = attempt.offer('q');
    assert.ok(reserved);
    attempt.handTo(reserved, task('t1'));
    polls.unpark(poll);
    assert.equal(polls.size, 0);
    assert.equal(polls.attempt().offer('q'), undefined);
    const settled = poll.settled();
    assert.equal(await settledNow(settled), false);
    attempt.deliver();
    assert.equal(await settledNow(settled), true);
    assert.deepEqual(
      poll.tasks.map((t) => t.taskId),
      ['t1'],
    );
  });
});
