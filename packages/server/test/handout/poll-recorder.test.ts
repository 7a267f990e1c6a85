import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { PollRecorder } from '../../src/handout/poll-recorder.js';
import type { PollRecord, Store } from '../../src/store/store.js';

/** A store that only records what each flush transaction wrote (and can be told to fail once). */
function fakeStore(): { store: Store; flushes: PollRecord[][]; failNext(): void } {
  const flushes: PollRecord[][] = [];
  let fail = false;
  const store = {
    transaction: async (
      fn: (tx: { recordPolls(p: readonly PollRecord[]): Promise<void> }) => Promise<void>,
    ) => {
      const written: PollRecord[] = [];
      await fn({
        recordPolls: (polls) => {
          written.push(...polls);
          return Promise.resolve();
        },
      });
      if (fail) {
        fail = false;
        throw new Error('database down');
      }
      flushes.push(written);
    },
  } as unknown as Store;
  return { store, flushes, failNext: () => (fail = true) };
}

const poll = (queueName: string, workerId: string, now: number): PollRecord => ({
  queueName,
  taskType: queueName,
  workerId,
  now,
});

void describe('poll recorder', () => {
  void it('keeps the latest poll per queue and worker and writes them in one transaction', async () => {
    const { store, flushes } = fakeStore();
    const recorder = new PollRecorder(store, 60_000);
    recorder.record(poll('b', 'w1', 1));
    recorder.record(poll('a', 'w2', 2));
    recorder.record(poll('a', 'w1', 3));
    recorder.record(poll('b', 'w1', 5));
    recorder.record(poll('b', 'w1', 4)); // older than what is kept: ignored
    await recorder.flush();
    assert.deepEqual(flushes[0]?.map((p) => [p.queueName, p.workerId, p.now]).sort(), [
      ['a', 'w1', 3],
      ['a', 'w2', 2],
      ['b', 'w1', 5],
    ]);
    await recorder.flush();
    assert.equal(flushes.length, 1, 'nothing new: no transaction');
    await recorder.close();
  });

  void it('lays unwritten polls over stored ones, newest wins, filtered by type', async () => {
    const { store } = fakeStore();
    const recorder = new PollRecorder(store, 60_000);
    recorder.record(poll('a', 'w1', 10));
    recorder.record(poll('c', 'w1', 10));
    const merged = recorder.merge(
      [
        { queueName: 'a', workerId: 'w1', lastPollTime: 5 },
        { queueName: 'a', workerId: 'w2', lastPollTime: 20 },
      ],
      'a',
    );
    assert.deepEqual(merged, [
      { queueName: 'a', workerId: 'w1', lastPollTime: 10 },
      { queueName: 'a', workerId: 'w2', lastPollTime: 20 },
    ]);
    await recorder.close();
  });

  void it('keeps polls whose write failed for the next flush, and writes what is left on close', async () => {
    const { store, flushes, failNext } = fakeStore();
    const recorder = new PollRecorder(store, 60_000);
    recorder.record(poll('a', 'w1', 1));
    failNext();
    await assert.rejects(recorder.flush(), /database down/);
    assert.equal(recorder.merge([], 'a').length, 1, 'still shown while unwritten');
    await recorder.close();
    assert.deepEqual(
      flushes.map((f) => f.map((p) => p.now)),
      [[1]],
    );
  });
});
