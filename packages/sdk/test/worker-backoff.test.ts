import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { IdleBackoff } from '../src/backoff.js';
import { BatonClient } from '../src/client.js';
import { simpleTask, taskDef, workflow } from '../src/definitions.js';
import type { RunnerEvent } from '../src/task-runner.js';
import { WorkerPool } from '../src/worker-pool.js';
import { defineWorker } from '../src/worker.js';
import { startBaton, type BatonProcess } from './helpers/baton.js';
import { startRecordingProxy, type Exchange, type RecordingProxy } from './helpers/recording-proxy.js';
import { until, waitForEnd } from './helpers/runs.js';

describe('idle back-off: 1 ms doubling up to the poll interval', () => {
  it('answers 1, 2, 4, … capped at the interval, and starts again at 1 after work', () => {
    const backoff = new IdleBackoff(20);
    assert.deepEqual(
      Array.from({ length: 7 }, () => backoff.nextDelay()),
      [1, 2, 4, 8, 16, 20, 20],
    );
    backoff.reset();
    assert.equal(backoff.nextDelay(), 1);
  });
});

// On the wire: an idle worker's polls each wait the server's 5000 ms long poll, and between an
// empty answer and the next request the worker waits 1, 2, 4, 8, 8 ms (poll interval 8).
describe('worker loop when idle (real server, recorded wire)', () => {
  let baton: BatonProcess;
  let proxy: RecordingProxy;
  let client: BatonClient;

  before(async () => {
    baton = await startBaton();
    proxy = await startRecordingProxy(baton.url);
    client = new BatonClient({ baseUrl: baton.url });
    await client.registerTaskDefs([taskDef('quiet', { retryCount: 0 })]);
    await client.putWorkflowDefs([workflow('quiet-flow', [simpleTask('q', 'quiet')])]);
  });
  after(async () => {
    await proxy?.close();
    await baton?.stop();
  });

  it('waits between empty polls from 1 ms doubling to the interval, and from 1 ms again after work', async (t) => {
    const events: RunnerEvent[] = [];
    const pool = new WorkerPool({
      client: new BatonClient({ baseUrl: proxy.url }),
      workers: [defineWorker({ taskType: 'quiet', pollIntervalMs: 8, handler: () => ({ done: true }) })],
      onEvent: (e) => events.push(e),
    }).start();
    const polls = (): Exchange[] => proxy.exchanges.filter((e) => e.path === '/api/tasks/poll/batch/quiet');
    try {
      await until(() => polls().length >= 6, 'six idle polls', 90_000);
      const runId = await client.startWorkflow('quiet-flow');
      assert.equal((await waitForEnd(client, runId)).status, 'COMPLETED');
      const afterWork = polls().length;
      await until(() => polls().length >= afterWork + 2, 'two polls after the work', 30_000);
      await pool.stop({ graceMs: 1000 });

      const all = polls();
      const withWork = all.findIndex((p) => p.responseBody !== '[]');
      assert.ok(withWork >= 5, 'the first polls were empty');
      for (const p of all) {
        assert.equal(p.query.get('count'), '1');
        assert.equal(p.query.get('timeout'), '5000');
      }
      // Each empty poll was a full long poll: the server held it about 5 s.
      for (const p of all.slice(0, 5))
        assert.ok(p.endedAt! - p.startedAt >= 4900, `long poll held ${p.endedAt! - p.startedAt} ms`);

      // An 8 ms interval: the doubling reaches it after three steps and stays there; each empty poll
      // is a 5 s long poll, so a longer ladder only costs time.
      const expected = [1, 2, 4, 8, 8];
      const gaps = expected.map((_, i) => all[i + 1]!.startedAt - all[i]!.endedAt!);
      t.diagnostic(`gaps on the wire between empty polls (ms): ${gaps.map((g) => g.toFixed(2)).join(', ')}`);
      // The wire shows each wait was taken (a busy machine only makes a gap longer, so only the
      // lower bound is checked there); the runner's events show each wait's length exactly.
      for (const [i, gap] of gaps.entries()) {
        assert.ok(
          gap >= expected[i]! - 0.5,
          `gap ${i} was ${gap.toFixed(2)} ms, expected ≥ ${expected[i]} ms`,
        );
      }
      // The work reset the back-off: the poll after the task came at once, the next empty one 1 ms later.
      const idle = events
        .filter((e): e is Extract<RunnerEvent, { type: 'idle' }> => e.type === 'idle')
        .map((e) => e.delayMs);
      assert.deepEqual(idle.slice(0, 5), expected);
      assert.equal(idle[withWork], 1, 'back to 1 ms after work arrived');
      const gapAfterWork = all[withWork + 2]!.startedAt - all[withWork + 1]!.endedAt!;
      assert.ok(gapAfterWork >= 0.5, `gap after work ${gapAfterWork.toFixed(2)} ms`);
      // No idle wait after the poll that brought work: the runner polled again without one (the
      // events, in order: that poll, its task done, the next poll; no idle between them).
      const order = events.filter((e) => e.type === 'poll' || e.type === 'idle' || e.type === 'task-done');
      const pollEvents = order.flatMap((e, i) => (e.type === 'poll' ? [i] : []));
      const between = order.slice(pollEvents[withWork]! + 1, pollEvents[withWork + 1]);
      assert.deepEqual(
        between.map((e) => e.type),
        ['task-done'],
        'no idle wait after a poll that brought work',
      );
    } finally {
      await pool.stop({ graceMs: 1000 });
    }
  });
});
