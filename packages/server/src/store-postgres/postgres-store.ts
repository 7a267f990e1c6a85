import pg from 'pg';

import { POSTGRES_MIGRATIONS } from './migrations.js';
import { PgTx, type StoreSettings } from './tx.js';
import { taskRecordShape } from './record-shape.js';
import { latestByNameMode } from './latest-by-name.js';
import { RunDefinitionCache } from './run-definitions.js';
import { runRowsMode } from './run-rows.js';
import { TaskDefCache } from './task-def-cache.js';
import { type PreparedPlan, WriteBehind } from './write-behind.js';
import { SQL, queryOn } from './sql.js';
import { CoalescingNotifier } from './notifier.js';
import { LISTENER_NAME, QUEUE_CHANNEL, QueueListener } from './queue-listener.js';
import { PeerPresence } from './peer-presence.js';
import { type RetryOptions, withRetry } from './retry.js';
import { type Migration, TxState } from '../store/sql-common.js';
import { checkMigrationList, pendingMigrations } from '../store/schema-versions.js';
import type { Store, TransactionOptions, Tx } from '../store/store.js';
import { GroupCommit, type GroupCommitOptions } from './group-commit.js';
import { PgTargets, targetOf } from './targets.js';
import { settledTypes } from './result-fields.js';
import { SQLSTATE, sqlState } from '../store/sqlstate.js';
import { brokenConnection, storeFault } from '../store/store-faults.js';
import { copyWith } from '../copy-with.js';
import { readSettingWarnings } from './server-settings.js';

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
   * group-commit.ts): members per batch, batches in flight and the clock that says when a batch
   * counts as held up (tests). `false` runs each alone.
   */
  groupCommit?: false | Pick<GroupCommitOptions, 'maxBatch' | 'maxInFlight' | 'now'>;
  /** How long an answer to "does another node listen?" holds, in ms (default 5,000; peer-presence.ts). */
  peerCheckMs?: number;
  /**
   * How long to wait for a connection, new or from the pool, in ms (default 5,000): a request
   * that needs the database while it is away fails after this long instead of hanging.
   */
  connectTimeoutMs?: number;
  /**
   * Longest statement, in ms (default 30,000): PostgreSQL cancels it (`statement_timeout`), and
   * the node gives up on an answer shortly after (a connection whose packets are dropped). A
   * session idle inside a transaction for twice this long is ended by PostgreSQL, so a node cut
   * off mid-transaction does not hold its row locks for long. 0 = no limit.
   */
  statementTimeoutMs?: number;
  /** How often the notification connection checks that it still talks to PostgreSQL, in ms (default 5,000). */
  listenerHeartbeatMs?: number;
}

