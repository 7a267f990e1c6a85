import { SQLITE_MIGRATIONS } from './migrations.js';
import { type SqliteConnection, openConnection } from './connection.js';
import { AsyncMutex } from './mutex.js';
import { SqliteTx } from './sqlite-tx.js';
import { WalSync } from './wal-sync.js';
import { type Migration, TxState, checkMigrationList, newerSchemaError } from '../sql-common.js';
import type { Store, Tx } from '../store.js';

export interface SqliteStoreOptions {
  /** Database file, or ':memory:' (tests). */
  file: string;
  /**
   * FULL (default): an acknowledged commit survives a power loss (the WAL is fsynced before a
   * transaction is answered, see wal-sync.ts). NORMAL: may lose the last commits on a power loss.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /** How long a statement waits for another process's lock before SQLITE_BUSY (default 5000 ms). */
  busyTimeoutMs?: number;
  /** Overrides the migration list (tests only). */
  migrations?: readonly Migration[];
}

/**
 * The embedded store: one SQLite file in WAL mode.
 *
 * Writes: one connection, one transaction at a time. `transaction` takes an in-process async
 * mutex, then `BEGIN IMMEDIATE` (which also excludes writers in other processes, waiting up to
 * busy_timeout), so two async transactions never interleave their statements.
 *
 * Reads: a second, read-only connection. In WAL mode it sees only committed rows, so `read`
 * never observes a transaction in flight and never waits for the writer. Each statement sees the
 * latest commit (no snapshot across the statements of one `read`), as on PostgreSQL.
 * ':memory:' databases cannot be shared between connections: there `read` runs on the write
 * connection under the mutex instead.
 *
 * Durability (FULL): a transaction's promise settles, and a read's answer is given, only once the
 * commits it wrote or may have seen are on disk (WalSync, shared fsyncs off the event loop).
 *
 * Do not open two SqliteStores on the same file in one process: better-sqlite3 blocks the thread
 * while it waits for a lock, so the holder could never finish. Do not call `transaction` or
 * `read` from inside a transaction (the mutex is not re-entrant): use the `tx` you were given.
 */
export class SqliteStore implements Store {
  readonly dialect = 'sqlite' as const;
  private readonly writer: SqliteConnection;
  private readonly reader: SqliteConnection | undefined;
  private readonly mutex = new AsyncMutex();
  private readonly migrations: readonly Migration[];
  /** Undefined where nothing needs syncing: NORMAL, or an in-memory database. */
  private readonly walSync: WalSync | undefined = undefined;
  /** The writer's total_changes() at the end of the last transaction: did the next one write? */
  private changesSeen = 0;
  private closed = false;

  constructor(options: SqliteStoreOptions) {
    const settings = {
      synchronous: options.synchronous ?? 'FULL',
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
    } as const;
    this.migrations = options.migrations ?? SQLITE_MIGRATIONS;
    checkMigrationList(this.migrations);
    this.writer = openConnection(options.file, { ...settings, readonly: false });
    const inMemory = options.file === ':memory:' || options.file === '' || this.writer.db.memory;
    this.reader = inMemory ? undefined : openConnection(options.file, { ...settings, readonly: true });
    // FULL on a WAL file: SQLite's own per-COMMIT fsync is replaced by WalSync's shared one.
    // Anything else (NORMAL, memory, a file system where WAL mode was refused) keeps SQLite's setting.
    const walMode = this.writer.db.pragma('journal_mode', { simple: true }) === 'wal';
    if (!inMemory && walMode && settings.synchronous === 'FULL') {
      this.writer.db.pragma('synchronous = NORMAL');
      this.walSync = new WalSync(`${this.writer.db.name}-wal`);
    }
  }

