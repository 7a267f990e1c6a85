import { CommitBatch } from './commit-batch.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import type { LatestByNameMode } from '../store/latest-by-name.js';
import { type SqliteConnection, openConnection } from './connection.js';
import { AsyncMutex } from './mutex.js';
import { SqliteTx } from './tx.js';
import { WalSync } from './wal-sync.js';
import { type Migration, TxState } from '../store/sql-common.js';
import { checkMigrationList, pendingMigrations } from '../store/schema-versions.js';
import type { Joinable, Store, TransactionOptions, Tx } from '../store/store.js';
import { type JoinOutcome, JoinQueue, type JoinUnit } from './join-queue.js';
import { copyWith } from '../copy-with.js';

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
 * mutex, then a savepoint inside the SQLite transaction it shares with the other transactions of
 * this event-loop turn (`BEGIN IMMEDIATE`, which also excludes writers in other processes, waiting
 * up to busy_timeout; see beginBatch), so two async transactions never interleave their
 * statements, and none answers before the shared COMMIT.
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
  /** Which `task_latest` rows task writes keep (store/latest-by-name.ts). */
  private readonly latestByName: LatestByNameMode;
  /** Undefined where nothing needs syncing: NORMAL, or an in-memory database. */
  private readonly walSync: WalSync | undefined = undefined;
  /** The writer's total_changes() after the last COMMIT: did the next batch write? */
  private changesSeen = 0;
  /** The SQLite transaction that store transactions share, while open (see beginBatch). */
  private batch: CommitBatch | undefined;
  /** Only on a file: an in-memory database's reads share the writer, and must not see a batch. */
  private readonly batching: boolean;
  private closed = false;
  /** Joinable transactions waiting for the writer (join-queue.ts). */
  private readonly joins = new JoinQueue();
  /** Joinable transactions that arrived in this turn of the event loop, until its end. */
  private gathering: JoinUnit[] | undefined;
  /**
   * Since the store opened: COMMITs of batches, transactions that ended well in them (each joined
   * one counted), and transactions done in another one's joint function (the metric PostgreSQL's
   * group commit keeps).
   */
  private readonly counts = { batches: 0, members: 0, joined: 0 };

  constructor(options: SqliteStoreOptions) {
    const settings = {
      synchronous: options.synchronous ?? 'FULL',
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
    } as const;
    this.migrations = options.migrations ?? SQLITE_MIGRATIONS;
    checkMigrationList(this.migrations);
    // One process owns the file, so its schema says the rule: a list without the step (a test's
    // shorter one) keeps a row for every task, as every release before it did.
    this.latestByName = this.migrations.some((m) => m.name === 'embedded-latest-by-name-on-repeat')
      ? 'on-repeat'
      : 'every-task';
    this.writer = openConnection(options.file, copyWith(settings, { readonly: false }));
    const inMemory = options.file === ':memory:' || options.file === '' || this.writer.db.memory;
    this.reader = inMemory ? undefined : openConnection(options.file, copyWith(settings, { readonly: true }));
    this.batching = !inMemory;
    // FULL on a WAL file: SQLite's own per-COMMIT fsync is replaced by WalSync's shared one.
    // Anything else (NORMAL, memory, a file system where WAL mode was refused) keeps SQLite's setting.
    const walMode = this.writer.db.pragma('journal_mode', { simple: true }) === 'wal';
    if (!inMemory && walMode && settings.synchronous === 'FULL') {
      this.writer.db.pragma('synchronous = NORMAL');
      this.walSync = new WalSync(`${this.writer.db.name}-wal`);
    }
  }

  /** The counts since the store opened (`baton_db_group_commit_total`). */
  get commitCounts(): Readonly<Record<string, number>> {
    return this.counts;
  }

  /** Joinable transactions waiting for the writer, not yet taken by one of their key. */
  get joinableWaiting(): number {
    return this.joins.size;
  }

  async migrate(): Promise<void> {
    this.assertOpen();
    await this.mutex.run(async () => {
      this.commitOpenBatch();
      const c = this.writer;
      c.db.exec(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`,
      );
      for (;;) {
        // Re-read the schema inside each write transaction: another process may have migrated.
        c.db.exec('BEGIN IMMEDIATE');
        try {
          // SELECT *: compatible_from exists only once the step that adds it has run.
          // Prepared afresh (not from the statement cache): the step may change the table's columns.
          const rows = c.db.prepare('SELECT * FROM schema_migrations').all() as Array<{
            version: number;
            compatible_from?: number | null;
          }>;
          const applied = rows.map((r) => ({
            version: r.version,
            compatibleFrom: r.compatible_from ?? null,
          }));
          const next = pendingMigrations('SQLite', this.migrations, applied)[0];
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
          const columns = c.db.prepare('SELECT * FROM schema_migrations LIMIT 0').columns();
          if (columns.some((col) => col.name === 'compatible_from'))
            c.run(
              'UPDATE schema_migrations SET compatible_from = ? WHERE version = ?',
              next.compatibleFrom,
              next.version,
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

  /**
   * Every transaction already shares its commit (`group` is PostgreSQL's); `join` joins those of
   * one key waiting for the writer together (join-queue.ts).
   */
  async transaction<T>(fn: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    this.assertOpen();
    if (options?.join !== undefined) return this.joinable(fn, options.join);
    let batch: CommitBatch | undefined;
    try {
      const answer = await this.mutex.run(async () => {
        batch = this.openBatch();
        try {
          return await this.inSavepoint(batch, fn);
        } finally {
          if (!this.batching) this.commitBatch(batch);
        }
      });
      await this.settled(batch);
      return answer;
    } catch (err) {
      // What a failed transaction read (its error) may come from commits not yet durable.
      if (batch !== undefined) await this.settled(batch).catch(() => {});
      throw err;
    }
  }

  /** A joinable transaction: run with those of its key waiting behind it, or alone. */
  private async joinable<T>(fn: (tx: Tx) => Promise<T>, join: Joinable): Promise<T> {
    const { batch, result } = await new Promise<JoinOutcome>((settle) => {
      const unit: JoinUnit = { join, fn, taken: false, settle };
      this.joins.add(unit);
      // A transaction runs to its end in the turn it starts in (SQLite answers at once), so one
      // never waits for another and none would be joined: those arriving in one turn of the event
      // loop (the results one poll of the sockets brought) wait for its end, then take the writer
      // in arrival order, each with those of its key.
      if (this.gathering === undefined) {
        this.gathering = [];
        setImmediate(() => this.startGathered());
      }
      this.gathering.push(unit);
    });
    if (result.status === 'rejected') {
      if (batch !== undefined) await this.settled(batch).catch(() => {});
      throw result.reason;
    }
    await this.settled(batch);
    return result.value as T;
  }

  /** The joinable transactions gathered in a turn, each to the writer with those of its key. */
  private startGathered(): void {
    const units = this.gathering ?? [];
    this.gathering = undefined;
    for (const unit of units)
      void this.mutex.run(async () => {
        if (!unit.taken) await this.runJoined(this.joins.take(unit));
      });
  }

  /**
   * Runs joinable transactions of one key (under the mutex): several as the first one's joint,
   * each answered its own outcome; one alone; and when the joint throws, its savepoint rolled
   * back, each alone in turn, as if never joined. Settles every one, never throws.
   */
  private async runJoined(units: readonly JoinUnit[]): Promise<void> {
    const [first, ...more] = units;
    if (!first) return;
    try {
      if (more.length === 0) {
        await this.runOne(first);
        return;
      }
      let batch: CommitBatch;
      let outcomes: ReadonlyArray<PromiseSettledResult<unknown>>;
      try {
        batch = this.openBatch();
      } catch (err) {
        for (const unit of units) unit.settle({ result: { status: 'rejected', reason: err } });
        return;
      }
      try {
        outcomes = await this.inSavepoint(batch, (tx) =>
          first.join.joint(
            tx,
            units.map((u) => u.join),
          ),
        );
      } catch (err) {
        if (this.batch !== batch) {
          // SQLite rolled the whole transaction back: every one of them lost its work.
          for (const unit of units) unit.settle({ batch, result: { status: 'rejected', reason: err } });
          return;
        }
        for (const unit of units) await this.runOne(unit);
        return;
      }
      this.counts.joined += more.length;
      this.counts.members += more.length;
      units.forEach((unit, i) =>
        unit.settle({
          batch,
          result: outcomes[i] ?? {
            status: 'rejected',
            reason: new Error('a joint transaction answered no outcome for a member'),
          },
        }),
      );
    } finally {
      if (!this.batching && this.batch !== undefined) this.commitBatch(this.batch);
    }
  }

  /** One joinable transaction by its own function, in the open batch (under the mutex). */
  private async runOne(unit: JoinUnit): Promise<void> {
    let batch: CommitBatch | undefined;
    try {
      batch = this.openBatch();
      const value = await this.inSavepoint(batch, unit.fn);
      unit.settle({ batch, result: { status: 'fulfilled', value } });
    } catch (err) {
      const result: PromiseRejectedResult = { status: 'rejected', reason: err };
      unit.settle(batch === undefined ? { result } : { batch, result });
    }
  }

  /**
   * `fn` in a savepoint of the batch's SQLite transaction: released when it answers, rolled back
   * when it throws (and the batch lost when SQLite rolled the whole transaction back). Under the
   * mutex.
   */
  private async inSavepoint<T>(batch: CommitBatch, fn: (tx: Tx) => Promise<T>): Promise<T> {
    const c = this.writer;
    const state = new TxState(true);
    c.run('SAVEPOINT tx');
    try {
      const result = await fn(new SqliteTx(c, state, this.latestByName));
      state.closed = true;
      c.run('RELEASE tx');
      this.counts.members++;
      return result;
    } catch (err) {
      state.closed = true;
      if (c.db.inTransaction) {
        c.run('ROLLBACK TO tx');
        c.run('RELEASE tx');
      } else {
        // SQLite rolled the whole transaction back by itself (e.g. SQLITE_FULL): the batch's
        // other members lost their writes too.
        this.loseBatch(batch, err);
      }
      throw err;
    }
  }

  /** The open batch, or a new one, for a transaction about to run (under the mutex). */
  private openBatch(): CommitBatch {
    this.assertOpen();
    this.walSync?.check();
    return this.batch ?? this.beginBatch();
  }

  /** Waits for a batch's COMMIT and for the WAL sync that makes it (and what it saw) durable. */
  private async settled(batch: CommitBatch | undefined): Promise<void> {
    if (batch === undefined) return;
    const sequence = await batch.committed;
    if (this.walSync !== undefined) await this.walSync.durable(sequence);
  }

  /**
   * Opens the SQLite transaction that the store transactions arriving in this turn of the event
   * loop share (under load, those answered by one WAL sync come back together): one BEGIN and one
   * COMMIT for all, and a page written by several of them goes to the WAL once. Their answers wait
   * for the COMMIT, so none is acknowledged before it is durable. Called under the mutex.
   */
  private beginBatch(): CommitBatch {
    this.writer.run('BEGIN IMMEDIATE');
    const batch = new CommitBatch();
    this.batch = batch;
    if (this.batching) {
      // After the I/O callbacks of this turn: the transactions they start join the batch.
      setImmediate(() => {
        void this.mutex.run(async () => {
          this.commitBatch(batch);
          return Promise.resolve();
        });
      });
    }
    return batch;
  }

  /** Commits the batch if it is still open. Called under the mutex. */
  private commitBatch(batch: CommitBatch): void {
    if (this.batch !== batch) return;
    this.batch = undefined;
    const c = this.writer;
    const walSync = this.walSync;
    try {
      // A batch that changed no row wrote nothing to the WAL: no new sync for it, but its
      // members wait for the commits they may have read.
      const wrote = walSync !== undefined && this.totalChanges() !== this.changesSeen;
      c.run('COMMIT');
      this.counts.batches++;
      batch.commit(walSync === undefined ? 0 : wrote ? walSync.committed() : walSync.lastWritten);
    } catch (err) {
      try {
        if (c.db.inTransaction) c.run('ROLLBACK');
      } finally {
        batch.fail(err);
      }
    } finally {
      if (walSync !== undefined) this.changesSeen = this.totalChanges();
    }
  }

  private loseBatch(batch: CommitBatch, err: unknown): void {
    if (this.batch === batch) this.batch = undefined;
    batch.fail(err);
  }

  /** Commits the open batch before the mutex's holder uses the connection otherwise. */
  private commitOpenBatch(): void {
    if (this.batch !== undefined) this.commitBatch(this.batch);
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
      return await fn(new SqliteTx(c, state, this.latestByName));
    } finally {
      state.closed = true;
    }
  }

  onQueueNotification(_listener: (queueNames: string[]) => void): () => void {
    return () => {};
  }

  async ping(): Promise<void> {
    this.assertOpen();
    // After a failed WAL sync the node takes no write until restarted: readiness says so.
    this.walSync?.check();
    (this.reader ?? this.writer).get('SELECT 1 AS ok');
    return Promise.resolve();
  }

  /** SQLite keeps no dead row versions: a deleted or rewritten row's space is free for the next write. */
  settingWarnings(): Promise<string[]> {
    return Promise.resolve([]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Wait for the transaction in flight (and those queued before close) to finish.
    await this.mutex.run(async () => {
      this.commitOpenBatch();
      try {
        // The last commits' members may not have asked for their sync yet: sync them now.
        await this.walSync?.durable(this.walSync.lastWritten);
      } finally {
        await this.walSync?.close();
      }
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
