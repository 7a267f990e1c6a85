import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { type SqliteStore, openSqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import type { Joinable, Tx } from '../../src/store/store.js';
import { whileWriterHeld } from '../helpers/sqlite-writer.js';

/**
 * Joined transactions on SQLite (`Joinable`, store-sqlite/join-queue.ts): those of one key that
 * wait for the writer together run as the first one's joint function, each answered its own
 * outcome, written in one savepoint; whenever they cannot go together, each runs as if never
 * joined. The real store, on a file (whose transactions share a COMMIT) and in memory.
 */

/** How a joint treats its transactions: each answers its name, or one of them fails, or the joint throws after writing. */
type JointBehaviour = { kind: 'answer' } | { kind: 'fail-one'; name: string } | { kind: 'throw' };

const T0 = 1_700_000_000_000;

for (const where of ['file', 'memory'] as const) {
  describe(`SQLite joined transactions (${where})`, () => {
    let store: SqliteStore;
    let dir: string;
    let behaviour: JointBehaviour = { kind: 'answer' };
    /** The names each joint function was given, in order, and the names run by their own function. */
    let joints: string[][] = [];
    let own: string[] = [];

    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'baton-joined-'));
      store = openSqliteStore({
        file: where === 'file' ? path.join(dir, 'baton.db') : ':memory:',
        synchronous: 'NORMAL',
      });
      await store.migrate();
    });
    after(async () => {
      await store?.close();
      await rm(dir, { recursive: true, force: true });
    });

    /** A write each transaction leaves, to see what was committed: a task definition of its name. */
    const write = (tx: Tx, name: string) => tx.upsertTaskDef({ name, createTime: T0, updateTime: T0 });
    const stored = async (name: string) => (await store.read((tx) => tx.getTaskDef(name))) !== undefined;

    class Work implements Joinable {
      constructor(
        readonly name: string,
        readonly key: string,
      ) {}

      async joint(tx: Tx, all: readonly Joinable[]): Promise<ReadonlyArray<PromiseSettledResult<unknown>>> {
        const works = all as readonly Work[];
        joints.push(works.map((w) => w.name));
        for (const w of works) await write(tx, `${w.name}-joined`);
        if (behaviour.kind === 'throw') throw new Error('the joint failed');
        const failing = behaviour.kind === 'fail-one' ? behaviour.name : undefined;
        return works.map((w) =>
          w.name === failing
            ? { status: 'rejected', reason: new Error(`${w.name} refused`) }
            : { status: 'fulfilled', value: `${w.name} (joined)` },
        );
      }
    }

    /** A transaction named `name` that may be joined by `key` (none: not joinable). */
    const transaction = (name: string, key?: string): Promise<unknown> =>
      store.transaction(
        async (tx) => {
          own.push(name);
          await write(tx, name);
          return `${name} (own)`;
        },
        key === undefined ? {} : { group: true, join: new Work(name, key) },
      );

    /** Starts `start` while the writer is held (whileWriterHeld); answers their outcomes. */
    const whileHeld = async (count: number, start: () => Array<Promise<unknown>>) =>
      Promise.allSettled(await whileWriterHeld(store, count, start));

    const reset = (b: JointBehaviour = { kind: 'answer' }) => {
      behaviour = b;
      joints = [];
      own = [];
    };

    it('transactions of one key that wait together are one joint, each answered its own outcome', async () => {
      reset();
      const outcomes = await whileHeld(4, () => [
        transaction('a1', 'run-a'),
        transaction('b1', 'run-b'),
        transaction('a2', 'run-a'),
        transaction('a3', 'run-a'),
      ]);
      assert.deepEqual(
        outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'rejected')),
        ['a1 (joined)', 'b1 (own)', 'a2 (joined)', 'a3 (joined)'],
      );
      assert.deepEqual(joints, [['a1', 'a2', 'a3']]);
      assert.deepEqual(own, ['b1'], 'one of its key alone runs its own function');
      for (const name of ['a1-joined', 'a2-joined', 'a3-joined', 'b1']) assert.ok(await stored(name), name);
    });

    it('those that arrive in one turn are joined without anything holding the writer', async () => {
      reset();
      const joinedBefore = store.commitCounts.joined ?? 0;
      const outcomes = await Promise.all([transaction('t1', 'run-t'), transaction('t2', 'run-t')]);
      assert.deepEqual(outcomes, ['t1 (joined)', 't2 (joined)']);
      assert.equal((store.commitCounts.joined ?? 0) - joinedBefore, 1);
    });

    it('one that ended before the next arrived is not joined by it', async () => {
      reset();
      assert.equal(await transaction('s1', 'run-s'), 's1 (own)');
      assert.equal(await transaction('s2', 'run-s'), 's2 (own)');
      assert.deepEqual(joints, []);
    });

    it('a transaction that is not joinable runs at once, not after those waiting for the turn to end', async () => {
      reset();
      const joinable = transaction('j1', 'run-j');
      const plain = transaction('p1');
      assert.equal(await plain, 'p1 (own)');
      assert.equal(await joinable, 'j1 (own)');
      assert.deepEqual(own, ['p1', 'j1']);
    });

    it('a rejected outcome fails that transaction alone', async () => {
      reset({ kind: 'fail-one', name: 'f2' });
      const outcomes = await whileHeld(3, () => [
        transaction('f1', 'run-f'),
        transaction('f2', 'run-f'),
        transaction('f3', 'run-f'),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /f2 refused/);
    });

    it('a joint that throws leaves nothing it wrote, and each runs alone', async () => {
      reset({ kind: 'throw' });
      const outcomes = await whileHeld(2, () => [transaction('x1', 'run-x'), transaction('x2', 'run-x')]);
      assert.deepEqual(
        outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'rejected')),
        ['x1 (own)', 'x2 (own)'],
      );
      assert.deepEqual(joints, [['x1', 'x2']]);
      assert.deepEqual(own, ['x1', 'x2']);
      assert.equal(await stored('x1-joined'), false, "the joint's writes were rolled back");
      assert.ok(await stored('x1'));
      assert.ok(await stored('x2'));
    });

    it('a joint takes at most sixteen; the rest are the next one', async () => {
      reset();
      const names = Array.from({ length: 20 }, (_, i) => `m${i}`);
      const outcomes = await whileHeld(20, () => names.map((name) => transaction(name, 'run-m')));
      assert.ok(outcomes.every((o) => o.status === 'fulfilled'));
      assert.deepEqual(joints, [names.slice(0, 16), names.slice(16)]);
    });
  });
}
