import { mkdirSync } from 'node:fs';
import path from 'node:path';

import { openPostgresStore } from './store-postgres/postgres-store.js';
import { openSqliteStore } from './store-sqlite/sqlite-store.js';
import type { Store } from './store/store.js';

export interface OpenStoreOptions {
  /** postgres:// or postgresql:// selects PostgreSQL; otherwise SQLite under dataDir. */
  databaseUrl?: string;
  dataDir: string;
  poolSize?: number;
  /** PostgreSQL connection and statement bounds (postgres-store.ts). */
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  /** Told of connection errors the store recovers from by itself (a log line). */
  onError?: (err: Error) => void;
  /** Members of one PostgreSQL group commit at most; 1 turns it off (default 64). */
  groupCommit?: number;
  sqliteSynchronous?: 'FULL' | 'NORMAL';
}

export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url);
}

/** Opens the configured store. It does not migrate: the caller runs `migrate()`. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if (isPostgresUrl(options.databaseUrl)) {
    return openPostgresStore({
      url: options.databaseUrl,
      ...(options.poolSize !== undefined && { poolSize: options.poolSize }),
      ...(options.connectTimeoutMs !== undefined && { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.statementTimeoutMs !== undefined && { statementTimeoutMs: options.statementTimeoutMs }),
      ...(options.onError !== undefined && { onError: options.onError }),
      ...(options.groupCommit !== undefined && {
        groupCommit: options.groupCommit <= 1 ? false : { maxBatch: options.groupCommit },
      }),
    });
  }
  mkdirSync(options.dataDir, { recursive: true });
  const store = openSqliteStore({
    file: path.join(options.dataDir, 'baton.db'),
    ...(options.sqliteSynchronous !== undefined && { synchronous: options.sqliteSynchronous }),
  });
  return Promise.resolve(store);
}
