import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type pg from 'pg';

import { type FakeTx, fakeClient, fakeGroupCommit } from './fake-group-commit.js';

/**
 * How group commit orders members that found their key held by another member: the scheduling
 * alone (fake-group-commit.ts). A member here is a function that claims keys as `lockRun` does.
 */

function setUp(connect: () => Promise<pg.PoolClient> = () => Promise.resolve(fakeClient())) {
  const lone: string[] = [];
  const group = fakeGroupCommit(connect);
  /** How many members run at once holding each key (alone or in a batch), and the most seen. */
  const running = new Map<string, number>();
  const peak = new Map<string, number>();
  /** A member named `name` that claims `keys` (after `late` turns of the microtask queue). */
  const member = (name: string, keys: readonly string[], late = 0, then?: () => void) =>
    group.transaction(async (raw) => {
      const tx = raw as unknown as FakeTx;
      for (let i = 0; i < late; i++) await Promise.resolve();
      for (const key of keys) tx.claim(key);
      then?.();
      if (tx.alone) lone.push(name);
      for (const key of keys) {
        running.set(key, (running.get(key) ?? 0) + 1);
        peak.set(key, Math.max(peak.get(key) ?? 0, running.get(key) ?? 0));
      }
      // Holds its keys for a moment, as a transaction's statements would.
      await new Promise((resolve) => setImmediate(resolve));
      for (const key of keys) running.set(key, (running.get(key) ?? 1) - 1);
      return name;
    });
  return { group, member, lone, peak };
}

describe('group commit: members that found their key held', () => {
  it('wait for it, then go one at a time, in the order they arrived', async () => {
    const { group, member, lone, peak } = setUp();
    const committed: string[] = [];
    const sameRun = Array.from({ length: 10 }, (_, i) =>
      member(`a${i}`, ['run:a'], 0, () => committed.push(`a${i}`)),
    );
    const others = Array.from({ length: 10 }, (_, i) => member(`o${i}`, [`run:o${i}`]));
    assert.deepEqual(
      await Promise.all(others),
      Array.from({ length: 10 }, (_, i) => `o${i}`),
    );
    assert.deepEqual(
      await Promise.all(sameRun),
      Array.from({ length: 10 }, (_, i) => `a${i}`),
    );
    assert.deepEqual(
      committed,
      Array.from({ length: 10 }, (_, i) => `a${i}`),
      'in arrival order',
    );
    // Each of the nine left the first batch once; then, nothing else waiting, each ran alone.
    assert.deepEqual(
      lone,
      Array.from({ length: 9 }, (_, i) => `a${i + 1}`),
    );
    assert.equal(group.stats.evicted, 9);
    assert.equal(group.stats.batches, 1);
    assert.equal(peak.get('run:a'), 1, 'never two of them at once');
    assert.equal(group.stats.fallbacks, 0);
  });

  it('a later batch takes the waiting member beside the members that arrived meanwhile', async () => {
    const { group, member } = setUp();
    const first = member('a0', ['run:a'], 0, () => {
      // Arrives while the first batch is in flight: it goes with the member let in after it.
      void member('b', ['run:b']);
    });
    const second = member('a1', ['run:a']);
    assert.deepEqual(await Promise.all([first, second]), ['a0', 'a1']);
    assert.equal(group.stats.batches, 2);
    assert.equal(group.stats.members, 4, 'a0 and a1, then a1 again with b');
    assert.equal(group.stats.evicted, 1);
  });

  it('a member turned away more than three times runs alone', async () => {
    const { group, member, lone } = setUp();
    // Each batch holds an early member of run a, which takes the run before the late one claims
    // it, and sends the next early member, which arrives while its batch is in flight.
    let early = 0;
    const nextEarly = (): Promise<string> | undefined =>
      early < 5 ? member(`early${early++}`, ['run:a'], 0, () => void nextEarly()) : undefined;
    const firstEarly = nextEarly();
    const late = member('late', ['run:a'], 3);
    assert.equal(await late, 'late');
    assert.equal(await firstEarly, 'early0');
    assert.equal(lone[0], 'late', 'it ran alone');
    assert.equal(group.stats.evicted, 4, 'turned away four times: the fourth sends it alone');
  });

  it('a batch that gets no connection fails its members, and the next waiting member still gets its turn', async () => {
    let calls = 0;
    const { member } = setUp(() => {
      calls++;
      return calls === 2 ? Promise.reject(new Error('no connection')) : Promise.resolve(fakeClient());
    });
    let meanwhile: Promise<string> | undefined;
    const results = await Promise.allSettled([
      // b arrives while the first batch is in flight, so a1 goes in a batch with it: the one
      // that gets no connection.
      member('a0', ['run:a'], 0, () => {
        meanwhile = member('b', ['run:b']).catch((err: Error) => err.message);
      }),
      member('a1', ['run:a']),
      member('a2', ['run:a']),
    ]);
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      ['a0', 'no connection', 'a2'],
    );
    assert.equal(await (meanwhile ?? assert.fail('b was sent')), 'no connection');
  });
});
