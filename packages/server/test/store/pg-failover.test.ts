import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import pg from 'pg';

import { openPostgresStore } from '../../src/store-postgres/postgres-store.js';
import { PgTargets, splitHosts } from '../../src/store-postgres/targets.js';
import { storeFault } from '../../src/store/store-faults.js';
import { freePort, waitFor } from '../helpers/baton-process.js';
import { enabledStores } from '../helpers/postgres.js';
import { startPrivateCluster } from '../helpers/private-postgres.js';

void describe('PostgreSQL multi-host URLs', () => {
  void it('splits the hosts in order, keeps the rest, and reads target_session_attrs', () => {
    const parsed = splitHosts(
      'postgres://u:p%40ss@db1:5432,db2:6432,[::1]:5433/baton?sslmode=disable&target_session_attrs=read-write',
    );
    assert.deepEqual(parsed.urls, [
      'postgres://u:p%40ss@db1:5432/baton?sslmode=disable',
      'postgres://u:p%40ss@db2:6432/baton?sslmode=disable',
      'postgres://u:p%40ss@[::1]:5433/baton?sslmode=disable',
    ]);
    assert.deepEqual(parsed.names, ['db1:5432', 'db2:6432', '[::1]:5433']);
    assert.equal(parsed.readWrite, true);
    assert.equal(splitHosts('postgres://db/x?target_session_attrs=primary').readWrite, true);
    const one = splitHosts('postgresql://db:5432/x');
    assert.deepEqual(one.urls, ['postgresql://db:5432/x']);
    assert.equal(one.readWrite, false);
  });

  void it('moves on to the next host only from the one that failed', () => {
    const targets = new PgTargets('postgres://a:1,b:2,c:3/x');
    assert.equal(targets.current, 0);
    targets.failed(0);
    assert.equal(targets.current, 1);
    targets.failed(0); // a late report about the first host changes nothing
    assert.equal(targets.current, 1);
    targets.failed(1);
    targets.failed(2);
    assert.equal(targets.current, 0);
  });

  if (!enabledStores().includes('postgres')) return;

  void it(
    'with target_session_attrs=read-write: skips a standby and an unreachable host, and follows a failover to the promoted standby',
    { timeout: 120_000 },
    async () => {
      const primary = await startPrivateCluster();
      let standby: Awaited<ReturnType<typeof startPrivateCluster>> | undefined;
      let store: ReturnType<typeof openPostgresStore> | undefined;
      try {
        const admin = new pg.Client({ connectionString: primary.url });
        await admin.connect();
        await admin.query('CREATE DATABASE baton');
        await admin.end();
        standby = await startPrivateCluster({ standbyOf: primary });
        const dead = await freePort();
        // The standby first and a host nobody listens on: neither may take the node's writes.
        const url = `postgres://postgres@127.0.0.1:${standby.port},127.0.0.1:${dead},127.0.0.1:${primary.port}/baton?target_session_attrs=read-write`;
        store = openPostgresStore({
          url,
          connectTimeoutMs: 1_000,
          statementTimeoutMs: 2_000,
          onError: () => {},
        });
        await store.migrate();
        const now = Date.now();
        const def = {
          name: 'before_failover',
          retryCount: 0,
          ownerEmail: 'a@b.c',
          createTime: now,
          updateTime: now,
        };
        await store.transaction((tx) => tx.upsertTaskDef(def));
        // Replicated to the standby before the primary goes (synchronous replication is the
        // operator's choice for zero loss; here the test waits for it).
        const onStandby = new pg.Client({ connectionString: standby.url.replace(/\/postgres$/, '/baton') });
        await onStandby.connect();
        await waitFor(
          async () =>
            ((await onStandby.query("SELECT 1 FROM task_defs WHERE name = 'before_failover'")).rowCount ??
              0) > 0
              ? true
              : undefined,
          { timeoutMs: 20_000, intervalMs: 50, what: 'the write replicated to the standby' },
        );
        await onStandby.end();

        await primary.crash();
        await standby.promote();
        const s = store;
        const errors: string[] = [];
        await waitFor(
          async () => {
            try {
              await s.transaction((tx) => tx.upsertTaskDef({ ...def, name: 'after_failover' }));
              return true;
            } catch (err) {
              // Until the node finds the new primary, each failure is a database fault (503), nothing else.
              assert.ok(storeFault(err) !== undefined, `not a database fault: ${String(err)}`);
              errors.push(String(err));
              return undefined;
            }
          },
          { timeoutMs: 30_000, intervalMs: 100, what: 'a write on the promoted standby' },
        );
        const names = await s.read(async (tx) => [
          (await tx.getTaskDef('before_failover'))?.name,
          (await tx.getTaskDef('after_failover'))?.name,
        ]);
        assert.deepEqual(names, ['before_failover', 'after_failover']);
      } finally {
        await store?.close();
        await standby?.destroy();
        await primary.destroy();
      }
    },
  );
});
