import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { Joinable, Tx } from '../../src/store/store.js';
import { type FakeTx, fakeGroupCommit } from './fake-group-commit.js';

/**
 * Joined transactions (`Joinable`): those of one batch with the same key run as the first one's
 * joint function, each answered its own outcome; whenever they cannot go together, each runs as
 * if never joined. The scheduling alone (fake-group-commit.ts; group-commit-parking.test.ts does
 * the same for members that wait for a key).
 */

/** How a joint treats its transactions: each answers its name, or one of them fails, or the joint throws. */
type JointBehaviour =
  { kind: 'answer' } | { kind: 'fail-one'; name: string } | { kind: 'throw'; error: Error };

function setUp() {
  const group = fakeGroupCommit();
  /** The names each joint function was given, in order, and the names run by their own function. */
  const joints: string[][] = [];
  const own: Array<{ name: string; alone: boolean }> = [];
  let behaviour: JointBehaviour = { kind: 'answer' };

  class Work implements Joinable {
    constructor(
      readonly name: string,
      readonly key: string,
    ) {}

    async joint(raw: Tx, all: readonly Joinable[]): Promise<ReadonlyArray<PromiseSettledResult<unknown>>> {
      const tx = raw as unknown as FakeTx;
      const works = all as readonly Work[];
      tx.claim(this.key);
      await Promise.resolve();
      joints.push(works.map((w) => w.name));
      if (behaviour.kind === 'throw') throw behaviour.error;
      const failing = behaviour.kind === 'fail-one' ? behaviour.name : undefined;
      return works.map((w) =>
        w.name === failing
          ? { status: 'rejected', reason: new Error(`${w.name} refused`) }
          : { status: 'fulfilled', value: `${w.name} (joined)` },
      );
    }
  }

  /** A transaction named `name` that locks `key` (and may be joined by it, unless `joinable` is false). */
  const transaction = (name: string, key: string, joinable = true): Promise<unknown> =>
    group.transaction(
      async (raw) => {
        const tx = raw as unknown as FakeTx;
        tx.claim(key);
        await Promise.resolve();
        own.push({ name, alone: tx.alone });
        return `${name} (own)`;
      },
      joinable ? new Work(name, key) : undefined,
    );
  return {
    group,
    transaction,
    joints,
    own,
    behave: (b: JointBehaviour) => {
      behaviour = b;
    },
  };
}

void describe('group commit: joined transactions', () => {
  void it('those of one key in a batch run as one joint, each answered its own outcome', async () => {
    const { group, transaction, joints, own } = setUp();
    const out = await Promise.all([
      transaction('a', 'run:1'),
      transaction('x', 'run:2'),
      transaction('b', 'run:1'),
      transaction('c', 'run:1'),
    ]);
    assert.deepEqual(out, ['a (joined)', 'x (own)', 'b (joined)', 'c (joined)']);
    assert.deepEqual(joints, [['a', 'b', 'c']]);
    assert.deepEqual(own, [{ name: 'x', alone: false }]);
    assert.equal(group.stats.batches, 1);
    assert.equal(group.stats.members, 4, 'members count the transactions');
    assert.equal(group.stats.joined, 2, 'two transactions ran in the joint of a third');
    assert.equal(group.stats.evicted, 0, 'none left the batch for the run another held');
  });

  void it('a transaction that asks not to be joined keeps to itself, and waits for the run as before', async () => {
    const { group, transaction, joints, own } = setUp();
    const out = await Promise.all([transaction('a', 'run:1'), transaction('b', 'run:1', false)]);
    assert.deepEqual(out, ['a (own)', 'b (own)']);
    assert.deepEqual(joints, []);
    assert.deepEqual(
      own.map((o) => o.name),
      ['a', 'b'],
    );
    assert.equal(group.stats.joined, 0);
    assert.equal(group.stats.evicted, 1, 'the second left for the run the first held');
  });

  void it('an outcome the joint rejects fails that transaction alone', async () => {
    const { transaction, behave } = setUp();
    behave({ kind: 'fail-one', name: 'b' });
    const out = await Promise.allSettled([
      transaction('a', 'run:1'),
      transaction('b', 'run:1'),
      transaction('c', 'run:1'),
    ]);
    assert.deepEqual(
      out.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)),
      ['a (joined)', 'b refused', 'c (joined)'],
    );
  });

  void it('a joint that fails having changed nothing runs each of its transactions alone', async () => {
    const { group, transaction, joints, own, behave } = setUp();
    behave({ kind: 'throw', error: new Error('cannot go together') });
    const out = await Promise.all([transaction('a', 'run:1'), transaction('b', 'run:1')]);
    assert.deepEqual(out, ['a (own)', 'b (own)']);
    assert.deepEqual(joints, [['a', 'b']]);
    assert.deepEqual(
      own.map((o) => [o.name, o.alone]),
      [
        ['a', true],
        ['b', true],
      ],
    );
    assert.equal(group.stats.fallbacks, 0, 'nothing was rolled back: the joint wrote nothing');
  });

  void it('a joint whose run another member holds leaves the batch, each of its transactions in line for it', async () => {
    const { group, transaction, joints, own } = setUp();
    // `x` is not joinable and takes run 1 first; the joint of `a` and `b` then finds it held.
    const out = await Promise.all([
      transaction('x', 'run:1', false),
      transaction('a', 'run:1'),
      transaction('b', 'run:1'),
    ]);
    assert.deepEqual(out, ['x (own)', 'a (own)', 'b (own)']);
    assert.deepEqual(joints, [], 'the joint left at its lock, before doing anything; then each ran in turn');
    assert.deepEqual(
      own.map((o) => o.name),
      ['x', 'a', 'b'],
    );
    assert.equal(group.stats.evicted, 2);
  });
});
