import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { PeriodicPass } from '../../src/store/periodic-pass.js';
import { waitFor } from '../helpers/baton-process.js';

/** The housekeeping loops' timer (store/periodic-pass.ts): passes one at a time, again at once when asked, failures logged, stop waits. */

function recorder(): {
  warn: (f: object, m: string) => void;
  info: (f: object, m: string) => void;
  lines: string[];
} {
  const lines: string[] = [];
  return { lines, warn: (_f, m) => lines.push(`warn ${m}`), info: (_f, m) => lines.push(`info ${m}`) };
}

void describe('a periodic pass', () => {
  void it('runs again at once when a pass asks, otherwise after its interval; a failure is logged and the next pass runs', async () => {
    const log = recorder();
    const answers: Array<'again' | 'fail' | undefined> = ['again', 'again', 'fail', undefined];
    let calls = 0;
    // An hour between passes: only a pass that asks for another (or a failure's next interval) runs.
    const loop = new PeriodicPass(
      'test loop',
      log,
      60 * 60_000,
      () => {
        const answer = answers[calls++];
        return answer === 'fail' ? Promise.reject(new Error('boom')) : Promise.resolve(answer);
      },
      0,
    );
    loop.start();
    await waitFor(() => (calls >= 3 ? true : undefined), {
      timeoutMs: 5_000,
      intervalMs: 5,
      what: 'three passes',
    });
    await waitFor(() => (log.lines.length > 0 ? true : undefined), {
      timeoutMs: 5_000,
      intervalMs: 5,
      what: 'the failure logged',
    });
    assert.deepEqual(log.lines, ['warn test loop round failed; trying again']);
    await loop.stop();
    assert.equal(calls, 3, 'the pass after the failure waits its interval, and stop cancels it');
    assert.equal(loop.halted, true);
  });

  void it('stop waits for the pass under way, which sees it halted', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let sawHalted: boolean | undefined;
    let started = false;
    const loop = new PeriodicPass(
      'test loop',
      recorder(),
      60 * 60_000,
      async () => {
        started = true;
        await gate;
        sawHalted = loop.halted;
      },
      0,
    );
    loop.start();
    await waitFor(() => (started ? true : undefined), {
      timeoutMs: 5_000,
      intervalMs: 5,
      what: 'the pass to start',
    });
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await Promise.resolve();
    assert.equal(stopped, false);
    release();
    await stopping;
    assert.equal(sawHalted, true);
  });
});