  async migrate(): Promise<void> {
    this.assertOpen();
    await this.mutex.run(async () => {
      const c = this.writer;
      c.db.exec(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`,
      );
      const known = this.migrations.length;
      for (;;) {
        // Re-read the version inside each write transaction: another process may have migrated.
        c.db.exec('BEGIN IMMEDIATE');
        try {
          const current =
            c.get<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations')?.v ?? 0;
          if (current > known) throw newerSchemaError('SQLite', current, known);
          const next = this.migrations[current];
          if (next === undefined) {
            c.db.exec('COMMIT');
            return;
          }
          try {
            c.db.exec(next.sql);
          } catch (err) {
            throw new Error(`SQLite migration ${next.version} (${next.name}) failed: ${String(err)}`, {
              cause: err,
            });
          }
          c.run(
            `INSERT INTO schema_migrations (version, name, applied_at)
             VALUES (?, ?, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))`,
            next.version,
            next.name,
          );
          c.db.exec('COMMIT');
          this.walSync?.committed();
        } catch (err) {
          if (c.db.inTransaction) c.db.exec('ROLLBACK');
          throw err;
        }
        await Promise.resolve();
      }
    });
    this.changesSeen = this.totalChanges();
    await this.walSync?.durable(this.walSync.lastWritten);
  }

  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    this.assertOpen();
    const walSync = this.walSync;
    let commit = 0;
    try {
      return await this.mutex.run(async () => {
        this.assertOpen();
        walSync?.check();
        const c = this.writer;
        const state = new TxState(true);
        c.run('BEGIN IMMEDIATE');
        try {
          const answer = await fn(new SqliteTx(c, state));
          state.closed = true;
          // A transaction that changed no row wrote nothing to the WAL: no new sync for it.
          const wrote = walSync !== undefined && this.totalChanges() !== this.changesSeen;
          c.run('COMMIT');
          if (wrote) commit = walSync.committed();
          return answer;
        } catch (err) {
          state.closed = true;
          // SQLite rolls back by itself on some errors (e.g. SQLITE_FULL); only roll back what is open.
          if (c.db.inTransaction) c.run('ROLLBACK');
          throw err;
        } finally {
          if (walSync !== undefined) {
            this.changesSeen = this.totalChanges();
            // What the transaction read (its answer, or its error) may come from commits still
            // being synced: it waits for those too.
            commit ||= walSync.lastWritten;
          }
        }
      });
    } finally {
      // Outside the mutex: the next transactions run while the WAL is synced, and share the sync.
      // A sync failure replaces the transaction's own outcome: it is not acknowledged.
      if (walSync !== undefined) await walSync.durable(commit);
    }
  }

  async read<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    this.assertOpen();
    const reader = this.reader;
    if (reader === undefined) return this.mutex.run(() => this.readOn(this.writer, fn));
    try {
      return await this.readOn(reader, fn);
    } finally {
      // The reader sees commits whose sync may still run: answer only what is durable.
      if (this.walSync !== undefined) await this.walSync.durable(this.walSync.lastWritten);
    }
  }

  /** Rows changed by the writer since it opened (SQLite's counter, rolled-back changes included). */
  private totalChanges(): number {
    return this.writer.get<{ n: number }>('SELECT total_changes() AS n')?.n ?? 0;
  }

  private async readOn<T>(c: SqliteConnection, fn: (tx: Tx) => Promise<T>): Promise<T> {
    const state = new TxState(false);
    try {
      return await fn(new SqliteTx(c, state));
    } finally {
      state.closed = true;
    }
  }

  onQueueNotification(_listener: (queueNames: string[]) => void): () => void {
    return () => {};
  }

  async ping(): Promise<void> {
    this.assertOpen();
    (this.reader ?? this.writer).get('SELECT 1 AS ok');
    return Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Wait for the transaction in flight (and those queued before close) to finish.
    await this.mutex.run(async () => {
      await this.walSync?.close();
      this.reader?.close();
      this.writer.close();
    });
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store: the SQLite store is closed');
  }
}

export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(options);
}
