import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { openPostgresStore } from '../../src/store-postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, enabledStores } from './postgres.js';

export interface OpenedStore {
  /** A migrated store on a fresh, empty database. */
  store: Store;
  /** PostgreSQL only: the database's URL, to open more stores ("nodes") on it. */
  url?: string;
  /** SQLite only: the database file. */
  file?: string;
  /** Closes the store and drops the database (or removes the file). */
  cleanup(): Promise<void>;
}

export interface StoreCase {
  name: 'sqlite' | 'postgres';
  open(): Promise<OpenedStore>;
}

/**
 * One case per enabled store (`BATON_TEST_STORES`, default both):
 * `for (const c of storeCases()) describe(c.name, () => { … await c.open() … })`.
 */
export function storeCases(): StoreCase[] {
  const cases: Record<'sqlite' | 'postgres', StoreCase> = {
    sqlite: {
      name: 'sqlite',
      open: async () => {
        const dir = await mkdtemp(path.join(tmpdir(), 'baton-store-'));
        const file = path.join(dir, 'baton.db');
        // NORMAL: tests need no power-loss durability, and FULL fsyncs every commit.
        const store = openSqliteStore({ file, synchronous: 'NORMAL' });
        await store.migrate();
        return {
          store,
          file,
          cleanup: async () => {
            await store.close();
            await rm(dir, { recursive: true, force: true });
          },
        };
      },
    },
    postgres: {
      name: 'postgres',
      open: async () => {
        const db = await createTestDatabase();
        const store = openPostgresStore({ url: db.url, poolSize: 5 });
        await store.migrate();
        return {
          store,
          url: db.url,
          cleanup: async () => {
            await store.close();
            await db.drop();
          },
        };
      },
    },
  };
  return enabledStores().map((name) => cases[name]);
}
