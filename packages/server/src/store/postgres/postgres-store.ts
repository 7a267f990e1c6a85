import pg from 'pg';

import { POSTGRES_MIGRATIONS } from './migrations.js';
import { PgTx } from './pg-tx.js';
import { TaskDefCache } from './task-def-cache.js';
import { type PreparedPlan, WriteBehind } from './write-behind.js';
import { SQL, queryOn } from './pg-sql.js';
import { CoalescingNotifier } from './notifier.js';
import { LISTENER_NAME, QUEUE_CHANNEL, QueueListener } from './queue-listener.js';
import { PeerPresence } from './peer-presence.js';
import { type RetryOptions, withRetry } from './retry.js';
import { type Migration, TxState } from '../sql-common.js';
import { checkMigrationList, pendingMigrations } from '../schema-versions.js';
import type { Store, TransactionOptions, Tx } from '../store.js';
import { GroupCommit } from './group-commit.js';

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** Idle-connection and listener errors (the store recovers from them by itself). */
  onError?: (err: Error) => void;
  /** Retry of transactions that hit a serialization failure or a deadlock. */
  retry?: Omit<RetryOptions, 'retryable'>;
  /** Overrides the migration list (tests only). */
  migrations?: readonly Migration[];
  /**
   * Group commit of transactions that ask for it (`transaction(fn, { group: true })`, see
   * group-commit.ts): members per batch and batches in flight. `false` runs each alone.
   */
  groupCommit?: false | { maxBatch?: number; maxInFlight?: number };
  /** How long an answer to "does another node listen?" holds, in ms (default 5,000; peer-presence.ts). */
  peerCheckMs?: number;
}

/** What the node's queue notifications did: sent, or left out for want of another node to hear them. */
export interface NotifyStats {
  sent: number;
  skipped: number;
}

/** Key of the session advisory lock migrations run under ("baton" in ASCII). */
export const MIGRATION_LOCK_KEY = '422541815662';

/** BIGINT columns hold epoch milliseconds, well inside Number's exact range. */
function batonTypes(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  types.setTypeParser(20, (value: string) => Number(value));
  return types;
}

/**
 * The clustered store. Transactions run BEGIN … COMMIT on one pooled client (READ COMMITTED);
 * runs are serialised by `lockRun` (SELECT … FOR UPDATE); a transaction that fails with a
 * serialization failure or a deadlock is run again from the start. Queue notifications are sent
 * after COMMIT, coalesced across transactions (notifier.ts), so they are sent for committed work only.
 */
export class PostgresStore implements Store {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly listener: QueueListener;
  private readonly notifier: CoalescingNotifier;
  private readonly peers: PeerPresence;
  readonly notifyStats: NotifyStats = { sent: 0, skipped: 0 };
  private readonly taskDefCache = new TaskDefCache();
  private readonly migrations: readonly Migration[];
  private closing: Promise<void> | undefined;
  /** Batches grouped transactions (absent when the options turn it off). */
  readonly group: GroupCommit | undefined;

