import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { RunRecord } from '@baton/protocol';
import pg from 'pg';

import { POSTGRES_MIGRATIONS } from '../../src/store-postgres/migrations.js';
import { openPostgresStore, type PostgresStore } from '../../src/store-postgres/postgres-store.js';
import { SQLITE_MIGRATIONS } from '../../src/store-sqlite/migrations.js';
import type { ClaimRequest, Store, Tx } from '../../src/store/store.js';
import { type OpenedStore, storeCases } from '../helpers/stores.js';
import { T0, enqueueTasks, message, run, signal, sleep, task, uid, workflowDef } from './fixtures.js';

const claimOf = (queueNames: string[]): ClaimRequest => ({
  queueNames,
  count: 1,
  now: T0,
  workerId: 'w',
  lockToken: uid('lock-'),
});

for (const c of storeCases()) {
  void describe(`store transactions (${c.name})`, () => {
    let h: OpenedStore;
    let store: Store;
    /** A second store on the same database (PostgreSQL: another node); SQLite: the same store. */
    let other: Store;
    before(async () => {
      h = await c.open();
      store = h.store;
      other = h.url !== undefined ? openPostgresStore({ url: h.url, poolSize: 3 }) : store;
    });
    after(async () => {
      if (other !== store) await other.close();
      await h.cleanup();
    });

    void it('rolls back everything when the function throws', async () => {
      const r = run();
      const t = task(r.workflowId, 0);
      const q = uid('q-');
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.insertRun(r);
          await tx.insertTasks([t]);
          await tx.enqueue([message(q, { taskId: t.taskId, workflowId: r.workflowId })], T0);
          await tx.appendTaskLogs([{ taskId: t.taskId, log: 'x', createdTime: T0 }]);
          await tx.upsertTaskDef({ name: q, createTime: T0, updateTime: T0 });
          throw new Error('boom');
        }),
        /boom/,
      );
      await store.read(async (tx) => {
        assert.equal(await tx.getRun(r.workflowId), undefined);
        assert.equal(await tx.getTask(t.taskId), undefined);
        assert.equal(await tx.getMessage(t.taskId), undefined);
        assert.deepEqual(await tx.getTaskLogs(t.taskId), []);
        assert.equal(await tx.getTaskDef(q), undefined);
        assert.ok(!(await tx.listQueues()).includes(q));
      });
      // The store is usable afterwards.
      await store.transaction((tx) => tx.insertRun(r));
      assert.equal((await store.read((tx) => tx.getRun(r.workflowId)))?.workflowId, r.workflowId);
    });

    void it('a write whose check fails at commit (deferred on PostgreSQL) rolls back everything before it', async () => {
      const r = run();
      const t = task(r.workflowId, 0);
      const q = uid('q-');
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.insertRun(r);
          await tx.insertTasks([t]);
          await tx.enqueue([message(q, { taskId: t.taskId, workflowId: r.workflowId })], T0);
          await tx.updateRun(run()); // no such run: its check fails
        }),
        /updateRun: no run/,
      );
      await store.read(async (tx) => {
        assert.equal(await tx.getRun(r.workflowId), undefined);
        assert.equal(await tx.getTask(t.taskId), undefined);
        assert.equal(await tx.getMessage(t.taskId), undefined);
      });
    });

    void it('reads inside a transaction see its own earlier writes, quotes and all', async () => {
      const r = run();
      const awkward = `it's a "quote" \\ back\\slash, {brace}, $1 and ünïcode`;
      const t = task(r.workflowId, 0, { inputData: { awkward, list: [awkward, null, 3] } });
      const q = uid("q-'");
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertTasks([t]);
        await tx.enqueue([message(q, { taskId: t.taskId, workflowId: r.workflowId })], T0);
        assert.deepEqual((await tx.getTask(t.taskId))?.inputData, { awkward, list: [awkward, null, 3] });
        assert.equal((await tx.getMessage(t.taskId))?.queueName, q);
        await tx.updateTasks([{ ...t, status: 'IN_PROGRESS', outputData: { awkward } }]);
        await tx.dropTimers({ workflowId: r.workflowId, taskIds: [t.taskId] });
      });
      const stored = await store.read((tx) => tx.getTask(t.taskId));
      assert.equal(stored?.status, 'IN_PROGRESS');
      assert.deepEqual(stored?.outputData, { awkward });
    });

    // What a transaction reads task definitions after: a run lock (a decision), a workflow
    // definition (a start), a claim (a hand-out). On PostgreSQL each also reads the definitions'
    // change counter, which lets the node's cache answer.
    const readers: Array<[string, (tx: Tx, r: RunRecord, name: string) => Promise<void>]> = [
      ['under a run lock', async (tx, r) => void (await tx.lockRun(r.workflowId))],
      ['after a workflow definition', async (tx, r) => void (await tx.getWorkflowDef(r.workflowName))],
      [
        'after a claim',
        async (tx, r, name) => {
          const m = message(`${name}-q`, { taskId: uid('t-'), workflowId: r.workflowId });
          await enqueueTasks(tx, [m], T0 - 1);
          assert.equal((await tx.claim(claimOf([m.queueName]))).length, 1);
        },
      ],
    ];
    for (const [after, readFirst] of readers)
      void it(`task definitions read ${after} follow every change, made here or by another node`, async () => {
        const r = run({ workflowName: uid('wf-') });
        const name = uid('def-');
        await store.transaction(async (tx) => {
          await tx.insertRun(r);
          await tx.insertWorkflowDef(workflowDef(r.workflowName));
        });
        const readAfter = (s: Store) =>
          s.transaction(async (tx) => {
            await readFirst(tx, r, name);
            return (await tx.getTaskDefs([name])).get(name)?.retryCount;
          });
        assert.equal(await readAfter(store), undefined);
        assert.equal(await readAfter(store), undefined, 'known to be missing');
        await other.transaction((tx) =>
          tx.upsertTaskDef({ name, retryCount: 1, createTime: T0, updateTime: T0 }),
        );
        assert.equal(await readAfter(store), 1);
        await other.transaction((tx) =>
          tx.upsertTaskDef({ name, retryCount: 2, createTime: T0, updateTime: T0 }),
        );
        assert.equal(await readAfter(store), 2);
        // A transaction that changes a definition reads its own change.
        const own = await store.transaction(async (tx) => {
          await readFirst(tx, r, name);
          await tx.getTaskDefs([name]);
          await tx.upsertTaskDef({ name, retryCount: 3, createTime: T0, updateTime: T0 });
          await readFirst(tx, r, name);
          return (await tx.getTaskDefs([name])).get(name)?.retryCount;
        });
        assert.equal(own, 3);
        await other.transaction((tx) => tx.deleteTaskDef(name));
        assert.equal(await readAfter(store), undefined);
      });

    // PostgreSQL only: SQLite has one writer, so no other connection changes a definition meanwhile.
    if (c.name === 'postgres')
      void it('a start takes its task definitions from the cache at the counter read with its workflow definition', async () => {
        const r = run({ workflowName: uid('wf-') });
        const name = uid('def-');
        await store.transaction(async (tx) => {
          await tx.insertWorkflowDef(workflowDef(r.workflowName));
          await tx.upsertTaskDef({ name, retryCount: 1, createTime: T0, updateTime: T0 });
        });
        const start = (between: () => Promise<unknown> = async () => {}) =>
          store.transaction(async (tx) => {
            await tx.getWorkflowDef(r.workflowName);
            await between();
            return (await tx.getTaskDefs([name])).get(name)?.retryCount;
          });
        assert.equal(await start(), 1);
        const raw = new pg.Client({ connectionString: h.url });
        await raw.connect();
        try {
          // Changed by another connection after the workflow definition was read: the cache at the
          // counter read with it answers, with no read of the definitions.
          const change = () =>
            raw.query(
              `UPDATE task_defs SET definition = jsonb_set(definition, '{retryCount}', '5') WHERE name = $1`,
              [name],
            );
          assert.equal(await start(change), 1);
          assert.equal(await start(), 5, 'the next start reads the new counter, and the change');
        } finally {
          await raw.end();
        }
      });

    void it('concurrent transactions commit or fail each on its own (SQLite commits them in groups)', async () => {
      const runs = Array.from({ length: 12 }, () => run());
      const outcomes = await Promise.allSettled(
        runs.map((r, i) =>
          store.transaction(async (tx) => {
            await tx.insertRun(r);
            await Promise.resolve();
            if (i % 5 === 2) throw new Error(`no ${i}`);
            if (i === 7) await tx.insertRun(runs[0] as RunRecord); // a failing statement
            return i;
          }),
        ),
      );
      const expectedOk = runs.map((_, i) => i % 5 !== 2 && i !== 7);
      assert.deepEqual(
        outcomes.map((o) => o.status === 'fulfilled'),
        expectedOk,
      );
      outcomes.forEach((o, i) => {
        if (o.status === 'fulfilled') assert.equal(o.value, i);
      });
      const stored = await store.read(async (tx) => Promise.all(runs.map((r) => tx.getRun(r.workflowId))));
      assert.deepEqual(
        stored.map((r) => r !== undefined),
        expectedOk,
      );
    });

    void it('rolls back when a statement fails, and returns the function value on commit', async () => {
      const r = run();
      await store.transaction((tx) => tx.insertRun(r));
      const other2 = run();
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.insertRun(other2);
          await tx.insertRun(r); // duplicate key
        }),
      );
      assert.equal(await store.read((tx) => tx.getRun(other2.workflowId)), undefined);
      assert.equal(await store.transaction(async () => Promise.resolve(42)), 42);
    });

    void it('read() never sees rows of a transaction that has not committed', async () => {
      const r = run();
      const inserted = signal();
      const checked = signal();
      const writer = store.transaction(async (tx) => {
        await tx.insertRun(r);
        inserted.resolve();
        await checked.promise;
      });
      await inserted.promise;
      if (c.name === 'postgres' || h.file !== undefined) {
        assert.equal(await store.read((tx) => tx.getRun(r.workflowId)), undefined);
      }
      checked.resolve();
      await writer;
      assert.equal((await store.read((tx) => tx.getRun(r.workflowId)))?.workflowId, r.workflowId);
    });

    void it('lockRun serialises two transactions on the same run', async () => {
      const r = run();
      await store.transaction((tx) => tx.insertRun(r));
      const events: string[] = [];
      const firstLocked = signal();
      const first = store.transaction(async (tx) => {
        await tx.lockRun(r.workflowId);
        events.push('first locked');
        firstLocked.resolve();
        await sleep(150);
        await tx.updateRun({ ...r, status: 'PAUSED', updateTime: T0 + 1 });
        events.push('first commits');
      });
      await firstLocked.promise;
      const second = other.transaction(async (tx) => {
        const seen = await tx.lockRun(r.workflowId);
        events.push(`second locked, saw ${seen?.status}`);
        await tx.updateRun({ ...r, status: 'RUNNING', updateTime: T0 + 2 });
      });
      await Promise.all([first, second]);
      assert.deepEqual(events, ['first locked', 'first commits', 'second locked, saw PAUSED']);
      assert.equal((await store.read((tx) => tx.getRun(r.workflowId)))?.updateTime, T0 + 2);
    });

    void it('migrate again is a no-op', async () => {
      await store.migrate();
      await store.migrate();
      const versions = await schemaVersions(h);
      const known = c.name === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS;
      assert.deepEqual(
        versions,
        known.map((m) => m.version),
      );
    });

    if (c.name === 'sqlite') {
      void it('onQueueNotification never fires on SQLite, and notifyQueues is accepted', async () => {
        const got: string[][] = [];
        const unsubscribe = store.onQueueNotification((names) => got.push(names));
        await store.transaction((tx) => tx.notifyQueues(['a', 'b']));
        await sleep(20);
        unsubscribe();
        assert.deepEqual(got, []);
      });
    }
  });
}

