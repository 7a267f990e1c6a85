import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { TaskRecord } from '@baton/protocol';
import pg from 'pg';

import { Metrics } from '../../src/metrics.js';
import { openPostgresStore, type PostgresStore } from '../../src/store-postgres/postgres-store.js';
import { type GroupCommitStats, noGroupCommits } from '../../src/store-postgres/group-commit.js';
import type { Tx } from '../../src/store/store.js';
import { waitFor } from '../helpers/baton-process.js';
import { createTestDatabase, enabledStores, type TestDatabase } from '../helpers/postgres.js';
import { T0, message, run, signal, task, uid } from './fixtures.js';

const GROUPED = { group: true } as const;

if (enabledStores().includes('postgres')) {
  describe('group commit on PostgreSQL', () => {
    let db: TestDatabase;
    let store: PostgresStore;
    /** The group commit's clock: a test that must not see a batch held up stops it. */
    let clock = (): number => performance.now();

    before(async () => {
      db = await createTestDatabase();
      store = openPostgresStore({ url: db.url, poolSize: 4, groupCommit: { now: () => clock() } });
      await store.migrate();
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    const stats = (): GroupCommitStats => ({ ...(store.group?.stats ?? assert.fail('group commit is on')) });
    const delta = (before: GroupCommitStats): GroupCommitStats => {
      const now = stats();
      const d = noGroupCommits();
      for (const count of Object.keys(d) as Array<keyof GroupCommitStats>)
        d[count] = now[count] - before[count];
      return d;
    };
    /** Counts as `delta` answers them: those not named are 0. */
    const counted = (c: Partial<GroupCommitStats>): GroupCommitStats => ({ ...noGroupCommits(), ...c });
    /** Runs stored before the test, one per member. */
    async function runs(n: number) {
      const out = Array.from({ length: n }, () => run());
      await store.transaction(async (tx) => {
        for (const r of out) await tx.insertRun(r);
      });
      return out;
    }
    /** A member: locks its run, then writes a task of it (deferred until the next answering statement). */
    const member =
      (workflowId: string, seq: number, then?: (tx: Tx) => Promise<void>) =>
      async (tx: Tx): Promise<{ taskId: string }> => {
        const locked = await tx.lockRun(workflowId);
        assert.equal(locked?.workflowId, workflowId, 'its own run');
        const t = task(workflowId, seq);
        await tx.insertTasks([t]);
        await then?.(tx);
        return { taskId: t.taskId };
      };
    const taskExists = async (taskId: string) => (await store.read((tx) => tx.getTask(taskId))) !== undefined;

    it('concurrent grouped transactions are members of one transaction with one commit', async () => {
      const rs = await runs(8);
      const before = stats();
      const out = await Promise.all(rs.map((r, i) => store.transaction(member(r.workflowId, i), GROUPED)));
      assert.deepEqual(delta(before), counted({ batches: 1, members: 8, merged: 7 }));
      for (const o of out) assert.ok(await taskExists(o.taskId), 'every member committed');
    });

    it('a member that fails having changed nothing is dropped with its deferred writes; the others commit', async () => {
      const rs = await runs(3);
      const before = stats();
      const results = await Promise.allSettled(
        rs.map((r, i) =>
          store.transaction(
            member(r.workflowId, i, () =>
              i === 1 ? Promise.reject(new Error('no such thing')) : Promise.resolve(),
            ),
            GROUPED,
          ),
        ),
      );
      // The failing member's task id: it is the only one not answered.
      const answered = results.flatMap((o) => (o.status === 'fulfilled' ? [o.value.taskId] : []));
      assert.equal(answered.length, 2);
      const rejected = results[1];
      assert.equal(rejected?.status, 'rejected');
      assert.match(String(rejected.reason), /no such thing/);
      for (const id of answered) assert.ok(await taskExists(id));
      const tasksOfFailed = await store.read((tx) => tx.getRunTasks(rs[1]?.workflowId ?? ''));
      assert.deepEqual(tasksOfFailed, [], 'its deferred write never reached the database');
      assert.deepEqual(delta(before), counted({ batches: 1, members: 3, merged: 1 }));
    });

    it('a member that fails after its writes went out rolls the batch back; the others run again alone and commit', async () => {
      const rs = await runs(3);
      const before = stats();
      const calls = [0, 0, 0];
      const results = await Promise.allSettled(
        rs.map((r, i) =>
          store.transaction(async (tx) => {
            calls[i] = (calls[i] ?? 0) + 1;
            const o = await member(r.workflowId, i)(tx);
            // A read after the write sends the write first.
            assert.ok(await tx.getTask(o.taskId));
            if (i === 1) throw new Error('after writing');
            return o;
          }, GROUPED),
        ),
      );
      assert.match(String((results[1] as PromiseRejectedResult).reason), /after writing/);
      assert.deepEqual(await store.read((tx) => tx.getRunTasks(rs[1]?.workflowId ?? '')), []);
      for (const i of [0, 2]) {
        const o = results[i];
        assert.equal(o?.status, 'fulfilled');
        if (o?.status === 'fulfilled') assert.ok(await taskExists(o.value.taskId));
        assert.equal(calls[i], 2, 'ran in the batch, then alone');
      }
      assert.deepEqual(delta(before), counted({ batches: 1, members: 3, fallbacks: 1 }));
    });

    it('a deferred write PostgreSQL refuses at COMMIT fails only its own member', async () => {
      const rs = await runs(3);
      const before = stats();
      const results = await Promise.allSettled(
        rs.map((r, i) =>
          store.transaction(
            member(r.workflowId, i, async (tx) => {
              if (i === 1) await tx.updateRun(run()); // no such run: refused at COMMIT
            }),
            GROUPED,
          ),
        ),
      );
      assert.match(String((results[1] as PromiseRejectedResult).reason), /updateRun: no run/);
      assert.deepEqual(await store.read((tx) => tx.getRunTasks(rs[1]?.workflowId ?? '')), []);
      for (const i of [0, 2]) {
        const o = results[i];
        assert.equal(o?.status, 'fulfilled');
        if (o?.status === 'fulfilled') assert.ok(await taskExists(o.value.taskId));
      }
      assert.deepEqual(delta(before), counted({ batches: 1, members: 3, fallbacks: 1, merged: 2 }));
    });

    /** Runs stored with one open task each, and those tasks. */
    async function runsWithOpenTasks(n: number) {
      const rs = await runs(n);
      const tasks = rs.map((r) => task(r.workflowId, 0));
      await store.transaction((tx) => tx.insertTasks(tasks));
      return tasks;
    }
    const handedOut = (t: TaskRecord): TaskRecord => ({
      ...t,
      status: 'IN_PROGRESS',
      pollCount: 1,
      updateTime: T0 + 5,
    });

    it('a member’s compare-and-set of open tasks waits for COMMIT, one statement for the batch', async () => {
      const tasks = await runsWithOpenTasks(3);
      const before = stats();
      const written = await Promise.all(
        tasks.map((t) => store.transaction((tx) => tx.updateOpenTasks([handedOut(t)]), GROUPED)),
      );
      assert.deepEqual(
        written,
        tasks.map((t) => [t.taskId]),
      );
      assert.deepEqual(delta(before), counted({ batches: 1, members: 3, merged: 2 }));
      for (const t of tasks)
        assert.equal((await store.read((tx) => tx.getTask(t.taskId)))?.status, 'IN_PROGRESS');
    });

    it('a member’s task ended before its COMMIT fails the batch; alone, the member finds it ended and the others commit', async () => {
      const tasks = await runsWithOpenTasks(3);
      const ended = tasks[1] ?? assert.fail();
      const before = stats();
      const calls = [0, 0, 0];
      const written = await Promise.all(
        tasks.map((t, i) =>
          store.transaction(async (tx) => {
            calls[i] = (calls[i] ?? 0) + 1;
            const out = await tx.updateOpenTasks([handedOut(t)]);
            // Another transaction ends the task after this member took it to be open, while the
            // batch is still open (a cancel racing a hand-out).
            if (i === 1 && calls[i] === 1)
              await store.transaction((other) =>
                other.updateTasks([{ ...ended, status: 'CANCELED', endTime: T0 + 6, updateTime: T0 + 6 }]),
              );
            return out;
          }, GROUPED),
        ),
      );
      assert.deepEqual(written, [[tasks[0]?.taskId], [], [tasks[2]?.taskId]]);
      assert.deepEqual(calls, [2, 2, 2], 'each ran in the batch, then alone');
      assert.equal((await store.read((tx) => tx.getTask(ended.taskId)))?.status, 'CANCELED');
      for (const i of [0, 2])
        assert.equal((await store.read((tx) => tx.getTask(tasks[i]?.taskId ?? '')))?.status, 'IN_PROGRESS');
      assert.equal(delta(before).fallbacks, 1);
    });

    it('the same write of several members is one statement, and each member keeps its own order', async () => {
      const rs = await runs(3);
      const q = uid('q-');
      // Member 2 has a task of its own already: its update comes before its insert.
      const earlier = task(rs[2]?.workflowId ?? '', 0, { referenceTaskName: 'earlier' });
      await store.transaction((tx) => tx.insertTasks([earlier]));
      const before = stats();
      const out = await Promise.all(
        rs.map((r, i) =>
          store.transaction(async (tx) => {
            assert.ok(await tx.lockRun(r.workflowId));
            if (i === 2) await tx.updateTasks([{ ...earlier, status: 'COMPLETED' }]);
            const t = task(r.workflowId, 1);
            await tx.insertTasks([t]);
            // Inserted, then updated, in one transaction: the update must follow the insert.
            await tx.updateTasks([{ ...t, status: 'IN_PROGRESS' }]);
            await tx.enqueue([message(q, { taskId: t.taskId, workflowId: r.workflowId })], T0 + i);
            return t;
          }, GROUPED),
        ),
      );
      // Three inserts went as one statement, as did three enqueues; the four updates as two, since
      // member 2's first update comes before its insert.
      assert.deepEqual(delta(before), counted({ batches: 1, members: 3, merged: 6 }));
      for (const [i, t] of out.entries()) {
        assert.equal((await store.read((tx) => tx.getTask(t.taskId)))?.status, 'IN_PROGRESS');
        assert.equal((await store.read((tx) => tx.getMessage(t.taskId)))?.createdAt, T0 + i, 'its own time');
        const decide = await store.read((tx) => tx.getDecideTasks(t.workflowInstanceId));
        assert.ok(decide.some((d) => d.taskId === t.taskId && d.status === 'IN_PROGRESS'));
      }
      assert.equal((await store.read((tx) => tx.getTask(earlier.taskId)))?.status, 'COMPLETED');
    });

    it('members of one batch each read their own run lock and decide set', async () => {
      const rs = await runs(3);
      // Run i has i tasks to decide.
      const tasksOf = rs.map((r, i) => Array.from({ length: i }, (_, seq) => task(r.workflowId, seq)));
      await store.transaction((tx) => tx.insertTasks(tasksOf.flat()));
      const before = stats();
      const seen = await Promise.all(
        rs.map((r) =>
          store.transaction(async (tx) => {
            const locked = await tx.lockRun(r.workflowId);
            const decide = await tx.getDecideTasks(r.workflowId);
            return { run: locked?.workflowId, decide: decide.map((t) => t.taskId) };
          }, GROUPED),
        ),
      );
      assert.deepEqual(
        seen,
        rs.map((r, i) => ({ run: r.workflowId, decide: (tasksOf[i] ?? []).map((t) => t.taskId) })),
      );
      assert.deepEqual(delta(before), counted({ batches: 1, members: 3 }));
    });

    it('a merged write PostgreSQL refuses fails only the member it came from', async () => {
      const rs = await runs(3);
      const ts = rs.map((r) => task(r.workflowId, 0));
      await store.transaction((tx) => tx.insertTasks(ts));
      const before = stats();
      const results = await Promise.allSettled(
        rs.map((r, i) =>
          store.transaction(async (tx) => {
            assert.ok(await tx.lockRun(r.workflowId));
            // Member 1 updates a task that does not exist: the merged update is refused at COMMIT.
            const t = i === 1 ? task(r.workflowId, 7) : (ts[i] ?? assert.fail());
            await tx.updateTasks([{ ...t, status: 'COMPLETED' }]);
            return t.taskId;
          }, GROUPED),
        ),
      );
      assert.match(
        String((results[1] as PromiseRejectedResult).reason),
        /updateTasks: 1 of the tasks do not exist/,
      );
      for (const i of [0, 2]) {
        const o = results[i];
        assert.equal(o?.status, 'fulfilled');
        if (o?.status === 'fulfilled')
          assert.equal((await store.read((tx) => tx.getTask(o.value)))?.status, 'COMPLETED');
      }
      assert.deepEqual(delta(before), counted({ batches: 1, members: 3, fallbacks: 1, merged: 2 }));
    });

    /**
     * Three grouped members that each lock one run (`lockFirst`, then lockRun) and count in it:
     * each must see the one before it, the two that found the run held leaving the batch.
     */
    async function countThreeTimes(workflowId: string, lockFirst?: (tx: Tx) => Promise<unknown>) {
      const d = await countTimes(3, workflowId, lockFirst);
      assert.equal(d.fallbacks, 0);
      // The two that found the run held wait for it, then go one at a time (alone: nothing else waits).
      assert.equal(d.evicted, 2);
      assert.equal(d.batches, 1);
    }

    /** `n` grouped members counting in one run; each must see the one before it. */
    async function countTimes(n: number, workflowId: string, lockFirst?: (tx: Tx) => Promise<unknown>) {
      const before = stats();
      const bump = (tx: Tx) =>
        (async () => {
          await lockFirst?.(tx);
          const locked = await tx.lockRun(workflowId);
          assert.ok(locked);
          const n = Number(locked.variables.n ?? 0);
          await tx.updateRun({ ...locked, variables: { n: n + 1 } });
          return n;
        })();
      const seen = await Promise.all(Array.from({ length: n }, () => store.transaction(bump, GROUPED)));
      assert.deepEqual(
        [...seen].sort((x, y) => x - y),
        Array.from({ length: n }, (_, i) => i),
        'each saw the one before it (no update lost)',
      );
      assert.equal((await store.read((tx) => tx.getRun(workflowId)))?.variables.n, n);
      return delta(before);
    }

    it('two members of one run never share a transaction: the second runs once the first committed', async () => {
      const [r] = await runs(1);
      assert.ok(r);
      await countThreeTimes(r.workflowId);
    });

    it('members that found their run held go one at a time, and see the ones before', async () => {
      const [r] = await runs(1);
      assert.ok(r);
      // Six members of one run: each leaves the first batch once, then they go one by one.
      const d = await countTimes(6, r.workflowId);
      assert.equal(d.fallbacks, 0);
      assert.equal(d.evicted, 5);
      assert.equal(d.batches, 1);
    });

    it('a task read that locks its run keeps two members of that run apart, as lockRun does', async () => {
      const [r] = await runs(1);
      assert.ok(r);
      const t = task(r.workflowId, 0);
      await store.transaction((tx) => tx.insertTasks([t]));
      // The lockRun after it answers from the lock the task read took: nothing sent in between.
      await countThreeTimes(r.workflowId, async (tx) =>
        assert.ok(await tx.getTaskLockingRun(t.taskId, r.workflowId)),
      );
    });

    it('two members never claim one idempotency key together: the others find the first one’s run', async () => {
      const key = uid('key-');
      const ids = [uid('run-'), uid('run-'), uid('run-')];
      const before = stats();
      const answers = await Promise.all(
        ids.map((id) =>
          store.transaction((tx) => tx.claimIdempotencyKey('grouped_wf', key, id, T0), GROUPED),
        ),
      );
      const won = answers.indexOf(undefined);
      assert.notEqual(won, -1, 'one member claimed the key');
      assert.deepEqual(
        answers.filter((_, i) => i !== won),
        [ids[won], ids[won]],
      );
      const d = delta(before);
      assert.equal(d.fallbacks, 0);
      // The two that found it held wait for it, and then join a batch one at a time.
      assert.equal(d.evicted, 2);
    });

    it('two members never hold one task type limit row together: the second counts after the first', async () => {
      const type = uid('limited-');
      const before = stats();
      const counted = (tx: Tx) =>
        (async () => {
          const s = await tx.lockTaskLimit(type);
          await tx.setTaskRateWindow(type, T0, s.windowCount + 1);
          return s.windowCount;
        })();
      const seen = await Promise.all([1, 2, 3].map(() => store.transaction(counted, GROUPED)));
      assert.deepEqual([...seen].sort(), [0, 1, 2]);
      const d = delta(before);
      assert.equal(d.fallbacks, 0);
      // The two that found it held wait for it, and then join a batch one at a time.
      assert.equal(d.evicted, 2);
    });

    it('on a new connection, a member may send a write another member prepares before that member sends it', async () => {
      // A fresh store: its connections have prepared nothing. Member 0 defers the first task
      // insert (and with it the statement's PREPARE); member 1 defers one after it and sends
      // its writes first, with a read.
      const fresh = openPostgresStore({ url: db.url, poolSize: 2 });
      try {
        const rs = Array.from({ length: 2 }, () => run());
        await fresh.transaction(async (tx) => {
          for (const r of rs) await tx.insertRun(r);
        });
        const before = fresh.group?.stats.fallbacks ?? -1;
        let inserted = 0;
        const bothInserted = new Promise<void>((resolve) => {
          setImmediate(function wait() {
            if (inserted === 2) resolve();
            else setImmediate(wait);
          });
        });
        const out = await Promise.all(
          rs.map((r, i) =>
            fresh.transaction(async (tx) => {
              assert.ok(await tx.lockRun(r.workflowId));
              const t = task(r.workflowId, 0);
              await tx.insertTasks([t]);
              inserted++;
              await bothInserted;
              if (i === 1) assert.ok(await tx.getTask(t.taskId), 'its own write, sent with the read');
              return t.taskId;
            }, GROUPED),
          ),
        );
        for (const id of out) assert.ok(await taskExists(id));
        assert.equal(fresh.group?.stats.fallbacks, before, 'the batch committed as one');
      } finally {
        await fresh.close();
      }
    });

    /** A transaction outside group commit that holds `workflowId`'s lock until it is released. */
    async function holdRun(workflowId: string) {
      const locked = signal();
      const release = signal();
      const holder = store.transaction(async (tx) => {
        await tx.lockRun(workflowId);
        locked.resolve();
        await release.promise;
      });
      await locked.promise;
      return { release: () => release.resolve(), ended: holder };
    }
    /** `promise`, or undefined if it has not settled within 30 s (a bound, never the expected path). */
    const within = <T>(promise: Promise<T>) =>
      Promise.race([
        promise,
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 30_000).unref()),
      ]);

    it('a batch held up by a lock another transaction holds lets the next batch start beside it', async () => {
      const [held, ...others] = await runs(3);
      assert.ok(held);
      // Another transaction (not grouped) holds the first run's lock until told.
      const holder = await holdRun(held.workflowId);
      const started = signal();
      const stuck = store.transaction(async (tx) => {
        started.resolve();
        return member(held.workflowId, 0)(tx);
      }, GROUPED);
      // In flight (and about to wait for the lock) before the others arrive.
      await started.promise;
      // Arriving while that one waits: they must commit while the lock is still held.
      let out: Array<{ taskId: string }> | undefined;
      try {
        out = await within(
          Promise.all(others.map((r, i) => store.transaction(member(r.workflowId, i), GROUPED))),
        );
      } finally {
        holder.release();
      }
      assert.ok(out, 'the others committed while the first batch waited for its lock');
      for (const o of out) assert.ok(await taskExists(o.taskId));
      await holder.ended;
      assert.ok(await taskExists((await stuck).taskId));
    });

    for (const how of ['lockRun', 'getTaskLockingRun'] as const) {
      it(`a member whose run another transaction holds (${how}) leaves its batch at once, and commits once the lock is free`, async () => {
        const [held, ...others] = await runs(3);
        assert.ok(held);
        const t = task(held.workflowId, 0);
        await store.transaction((tx) => tx.insertTasks([t]));
        const holder = await holdRun(held.workflowId);
        const before = stats();
        let lockedOut: Promise<{ taskId: string }> | undefined;
        let out: Array<{ taskId: string }> | undefined;
        try {
          // All three in one turn: one batch. Its other members must commit while the lock is held.
          lockedOut = store.transaction(
            how === 'lockRun'
              ? member(held.workflowId, 1)
              : async (tx) => {
                  assert.equal((await tx.getTaskLockingRun(t.taskId, held.workflowId))?.taskId, t.taskId);
                  return member(held.workflowId, 1)(tx);
                },
            GROUPED,
          );
          out = await within(
            Promise.all(others.map((r, i) => store.transaction(member(r.workflowId, i), GROUPED))),
          );
        } finally {
          holder.release();
        }
        assert.ok(out, 'the others committed while the lock was held');
        for (const o of out) assert.ok(await taskExists(o.taskId));
        await holder.ended;
        assert.ok(await taskExists((await lockedOut).taskId), 'the member that left committed');
        const d = delta(before);
        assert.equal(d.batches, 1);
        assert.equal(d.members, 3);
        assert.equal(d.elsewhere, 1);
        assert.equal(d.evicted, 0);
        assert.equal(d.fallbacks, 0);
      });
    }

    it('a member turned away by a run locked elsewhere joins the next batch, and runs alone after three times', async (t) => {
      // With time standing still no batch counts as held up, so each companion waits for the
      // batch in flight and shares the next with the member turned away, however slow the
      // machine (a real clock let a companion start a batch of its own beside a slow one).
      const stopped = performance.now();
      clock = () => stopped;
      t.after(() => {
        clock = () => performance.now();
      });
      const [held, ...companions] = await runs(5);
      assert.ok(held);
      const holder = await holdRun(held.workflowId);
      const before = stats();
      let attempts = 0;
      const alone = signal();
      const companionsDone: Array<Promise<{ taskId: string }>> = [];
      const companion = (i: number) => {
        const c = companions[i];
        assert.ok(c);
        companionsDone.push(store.transaction(member(c.workflowId, 0), GROUPED));
      };
      let lockedOut: Promise<{ taskId: string }> | undefined;
      try {
        // Attempts 1 to 4 each share a batch with a companion that arrived meanwhile; the fifth
        // runs alone and waits for the lock.
        lockedOut = store.transaction(async (tx) => {
          attempts++;
          if (attempts <= 3) companion(attempts);
          if (attempts === 5) alone.resolve();
          return member(held.workflowId, 1)(tx);
        }, GROUPED);
        companion(0);
        assert.equal(await within(alone.promise.then(() => true)), true, 'it ran alone in the end');
      } finally {
        holder.release();
      }
      await holder.ended;
      assert.ok(await taskExists((await lockedOut).taskId));
      for (const c of await Promise.all(companionsDone)) assert.ok(await taskExists(c.taskId));
      assert.equal(attempts, 5);
      const d = delta(before);
      assert.deepEqual([d.batches, d.members, d.elsewhere, d.evicted, d.fallbacks], [4, 8, 4, 0, 0]);
    });

    it('a member that has written waits inside its batch for a run locked elsewhere, as leaving would roll the batch back', async () => {
      const [held, own, other] = await runs(3);
      assert.ok(held && own && other);
      const holder = await holdRun(held.workflowId);
      const before = stats();
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      let out: Array<{ taskId: string }>;
      try {
        const both = Promise.all([
          // Its own run first, a task of it (a deferred write), then the run held elsewhere.
          store.transaction(
            member(own.workflowId, 0, async (tx) => {
              assert.equal((await tx.lockRun(held.workflowId))?.workflowId, held.workflowId);
            }),
            GROUPED,
          ),
          store.transaction(member(other.workflowId, 0), GROUPED),
        ]);
        await waitFor(
          async () =>
            ((await client.query("SELECT 1 FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted"))
              .rowCount ?? 0) > 0 || undefined,
          { timeoutMs: 10_000, intervalMs: 20, what: 'the batch waiting for the lock held elsewhere' },
        );
        holder.release();
        out = await both;
      } finally {
        holder.release();
        await client.end();
      }
      await holder.ended;
      for (const o of out) assert.ok(await taskExists(o.taskId));
      assert.deepEqual(delta(before), counted({ batches: 1, members: 2 }));
    });

    it('a member of a batch that locks a run that does not exist reads it as missing', async () => {
      const [r] = await runs(1);
      assert.ok(r);
      const before = stats();
      const [missing, own] = await Promise.all([
        store.transaction((tx) => tx.lockRun(uid('no-such-run-')), GROUPED),
        store.transaction(member(r.workflowId, 0), GROUPED),
      ]);
      assert.equal(missing, undefined);
      assert.ok(await taskExists(own.taskId));
      const d = delta(before);
      assert.equal(d.batches, 1);
      assert.equal(d.elsewhere, 0);
    });

    it('a committed batch answers its members once the next batch has begun', async () => {
      const rs = await runs(4);
      const events: string[] = [];
      const inside = [signal(), signal()];
      const go = signal();
      // Two members make the first batch and stay in it until told.
      const first = rs.slice(0, 2).map((r, i) =>
        store
          .transaction(
            member(r.workflowId, i, async () => {
              inside[i]?.resolve();
              await go.promise;
            }),
            GROUPED,
          )
          .then(() => events.push(`answered ${i}`)),
      );
      await Promise.all(inside.map((s) => s.promise));
      // Two more arrive while it is in flight: they wait to be the next batch.
      const next = rs.slice(2).map((r, i) =>
        store
          .transaction(async (tx) => {
            events.push(`began ${i + 2}`);
            return member(r.workflowId, i + 2)(tx);
          }, GROUPED)
          .then(() => events.push(`answered ${i + 2}`)),
      );
      go.resolve();
      await Promise.all([...first, ...next]);
      const at = (e: string) => events.indexOf(e);
      for (const answered of ['answered 0', 'answered 1'])
        for (const began of ['began 2', 'began 3'])
          assert.ok(at(began) < at(answered), `${began} before ${answered}: ${events.join(', ')}`);
    });
    it('a lone transaction runs as it would without group commit', async () => {
      const [r] = await runs(1);
      assert.ok(r);
      const before = stats();
      const o = await store.transaction(member(r.workflowId, 0), GROUPED);
      assert.ok(await taskExists(o.taskId));
      assert.deepEqual(delta(before), counted({}));
    });

    it('its counts are Prometheus counters', async () => {
      const metrics = new Metrics(undefined, () => store.group?.stats);
      const text = await metrics.registry.metrics();
      const s = stats();
      for (const [count, value] of Object.entries(s))
        assert.match(text, new RegExp(`baton_db_group_commit_total\\{count="${count}"\\} ${value}\\n`));
      assert.ok(
        s.batches > 0 && s.members > s.batches && s.fallbacks > 0 && s.evicted > 0 && s.elsewhere > 0,
      );
    });
  });
}