/** Defaults of the connection bounds (BATON_DB_CONNECT_TIMEOUT_MS, BATON_DB_STATEMENT_TIMEOUT_MS). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/** How long after PostgreSQL's statement_timeout the node itself stops waiting for an answer. */
const ANSWER_GRACE_MS = 1_000;

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
  // Never changed from here on, so results may describe their columns once per shape.
  return settledTypes(types);
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
  private readonly targets: PgTargets;
  private readonly clientConfig: pg.ClientConfig;
  private readonly Client: typeof pg.Client;
  private readonly connectTimeoutMs: number;
  private readonly listener: QueueListener;
  private readonly notifier: CoalescingNotifier;
  private readonly peers: PeerPresence;
  readonly notifyStats: NotifyStats = { sent: 0, skipped: 0 };
  private readonly taskDefCache = new TaskDefCache();
  private readonly migrations: readonly Migration[];
  /**
   * The shape this node writes task rows in (record-shape.ts) and the rule for `task_latest`
   * rows (latest-by-name.ts), both read when it migrates.
   */
  private readonly records: StoreSettings = {
    shape: 'whole',
    latestByName: 'every-task',
    runRows: 'whole',
  };
  private readonly runDefinitions = new RunDefinitionCache();
  private closing: Promise<void> | undefined;
  /** Batches grouped transactions (absent when the options turn it off). */
  readonly group: GroupCommit | undefined;

  constructor(private readonly options: PostgresStoreOptions) {
    this.migrations = options.migrations ?? POSTGRES_MIGRATIONS;
    checkMigrationList(this.migrations);
    const onError = options.onError ?? (() => {});
    this.targets = new PgTargets(options.url);
    this.Client = this.targets.clientClass(onError);
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const statementMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
    this.clientConfig = {
      types: batonTypes(),
      application_name: 'baton',
      keepAlive: true,
      // Probes an idle connection whose peer went silent, so the pool finds out before using it.
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: this.connectTimeoutMs,
      ...(statementMs > 0 && {
        statement_timeout: statementMs,
        // PostgreSQL's own cancel needs a live path; this bounds the wait when packets are dropped.
        query_timeout: statementMs + ANSWER_GRACE_MS,
        idle_in_transaction_session_timeout: 2 * statementMs,
      }),
    };
    const Client = this.Client;
    // pg-pool awaits `onConnect` (its types say void): a refused connection is never handed out.
    const poolConfig: Omit<pg.PoolConfig, 'onConnect'> & { onConnect: (c: pg.ClientBase) => Promise<void> } =
      copyWith(this.clientConfig, {
        // The pool's connections, each to the current target host (targets.ts).
        Client,
        max: options.poolSize ?? 10,
        onConnect: (client) => this.targets.check(client, targetOf(client) ?? this.targets.current),
      });
    this.pool = new pg.Pool(poolConfig);
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
            connect: () => this.acquire(),
            prepared: preparedOn,
            tx: (q, state, notified, writes, locks) =>
              new PgTx(
                q,
                state,
                this.records,
                this.runDefinitions,
                notified,
                writes,
                this.taskDefCache,
                locks,
              ),
            alone: (fn) => this.transaction(fn),
            notify: (names) => this.notifier.add(names),
            lost: (err, client) => void this.lostConnection(err, client),
            ...options.groupCommit,
          });
    this.listener = new QueueListener({
      client: () => new Client(copyWith(this.clientConfig, { application_name: LISTENER_NAME })),
      ready: async (client) => this.targets.check(client, targetOf(client) ?? this.targets.current),
      // It follows the pool's choice of host: a new connection goes to the current target.
      onError,
      onPeer: () => this.peers.heard(),
      ...(options.listenerHeartbeatMs !== undefined && { heartbeatMs: options.listenerHeartbeatMs }),
    });
  }

  async migrate(): Promise<void> {
    this.assertOpen();
    const client = await this.migrationClient();
    try {
      // A session lock: every node starting at once queues here, the first applies, the rest find nothing to do.
      await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
      try {
        await this.applyMigrations(client);
      } finally {
        // Failing that, ending the connection (below) releases the lock.
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]).catch(() => {});
      }
    } finally {
      await client.end().catch(() => {});
    }
  }

  /**
   * A connection of its own for migrations, without the statement bounds: a migration (and the
   * wait for the lock another node's migration holds) may take long. Each host in turn, as `acquire`.
   */
  private async migrationClient(): Promise<pg.Client> {
    for (let tried = 1; ; tried++) {
      const client = new this.Client(
        copyWith(this.clientConfig, {
          statement_timeout: 0,
          query_timeout: 0,
          idle_in_transaction_session_timeout: 0,
        }),
      );
      try {
        await client.connect();
        await this.targets.check(client, targetOf(client) ?? this.targets.current);
        return client;
      } catch (err) {
        this.connectFailed(err, client);
        await client.end().catch(() => {});
        if (tried >= this.targets.count || storeFault(err) === undefined) throw err;
      }
    }
  }

  private async applyMigrations(client: pg.Client): Promise<void> {
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
    );
    // SELECT *: compatible_from exists only once the step that adds it has run.
    const { rows } = await client.query<{ version: number; compatible_from?: number | null }>(
      'SELECT * FROM schema_migrations',
    );
    const applied = rows.map((r) => ({ version: r.version, compatibleFrom: r.compatible_from ?? null }));
    const pending = pendingMigrations('PostgreSQL', this.migrations, applied);
    for (const m of pending) {
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
    // A database this node has just made holds no row an earlier release could meet: it packs.
    const made = rows.length === 0 && pending.some((m) => m.name === 'task-record-shape');
    this.records.shape = await taskRecordShape(client, made);
    // The same for the latest-by-name rule, from the step that brought it.
    const madeByName = rows.length === 0 && pending.some((m) => m.name === 'latest-by-name-on-repeat');
    this.records.latestByName = await latestByNameMode(client, madeByName);
    // And the shape of run rows.
    const madeCompact = rows.length === 0 && pending.some((m) => m.name === 'compact-run-rows');
    this.records.runRows = await runRowsMode(client, madeCompact);
  }

  async transaction<T>(fn: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    this.assertOpen();
    if (options?.group && this.group) return this.group.transaction(fn, options.join);
    return withRetry(() => this.attempt(fn), this.options.retry);
  }

  /**
   * A connection of the pool. With several hosts, one that cannot be reached (or is no primary)
   * moves the choice on (targets.ts) and the next is tried at once: nothing has started yet.
   */
  private async acquire(): Promise<pg.PoolClient> {
    for (let tried = 1; ; tried++) {
      const target = this.targets.current;
      try {
        return await this.pool.connect();
      } catch (err) {
        this.connectFailed(err, { target });
        if (tried >= this.targets.count || storeFault(err) === undefined) throw err;
      }
    }
  }

  /** A connection that could not be made (or lost on connecting) moves the choice of host on. */
  private connectFailed(err: unknown, client?: object): void {
    if (storeFault(err) === undefined) return;
    const target = client === undefined ? undefined : targetOf(client);
    this.targets.failed(target ?? this.targets.current);
  }

  /**
   * After an error on a connection: whether the connection is lost (or its state unknown), so it
   * must not go back to the pool; a server answering "read-only" is no longer the primary.
   */
  private lostConnection(err: unknown, client: object): boolean {
    if (sqlState(err) === SQLSTATE.readOnlyTransaction) {
      const target = targetOf(client);
      if (target !== undefined) this.targets.failed(target);
      return true;
    }
    return storeFault(err) !== undefined;
  }

  private async attempt<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const client = await this.acquire();
    const state = new TxState(true);
    const notified = new Set<string>();
    let broken = false;
    let writes: WriteBehind | undefined;
    try {
      writes = new WriteBehind(queryOn(client), preparedOn(client));
      // BEGIN goes with the transaction's first statement.
      writes.later('BEGIN', []);
      const result = await fn(
        new PgTx(writes.q, state, this.records, this.runDefinitions, notified, writes, this.taskDefCache),
      );
      state.closed = true;
      // The deferred writes and COMMIT in one round trip.
      await writes.flush('COMMIT');
      if (notified.size > 0) this.notifier.add(notified);
      return result;
    } catch (err) {
      state.closed = true;
      if (this.lostConnection(err, client)) {
        // Lost (or no answer in time): no ROLLBACK to wait for, and the connection is not reused.
        // A COMMIT without an answer may or may not have happened: the error says so, as a 503.
        broken = true;
        throw err;
      }
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
    try {
      return await this.readOnce(fn);
    } catch (err) {
      // A pooled connection the server ended while idle is found only when used: a read (which
      // changes nothing) runs once more on another connection instead of failing the request.
      if (!brokenConnection(err)) throw err;
      return this.readOnce(fn);
    }
  }

  private async readOnce<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    this.assertOpen();
    const state = new TxState(false);
    try {
      return await fn(new PgTx(queryOn(this.pool), state, this.records, this.runDefinitions));
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

  /** Answers within the connect timeout (twice, at most: a connection and then the answer). */
  async ping(): Promise<void> {
    this.assertOpen();
    await this.pool.query({ text: 'SELECT 1', query_timeout: this.connectTimeoutMs } as pg.QueryConfig);
  }

  settingWarnings(): Promise<string[]> {
    this.assertOpen();
    return readSettingWarnings(this.pool);
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
