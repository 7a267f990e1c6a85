import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import pg from 'pg';

import { POSTGRES_MIGRATIONS } from '../../src/store-postgres/migrations.js';
import { openPostgresStore } from '../../src/store-postgres/postgres-store.js';
import type { Migration } from '../../src/store/sql-common.js';
import { SQLITE_MIGRATIONS } from '../../src/store-sqlite/migrations.js';
import { openSqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { type OpenedStore, storeCases } from '../helpers/stores.js';
import { run } from './fixtures.js';

/**
 * Rolling upgrades at the store: a node of an earlier release starts on a schema newer only by
 * steps declared compatible with it and keeps reading and writing; the declarations are recorded.
 */

/** A later release's expand step: a new table and a new nullable column on a hot table. */
function expandStep(base: readonly Migration[]): Migration {
  const latest = base.at(-1)!.version;
  return {
    version: latest + 2, // numbers need not be contiguous
    name: 'future-expand',
    compatibleFrom: latest,
    sql: 'CREATE TABLE future_notes (id TEXT PRIMARY KEY); ALTER TABLE runs ADD COLUMN future_note TEXT;',
  };
}

async function declarations(h: OpenedStore): Promise<Array<[number, number | null]>> {
  if (h.url !== undefined) {
    const client = new pg.Client({ connectionString: h.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number; compatible_from: number | null }>(
        'SELECT version, compatible_from FROM schema_migrations ORDER BY version',
      );
      return rows.map((r) => [r.version, r.compatible_from]);
    } finally {
      await client.end();
    }
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(h.file, { readonly: true });
  try {
    const rows = db
      .prepare('SELECT version, compatible_from FROM schema_migrations ORDER BY version')
      .all() as Array<{ version: number; compatible_from: number | null }>;
    return rows.map((r) => [r.version, r.compatible_from]);
  } finally {
    db.close();
  }
}

for (const c of storeCases()) {
  const base = c.name === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS;
  const open = (h: OpenedStore, migrations: readonly Migration[]): Store =>
    h.url !== undefined
      ? openPostgresStore({ url: h.url, migrations, poolSize: 2 })
      : openSqliteStore({ file: h.file!, migrations, synchronous: 'NORMAL' });

  void describe(`schema compatibility (${c.name})`, () => {
    void it('records what each step declares; steps from before the declarations claim only themselves', async () => {
      const h = await c.open();
      try {
        const bookkeeping = base.find((m) => m.name === 'schema-compatibility')!;
        assert.deepEqual(
          await declarations(h),
          base.map((m) => [m.version, m.version < bookkeeping.version ? m.version : m.compatibleFrom]),
        );
      } finally {
        await h.cleanup();
      }
    });

    void it('an earlier node starts on a schema newer only by a compatible step, and reads and writes', async () => {
      const h = await c.open();
      try {
        const before = run();
        await h.store.transaction((tx) => tx.insertRun(before));
        await h.store.close();
        const step = expandStep(base);
        const newer = open(h, [...base, step]);
        await newer.migrate();
        await newer.close();
        assert.deepEqual((await declarations(h)).at(-1), [step.version, step.compatibleFrom]);

        const earlier = open(h, base);
        try {
          await earlier.migrate(); // starts: applies nothing, refuses nothing
          const written = run();
          await earlier.transaction((tx) => tx.insertRun(written));
          for (const r of [before, written])
            assert.equal((await earlier.read((tx) => tx.getRun(r.workflowId)))?.workflowId, r.workflowId);
        } finally {
          await earlier.close();
        }
        assert.deepEqual((await declarations(h)).at(-1), [step.version, step.compatibleFrom]);
      } finally {
        await h.cleanup();
      }
    });
  });
}

if (storeCases().some((c) => c.name === 'postgres')) {
  void describe('schema compatibility (postgres): a node migrating beside a running one', () => {
    void it('leaves the running node working through the migration', async () => {
      const pgCase = storeCases().find((c) => c.name === 'postgres')!;
      const h = await pgCase.open();
      const step = expandStep(POSTGRES_MIGRATIONS);
      const newer = openPostgresStore({
        url: h.url!,
        migrations: [...POSTGRES_MIGRATIONS, step],
        poolSize: 2,
      });
      try {
        // The running node writes and reads continuously while the other migrates.
        let migrated = false;
        let writesAfter = 0;
        const running = (async () => {
          while (writesAfter < 3) {
            const done = migrated;
            const r = run();
            await h.store.transaction((tx) => tx.insertRun(r));
            assert.ok(await h.store.read((tx) => tx.getRun(r.workflowId)));
            if (done) writesAfter++;
          }
        })();
        await newer.migrate();
        migrated = true;
        await running;
        await newer.transaction((tx) => tx.insertRun(run()));
        assert.deepEqual((await declarations(h)).at(-1), [step.version, step.compatibleFrom]);
      } finally {
        await newer.close();
        await h.cleanup();
      }
    });
  });
}