  constructor(private readonly options: PostgresStoreOptions) {
    this.migrations = options.migrations ?? POSTGRES_MIGRATIONS;
    checkMigrationList(this.migrations);
    const onError = options.onError ?? (() => {});
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      types: batonTypes(),
      application_name: 'baton',
      keepAlive: true,
    });
    // An idle client that loses its connection is dropped by the pool; without a handler Node would crash.
    this.pool.on('error', onError);
    const onPool = queryOn(this.pool);
    this.peers = new PeerPresence(
      async () =>
        (await onPool<{ others: boolean }>(SQL.otherListeners, [this.listener.pid ?? 0])).rows[0]?.others ??
        true,
      { ...(options.peerCheckMs !== undefined && { ttlMs: options.peerCheckMs }) },
    );
    this.notifier = new CoalescingNotifier(async (payloads) => {
      if (!(await this.peers.othersMayListen())) {
        this.notifyStats.skipped++;
        return;
      }
      await onPool(SQL.notify, [QUEUE_CHANNEL, payloads]);
      this.notifyStats.sent++;
    }, onError);
    this.group =
      options.groupCommit === false
        ? undefined
        : new GroupCommit({
            ...options.groupCommit,
            connect: () => this.pool.connect(),
            prepared: preparedOn,
            tx: (q, state, notified, writes, locks) =>
              new PgTx(q, state, notified, writes, this.taskDefCache, locks),
            alone: (fn) => this.transaction(fn),
            notify: (names) => this.notifier.add(names),
          });
    this.listener = new QueueListener({
      client: { connectionString: options.url, application_name: LISTENER_NAME, keepAlive: true },
      onError,
      onPeer: () => this.peers.heard(),
    });
  }

  async migrate(): Promise<void> {
    this.assertOpen();
    const client = await this.pool.connect();
    let broken = false;
    try {
      // A session lock: every node starting at once queues here, the first applies, the rest find nothing to do.
      await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
      try {
        await this.applyMigrations(client);
      } finally {
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]).catch(() => {
          broken = true; // dropping the connection releases the lock
        });
      }
    } catch (err) {
      broken = true;
      throw err;
    } finally {
      client.release(broken);
    }
  }

  private async applyMigrations(client: pg.PoolClient): Promise<void> {
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
    );
    // SELECT *: compatible_from exists only once the step that adds it has run.
    const { rows } = await client.query<{ version: number; compatible_from?: number | null }>(
      'SELECT * FROM schema_migrations',
    );
    const applied = rows.map((r) => ({ version: r.version, compatibleFrom: r.compatible_from ?? null }));
    for (const m of pendingMigrations('PostgreSQL', this.migrations, applied)) {
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO schema_migrations (version, name, applied_at)
           VALUES ($1, $2, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)`,
          [m.version, m.name],
        );
        const { fields } = await client.query('SELECT * FROM schema_migrations LIMIT 0');
        if (fields.some((f) => f.name === 'compatible_from'))
          await client.query('UPDATE schema_migrations SET compatible_from = $2 WHERE version = $1', [
            m.version,
            m.compatibleFrom,
          ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        const message = err instanceof Error ? err.message : String(err);
        throw new Error(`PostgreSQL migration ${m.version} (${m.name}) failed: ${message}`, { cause: err });
      }
    }
  }

  async transaction<T>(fn: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    this.assertOpen();
    if (options?.group && this.group) return this.group.transaction(fn);
    return withRetry(() => this.attempt(fn), this.options.retry);
  }

  private async attempt<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const state = new TxState(true);
    const notified = new Set<string>();
    let broken = false;
    let writes: WriteBehind | undefined;
    try {
      writes = new WriteBehind(queryOn(client), preparedOn(client));
      // BEGIN goes with the transaction's first statement.
      writes.later('BEGIN', []);
      const result = await fn(new PgTx(writes.q, state, notified, writes, this.taskDefCache));
      state.closed = true;
      // The deferred writes and COMMIT in one round trip.
      await writes.flush('COMMIT');
      if (notified.size > 0) this.notifier.add(notified);
      return result;
    } catch (err) {
      state.closed = true;
      // After a failed COMMIT the transaction is already gone; ROLLBACK then only warns.
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      // A failed batch that prepared statements leaves it unknown which exist: a new connection.
      if (writes?.uncertain) broken = true;
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async read<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    this.assertOpen();
    const state = new TxState(false);
    try {
      return await fn(new PgTx(queryOn(this.pool), state));
    } finally {
      state.closed = true;
    }
  }

  onQueueNotification(listener: (queueNames: string[]) => void): () => void {
    if (this.closing !== undefined) return () => {};
    return this.listener.subscribe(listener);
  }

  /** Resolves once the notification connection LISTENs (after a first subscription). Tests use it. */
  listening(): Promise<void> {
    return this.listener.listening();
  }

  /** Resolves once the notifications of every commit so far have been sent. Tests use it. */
  notificationsSent(): Promise<void> {
    return this.notifier.drain();
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await this.pool.query('SELECT 1');
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.notifier.drain();
      await this.listener.close();
      await this.pool.end();
    })();
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closing !== undefined) throw new Error('store: the PostgreSQL store is closed');
  }
}

export function openPostgresStore(options: PostgresStoreOptions): PostgresStore {
  return new PostgresStore(options);
}

/** The statements each pooled connection has prepared for write-behind batches (write-behind.ts). */
const PREPARED = new WeakMap<object, Map<string, PreparedPlan>>();

function preparedOn(client: object): Map<string, PreparedPlan> {
  let names = PREPARED.get(client);
  if (names === undefined) {
    names = new Map();
    PREPARED.set(client, names);
  }
  return names;
}
