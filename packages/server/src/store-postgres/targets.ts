import type pg from 'pg';

import { StoreUnavailable } from '../store/store-faults.js';
import { DeadlineClient } from './answer-deadline.js';
import { copyWith } from '../copy-with.js';

/**
 * The servers a node may connect to, and failover between them. node-postgres takes one host per
 * connection string, so Baton reads libpq's multi-host form itself:
 * `postgres://user:pw@db1:5432,db2:5432/baton?target_session_attrs=read-write`. New connections
 * go to the current host; one that cannot be reached, or (with `read-write`/`primary`) is a
 * standby or read-only, moves the choice on to the next host in order. A primary that answers
 * a write with "read-only transaction" (SQLSTATE 25006, demoted by a failover) is a lost primary
 * too (postgres-store.ts). With one host the choice never moves: DNS-based failover (a managed
 * service's endpoint) is followed by reconnecting, which every lost connection does.
 */
export class PgTargets {
  private index = 0;
  /** A connection must be to a writable primary (`target_session_attrs=read-write` or `primary`). */
  readonly readWrite: boolean;
  private readonly urls: string[];
  private readonly names: string[];

  constructor(url: string) {
    const parsed = splitHosts(url);
    this.urls = parsed.urls;
    this.names = parsed.names;
    this.readWrite = parsed.readWrite;
  }

  get count(): number {
    return this.urls.length;
  }

  /** Which host new connections go to now (an index, for `failed`). */
  get current(): number {
    return this.index;
  }

  urlOf(index: number): string {
    return this.urls[index % this.urls.length] ?? '';
  }

  /** host:port of a target, for messages (never the credentials). */
  nameOf(index: number): string {
    return this.names[index % this.names.length] ?? '';
  }

  /** The target `index` failed (unreachable, or not the primary): the next one is tried from now on. */
  failed(index: number): void {
    if (index === this.index) this.index = (this.index + 1) % this.urls.length;
  }

  /**
   * A connection class that connects to the current target, never crashes the process, and keeps
   * its queries' answer deadline itself (answer-deadline.ts).
   */
  clientClass(onError: (err: Error) => void): typeof pg.Client {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const targets = this;
    return class TargetClient extends DeadlineClient {
      /** Which target this connection went to. */
      readonly target: number;
      constructor(config?: pg.ClientConfig) {
        const target = targets.current;
        super(copyWith(config ?? {}, { connectionString: targets.urlOf(target) }));
        this.target = target;
        // A connection lost while checked out (or while connecting) emits `error` with no
        // listener of the pool's attached: without this, the process would die of it.
        this.on('error', onError);
      }
    };
  }

  /**
   * Run on each new connection (the pool's `onConnect`, the listener's): with `read-write`, a
   * standby or read-only server is refused and the next target is tried from then on.
   */
  async check(client: pg.ClientBase, target: number): Promise<void> {
    if (!this.readWrite) return;
    const { rows } = await client.query<{ recovery: boolean; ro: string }>(
      "SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS ro",
    );
    const row = rows[0];
    if (row !== undefined && !row.recovery && row.ro !== 'on') return;
    this.failed(target);
    throw new StoreUnavailable(
      `PostgreSQL at ${this.nameOf(target)} is not a writable primary (target_session_attrs=read-write)`,
    );
  }
}

/** The target a connection made by `clientClass` went to. */
export function targetOf(client: object): number | undefined {
  const target = (client as { target?: unknown }).target;
  return typeof target === 'number' ? target : undefined;
}

const READ_WRITE_ATTRS = new Set(['read-write', 'primary']);

/**
 * One single-host URL per host of a libpq multi-host URL, in order, without
 * `target_session_attrs` (node-postgres does not know it), and whether it asked for a primary.
 */
export function splitHosts(url: string): { urls: string[]; names: string[]; readWrite: boolean } {
  const match = /^(postgres(?:ql)?:\/\/)(?:(.*)@)?([^@/?]*)(.*)$/i.exec(url);
  if (!match) return { urls: [url], names: ['?'], readWrite: false };
  const [, scheme = '', userinfo, hostList = '', rest = ''] = match;
  const queryAt = rest.indexOf('?');
  const path = queryAt === -1 ? rest : rest.slice(0, queryAt);
  const params = new URLSearchParams(queryAt === -1 ? '' : rest.slice(queryAt + 1));
  const attrs = params.get('target_session_attrs');
  params.delete('target_session_attrs');
  const query = params.toString();
  const hosts = hostList.split(',').filter((h) => h !== '');
  const list = hosts.length > 0 ? hosts : [''];
  return {
    urls: list.map(
      (host) =>
        `${scheme}${userinfo !== undefined ? `${userinfo}@` : ''}${host}${path}${query ? `?${query}` : ''}`,
    ),
    names: list.map((host) => host || 'localhost'),
    readWrite: attrs !== null && READ_WRITE_ATTRS.has(attrs),
  };
}