if (storeCases().some((c) => c.name === 'postgres')) {
  const pgCase = storeCases().find((c) => c.name === 'postgres')!;

  void describe('PostgreSQL only: retries, notifications', () => {
    let h: OpenedStore;
    let a: PostgresStore;
    let b: PostgresStore;
    before(async () => {
      h = await pgCase.open();
      a = openPostgresStore({ url: h.url!, poolSize: 3 });
      b = openPostgresStore({ url: h.url!, poolSize: 3 });
    });
    after(async () => {
      await a.close();
      await b.close();
      await h.cleanup();
    });

    void it('retries a transaction that hit a deadlock, from the start', async () => {
      const r1 = run();
      const r2 = run();
      await a.transaction(async (tx) => {
        await tx.insertRun(r1);
        await tx.insertRun(r2);
      });
      const aHolds = signal();
      const bHolds = signal();
      let attempts = 0;
      const crossed = (
        store: Store,
        firstId: string,
        secondId: string,
        mine: ReturnType<typeof signal>,
        theirs: ReturnType<typeof signal>,
      ) =>
        store.transaction(async (tx) => {
          attempts++;
          const x = await tx.lockRun(firstId);
          mine.resolve();
          await theirs.promise;
          const y = await tx.lockRun(secondId);
          await tx.updateRun({ ...x!, updateTime: x!.updateTime + 1 });
          await tx.updateRun({ ...y!, updateTime: y!.updateTime + 1 });
        });
      await Promise.all([
        crossed(a, r1.workflowId, r2.workflowId, aHolds, bHolds),
        crossed(b, r2.workflowId, r1.workflowId, bHolds, aHolds),
      ]);
      assert.equal(attempts, 3, 'one of the two was rolled back by the deadlock detector and run again');
      const [x, y] = await a.read((tx) => Promise.all([tx.getRun(r1.workflowId), tx.getRun(r2.workflowId)]));
      assert.equal(x?.updateTime, T0 + 2, 'both transactions applied, once each');
      assert.equal(y?.updateTime, T0 + 2);
    });

    void it('retries a transaction that failed with a serialization failure (40001)', async () => {
      const r = run();
      let attempts = 0;
      await a.transaction(async (tx) => {
        attempts++;
        await tx.insertRun({ ...r, updateTime: T0 + attempts });
        if (attempts === 1) throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      });
      assert.equal(attempts, 2);
      assert.equal(
        (await a.read((tx) => tx.getRun(r.workflowId)))?.updateTime,
        T0 + 2,
        'only the second attempt committed',
      );
    });

    void it('classifies a duplicate key as a unique violation, not retryable', async () => {
      const { isRetryable, isUniqueViolation } = await import('../../src/store/sqlstate.js');
      const r = run();
      await a.transaction((tx) => tx.insertRun(r));
      const err = await a
        .transaction((tx) => tx.insertRun(r))
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.equal(isUniqueViolation(err), true);
      assert.equal(isRetryable(err), false);
    });

    void it('delivers committed notifications to other nodes, deduplicated, and nothing on rollback', async () => {
      const got: string[][] = [];
      const unsubscribe = a.onQueueNotification((names) => got.push(names));
      await a.listening();
      await assert.rejects(
        b.transaction(async (tx) => {
          await tx.notifyQueues(['rolled-back']);
          throw new Error('no');
        }),
      );
      await b.transaction(async (tx) => {
        await tx.ensureQueues(['q1'], T0);
        return Promise.resolve();
      });
      await b.transaction(async (tx) => {
        await tx.notifyQueues(['q2', 'q1']);
        await tx.notifyQueues(['q1']);
      });
      await waitFor(() => got.length > 0);
      await sleep(50);
      unsubscribe();
      assert.deepEqual(got, [['q1', 'q2']]);
      // After unsubscribing, nothing more arrives.
      await b.transaction((tx) => tx.notifyQueues(['q3']));
      await sleep(50);
      assert.deepEqual(got, [['q1', 'q2']]);
    });

    void it('re-listens after the connection drops and then says "re-check everything" ([])', async () => {
      const got: string[][] = [];
      const unsubscribe = a.onQueueNotification((names) => got.push(names));
      await a.listening();
      const admin = new pg.Client({ connectionString: h.url });
      await admin.connect();
      try {
        const { rowCount } = await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE application_name = 'baton-queue-listener' AND datname = current_database()`,
        );
        assert.ok((rowCount ?? 0) >= 1);
      } finally {
        await admin.end();
      }
      // [] at once on the loss (long polls look again), and again once it listens anew.
      await waitFor(() => got.some((names) => names.length === 0));
      await a.listening();
      await waitFor(() => got.filter((names) => names.length === 0).length >= 2);
      await b.transaction((tx) => tx.notifyQueues(['after-reconnect']));
      await waitFor(() => got.some((names) => names.includes('after-reconnect')));
      unsubscribe();
    });
  });

  void describe('PostgreSQL only: NOTIFY only when another node listens', () => {
    void it('a lone node sends none; a node that starts is notified from its hello on, not from the next check', async () => {
      const { createTestDatabase } = await import('../helpers/postgres.js');
      const db = await createTestDatabase();
      // A check's answer holds for a minute: only the hello can make the first node notify.
      const first = openPostgresStore({ url: db.url, peerCheckMs: 60_000 });
      let second: PostgresStore | undefined;
      try {
        await first.migrate();
        const unsubscribe = first.onQueueNotification(() => {});
        await first.listening();
        await first.transaction((tx) => tx.notifyQueues(['alone']));
        await first.notificationsSent();
        assert.deepEqual(first.notifyStats, { sent: 0, skipped: 1 });

        second = openPostgresStore({ url: db.url });
        const got: string[] = [];
        second.onQueueNotification((names) => got.push(...names));
        await second.listening();
        // The hello travels by itself: commit until a notification arrives, within a bound.
        const deadline = Date.now() + 5_000;
        for (let i = 0; !got.includes(`q${i - 1}`); i++) {
          assert.ok(Date.now() < deadline, 'the first node notified the second within 5 s');
          await first.transaction((tx) => tx.notifyQueues([`q${i}`]));
          await first.notificationsSent();
          await sleep(10);
        }
        assert.ok(first.notifyStats.sent >= 1);
        unsubscribe();
      } finally {
        await first.close();
        await second?.close();
        await db.drop();
      }
    });

    void it('a node finds another one already listening by its check', async () => {
      const { createTestDatabase } = await import('../helpers/postgres.js');
      const db = await createTestDatabase();
      const listening = openPostgresStore({ url: db.url });
      const sender = openPostgresStore({ url: db.url });
      try {
        await listening.migrate();
        const got: string[] = [];
        const unsubscribe = listening.onQueueNotification((names) => got.push(...names));
        await listening.listening();
        await sender.transaction((tx) => tx.notifyQueues(['heard']));
        await sender.notificationsSent();
        assert.deepEqual(sender.notifyStats, { sent: 1, skipped: 0 });
        await waitFor(() => got.includes('heard'));
        unsubscribe();
      } finally {
        await listening.close();
        await sender.close();
        await db.drop();
      }
    });
  });

  void describe('PostgreSQL only: migrations', () => {
    void it('two nodes migrating one fresh database at once both succeed and apply the schema once', async () => {
      const { createTestDatabase } = await import('../helpers/postgres.js');
      const db = await createTestDatabase();
      const nodes = Array.from({ length: 4 }, () => openPostgresStore({ url: db.url, poolSize: 2 }));
      try {
        await Promise.all(nodes.map((n) => n.migrate()));
        assert.deepEqual(
          await schemaVersions({ url: db.url }),
          POSTGRES_MIGRATIONS.map((m) => m.version),
        );
        await nodes[0]!.transaction((tx) => tx.insertRun(run()));
      } finally {
        await Promise.all(nodes.map((n) => n.close()));
        await db.drop();
      }
    });
  });
}

for (const c of storeCases()) {
  void describe(`store schema versions (${c.name})`, () => {
    void it('applies a pending migration once, and a store that does not know it refuses to start', async () => {
      const h = await c.open();
      try {
        const { SQLITE_MIGRATIONS } = await import('../../src/store-sqlite/migrations.js');
        const { POSTGRES_MIGRATIONS } = await import('../../src/store-postgres/migrations.js');
        const { openSqliteStore } = await import('../../src/store-sqlite/sqlite-store.js');
        const base = c.name === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS;
        const latest = base.at(-1)!.version;
        // A step that claims no compatibility with earlier code (compatibleFrom = its own version).
        const extra = {
          version: latest + 1,
          name: 'extra',
          compatibleFrom: latest + 1,
          sql: 'CREATE TABLE extra_t (id INTEGER)',
        };
        const next = [...base, extra];
        const open = (migrations: typeof base): Store =>
          h.url !== undefined
            ? openPostgresStore({ url: h.url, migrations })
            : openSqliteStore({ file: h.file!, migrations });
        await h.store.close();
        const newer = open(next);
        await newer.migrate();
        await newer.migrate();
        await newer.close();
        assert.deepEqual(await schemaVersions(h), [...base.map((m) => m.version), latest + 1]);

        const older = open(base);
        try {
          await assert.rejects(
            older.migrate(),
            new RegExp(
              `schema version ${latest + 1}, newer than this Baton's ${latest}.*upgrade this node.*refusing to start`,
            ),
          );
        } finally {
          await older.close();
        }
      } finally {
        await h.cleanup();
      }
    });
  });
}

async function schemaVersions(where: { url?: string; file?: string }): Promise<number[]> {
  if (where.url !== undefined) {
    const client = new pg.Client({ connectionString: where.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number }>(
        'SELECT version FROM schema_migrations ORDER BY version',
      );
      return rows.map((r) => r.version);
    } finally {
      await client.end();
    }
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(where.file, { readonly: true });
  try {
    return (
      db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as Array<{ version: number }>
    ).map((r) => r.version);
  } finally {
    db.close();
  }
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await sleep(10);
  }
}
