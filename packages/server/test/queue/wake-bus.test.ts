import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, it } from 'node:test';

import { WakeBus } from '../../src/queue/wake-bus.js';

/** Resolves to whether the promise settled within a few turns of the event loop. */
async function settled(promise: Promise<void>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 5; i++) await tick();
  return done;
}

const LONG = 60_000;

void describe('WakeBus', () => {
  void it('wakes a waiter on one of its queues, and only those', async () => {
    const bus = new WakeBus();
    const waiting = bus.wait(['a', 'b'], LONG);
    bus.wake(['other']);
    assert.equal(await settled(waiting), false);
    bus.wake(['b']);
    assert.equal(await settled(waiting), true);
    assert.equal(bus.waiting, 0, 'a woken waiter is forgotten');
  });

  void it('does not lose a wake-up that lands between looking for work and waiting', async () => {
    const bus = new WakeBus();
    const seen = bus.generation(['q']);
    bus.wake(['q']); // work arrived after the empty claim, before the wait
    assert.equal(await settled(bus.wait(['q'], LONG, undefined, seen)), true);
    const fresh = bus.generation(['q']);
    assert.equal(await settled(bus.wait(['q'], LONG, undefined, fresh)), false);
    bus.wakeAll();
  });

  void it('wakeAll reaches waiters on queues never woken before, and later waits that saw the old generation', async () => {
    const bus = new WakeBus();
    const seen = bus.generation(['never']);
    const waiting = bus.wait(['never'], LONG);
    bus.wakeAll();
    assert.equal(await settled(waiting), true);
    assert.equal(await settled(bus.wait(['never'], LONG, undefined, seen)), true);
  });

  void it('ends a wait when its signal aborts, and when its time is up', async () => {
    const bus = new WakeBus();
    const controller = new AbortController();
    const waiting = bus.wait(['q'], LONG, controller.signal);
    controller.abort();
    assert.equal(await settled(waiting), true);
    await bus.wait(['q'], 1);
    assert.equal(await settled(bus.wait(['q'], 0)), true);
    assert.equal(bus.waiting, 0);
  });
});
