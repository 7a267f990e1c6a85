import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import pg from 'pg';
import { pino } from 'pino';

import { openPostgresStore } from '../../src/store-postgres/postgres-store.js';
import { settingWarnings } from '../../src/store-postgres/server-settings.js';
import { openSqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import { testApp } from '../helpers/app.js';
import { startPrivateCluster, type PrivateCluster } from '../helpers/private-postgres.js';

/**
 * A PostgreSQL server that never reclaims dead row versions (autovacuum off, or the row counts it
 * decides by off) lets Baton's task and queue tables grow by every version a step leaves: the
 * node says so when it starts, once per setting, and starts all the same.
 */
void describe('the PostgreSQL settings a node warns about', () => {
  void it('autovacuum or track_counts off is one warning each; on (or unknown) is none', () => {
    assert.deepEqual(settingWarnings({ autovacuum: 'on', track_counts: 'on' }), []);
    assert.deepEqual(settingWarnings({}), []);
    const [autovacuum, ...rest] = settingWarnings({ autovacuum: 'off', track_counts: 'on' });
    assert.equal(rest.length, 0);
    assert.match(autovacuum ?? '', /autovacuum is off.*VACUUM.*docs\/operations\.md/);
    const both = settingWarnings({ autovacuum: 'off', track_counts: 'off' });
    assert.equal(both.length, 2);
    assert.match(both[1] ?? '', /track_counts is off/);
  });

  void it('SQLite has nothing to warn about', async () => {
    const store = openSqliteStore({ file: ':memory:' });
    try {
      await store.migrate();
      assert.deepEqual(await store.settingWarnings(), []);
    } finally {
      await store.close();
    }
  });

  void describe('on a server of the test’s own', () => {
    let cluster: PrivateCluster;
    let admin: pg.Client;

    before(async () => {
      cluster = await startPrivateCluster();
      admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
    });

    after(async () => {
      await admin?.end();
      await cluster?.destroy();
    });

    /** ALTER SYSTEM and a reload: both settings take effect without a restart. */
    async function set(name: 'autovacuum' | 'track_counts', value: 'on' | 'off'): Promise<void> {
      await admin.query(`ALTER SYSTEM SET ${name} = ${value}`);
      await admin.query('SELECT pg_reload_conf()');
      // The postmaster rereads its files on SIGHUP; a new session sees the value once it has.
      for (let i = 0; i < 200; i++) {
        const probe = new pg.Client({ connectionString: cluster.url });
        await probe.connect();
        const { rows } = await probe.query<{ setting: string }>(
          `SELECT current_setting('${name}') AS setting`,
        );
        await probe.end();
        if (rows[0]?.setting === value) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`${name} did not become ${value}`);
    }

    void it('the store reads the server’s settings as they are now', async () => {
      const store = openPostgresStore({ url: cluster.url, poolSize: 2 });
      try {
        await store.migrate();
        assert.deepEqual(await store.settingWarnings(), []);
        await set('autovacuum', 'off');
        const off = await store.settingWarnings();
        assert.equal(off.length, 1);
        assert.match(off[0] ?? '', /autovacuum is off/);
        await set('track_counts', 'off');
        assert.equal((await store.settingWarnings()).length, 2);
      } finally {
        await set('autovacuum', 'on');
        await set('track_counts', 'on');
        await store.close();
      }
    });

    /** The JSON lines a node logs at `warn` and above while it starts. */
    async function startUpWarnings(
      processIndex?: number,
    ): Promise<Array<{ level: number; msg: string; store?: string }>> {
      const lines: Array<{ level: number; msg: string; store?: string }> = [];
      // pino writes each line with one call, as the liveness tests read it.
      const sink = { write: (line: string) => lines.push(JSON.parse(line) as (typeof lines)[number]) };
      const store = openPostgresStore({ url: cluster.url, poolSize: 2 });
      const app = await testApp(store, {
        logger: pino({ level: 'warn' }, sink),
        ...(processIndex !== undefined && { processIndex }),
      });
      try {
        const health = await app.app.inject({ method: 'GET', url: '/health' });
        assert.equal(health.statusCode, 200);
      } finally {
        await app.close();
        await store.close();
      }
      return lines;
    }

    void it('a node started on a server with autovacuum off logs the warning once and serves', async () => {
      await set('autovacuum', 'off');
      try {
        const lines = await startUpWarnings();
        const warned = lines.filter((l) => /autovacuum is off/.test(l.msg));
        assert.equal(warned.length, 1, JSON.stringify(lines));
        assert.equal(warned[0]?.level, 40);
        assert.equal(warned[0]?.store, 'postgres');
        // Of a BATON_PROCESSES group only the first process says it.
        assert.equal((await startUpWarnings(1)).filter((l) => /autovacuum/.test(l.msg)).length, 1);
        assert.deepEqual(
          (await startUpWarnings(2)).filter((l) => /autovacuum/.test(l.msg)),
          [],
        );
      } finally {
        await set('autovacuum', 'on');
      }
      assert.deepEqual(
        (await startUpWarnings()).filter((l) => /autovacuum/.test(l.msg)),
        [],
      );
    });
  });
});
