import type { JsonObject } from '@baton/protocol';

import type { ArchivePort } from './ports/archive.js';
import type { AuthPort } from './ports/auth.js';
import type { DefinitionsPort } from './ports/definitions.js';
import type { EventsPort } from './ports/events.js';
import type { IntegrationsPort } from './ports/integrations.js';
import type { LimitsPort } from './ports/limits.js';
import type { MailboxPort } from './ports/mailbox.js';
import type { QueuePort } from './ports/queue.js';
import type { RunsPort } from './ports/runs.js';
import type { SearchPort } from './ports/search.js';
import type { TimersPort } from './ports/timers.js';

/**
 * The storage port. Two implementations (SQLite, PostgreSQL) pass one conformance suite.
 *
 * Every change happens inside `transaction`: run state, queue messages and (later) timers are
 * written together, so there is no dual write to keep in step. On PostgreSQL a transaction
 * that hits a serialization failure or deadlock is retried from the start, so `fn` must not
 * have side effects outside the transaction (collect them and act after it resolves).
 */
export interface TransactionOptions {
  /**
   * May share a database transaction with other concurrent transactions of this node that ask
   * the same (group commit on PostgreSQL: one COMMIT for all; SQLite commits its transactions
   * together anyway). Each still locks its run alone and fails alone; `fn` may run more than once.
   * For short transactions that lock at most one run: a worker's result.
   */
  group?: boolean;
  /**
   * With `group`: this transaction may run as one function with others of the same key that
   * reach the same batch (the results of one run's branches), instead of each in turn. On SQLite
   * (no `group` needed), with those of its key that arrived in the same turn of the event loop or
   * wait for the writer with it (store-sqlite/join-queue.ts).
   */
  join?: Joinable;
}

/**
 * A grouped transaction that can be done together with others of its kind: those of one batch
 * with the same `key` run as the first one's `joint`, which does all their work in one function
 * (for results of one run: one lock, one decide-set read, one decision). Each keeps its own
 * function too: whenever they cannot go together (a lock held elsewhere, a failure) each runs
 * alone, as if never joined.
 */
export interface Joinable {
  readonly key: string;
  /**
   * Does the work of `all` (this one first, every one of the same kind and key) in `tx`:
   * each one's outcome, in order. A rejected outcome fails that one alone; a throw is the
   * joint's failure, after which each runs again by itself.
   */
  joint(tx: Tx, all: readonly Joinable[]): Promise<ReadonlyArray<PromiseSettledResult<unknown>>>;
}

export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * Applies pending migrations (under an advisory lock on PostgreSQL). Idempotent. Throws
   * SchemaVersionError when the database's schema is newer than this code and not declared
   * compatible with it (schema-versions.ts).
   */
  migrate(): Promise<void>;
  transaction<T>(fn: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Reads outside a write transaction (no row locks taken). */
  read<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Subscribes to queue notifications sent by any node (`Tx.notifyQueues`). Returns an
   * unsubscribe function. SQLite has one node, so it never calls the listener.
   * A notification is a hint: it may be lost or duplicated.
   */
  onQueueNotification(listener: (queueNames: string[]) => void): () => void;
  /** Throws when the database cannot answer a trivial query. */
  ping(): Promise<void>;
  /**
   * What the database server's own settings leave undone that the store relies on, one sentence
   * each, for the node's log when it starts (on PostgreSQL: autovacuum off,
   * store-postgres/server-settings.ts); empty when all is well, and always on SQLite.
   */
  settingWarnings(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Operations available inside a transaction, composed of one port per concern (`ports/`), each
 * implemented by a file of the same name in `store-postgres/` and `store-sqlite/`. All times are
 * epoch milliseconds.
 */
export interface Tx
  extends
    DefinitionsPort,
    RunsPort,
    SearchPort,
    ArchivePort,
    QueuePort,
    LimitsPort,
    TimersPort,
    MailboxPort,
    IntegrationsPort,
    AuthPort,
    EventsPort {}

export type * from './ports/archive.js';
export type * from './ports/auth.js';
export type * from './ports/definitions.js';
export type * from './ports/events.js';
export type * from './ports/integrations.js';
export type * from './ports/limits.js';
export type * from './ports/mailbox.js';
export type * from './ports/queue.js';
export type * from './ports/runs.js';
export { RUN_SEARCH_FIELDS, RUN_SORT_FIELDS, TASK_SEARCH_FIELDS, TASK_SORT_FIELDS } from './ports/search.js';
export type * from './ports/search.js';
export type * from './ports/timers.js';

/** Stored JSON object helper type for implementations. */
export type JsonColumn = JsonObject;
