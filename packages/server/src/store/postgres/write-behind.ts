import pg from 'pg';

import type { Query, Sql } from './pg-sql.js';
import { storableParams } from './pg-text.js';

/**
 * Writes whose answer nobody reads at once (task and run records, queue messages, timers, logs)
 * wait in the transaction and go to PostgreSQL together with the next statement that must
 * answer, or with COMMIT: one round trip for all of a decision's writes instead of one each.
 * node-postgres does not pipeline, and on this path each round trip cost more CPU in the socket
 * write and the wake-up of the server process than the statement itself.
 *
 * The batch is one simple-protocol message of several statements, run in order, so the
 * transaction sees exactly what it would have seen statement by statement; the parameters are
 * written into the text as literals (pg's own quoting). A deferred write must fail in SQL when
 * it goes wrong (a write that must touch one row says so with `baton_expect_rows`), never in a
 * check run on its answer: PostgreSQL skips the rest of a message after an error, so COMMIT
 * sent with the batch never commits a failed one, and the transaction rolls back as it would have.
 */
export class WriteBehind {
  private pending: string[] = [];
  private count = 0;

  constructor(private readonly raw: Query) {}

  /** Defers a write. */
  later(sql: Sql | string, values: readonly unknown[]): void {
    this.count++;
    this.pending.push(inline(textOf(sql), values));
  }

  /**
   * A query that must answer now. With writes waiting, they and the query go in one message
   * (the query inlined too; its answer is the message's last); otherwise the query goes alone,
   * as a prepared statement.
   */
  readonly q: Query = async <R extends pg.QueryResultRow>(
    sql: Sql | string,
    values: readonly unknown[] = [],
  ) => {
    if (this.pending.length === 0) {
      this.count++;
      return this.raw<R>(sql, values);
    }
    const [answer] = await this.queryMany([{ sql, values }]);
    return answer as pg.QueryResult<R>;
  };

  /**
   * Several queries that must answer now, in one message with whatever writes wait (all inlined):
   * their answers, in order. PostgreSQL runs them one after another, each statement seeing what
   * the ones before it committed or locked (READ COMMITTED takes a snapshot per statement).
   */
  async queryMany(
    queries: ReadonlyArray<{ sql: Sql | string; values: readonly unknown[] }>,
  ): Promise<pg.QueryResult[]> {
    this.count += queries.length;
    const batch = this.pending;
    this.pending = [];
    for (const query of queries) batch.push(inline(textOf(query.sql), query.values));
    const answer: unknown = await this.raw(batch.join(';\n'));
    const results = (Array.isArray(answer) ? answer : [answer]) as pg.QueryResult[];
    return results.slice(results.length - queries.length);
  }

  /** How many statements this transaction has sent or queued (a prefetched answer is stale once it moves). */
  get statements(): number {
    return this.count;
  }

  /** Sends the deferred writes, followed by `tail` (e.g. COMMIT) in the same message when given. */
  async flush(tail?: string): Promise<void> {
    const batch = this.pending;
    if (batch.length === 0) {
      if (tail !== undefined) await this.raw(tail);
      return;
    }
    this.pending = [];
    await this.raw([...batch, ...(tail === undefined ? [] : [tail])].join(';\n'));
  }
}

function textOf(sql: Sql | string): string {
  return typeof sql === 'string' ? sql : sql.text;
}

/** `text` with `$n` replaced by the literal of `values[n-1]`. */
export function inline(text: string, values: readonly unknown[]): string {
  const safe = storableParams(values);
  return text.replace(/\$(\d+)/g, (_, n: string) => literal(safe[Number(n) - 1]));
}

/** A parameter as an SQL literal: strings quoted by pg, arrays in PostgreSQL's array syntax. */
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot write ${value} as an SQL number`);
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if (Array.isArray(value)) return pg.escapeLiteral(`{${value.map(arrayElement).join(',')}}`);
  throw new Error(`cannot write a ${typeof value} parameter as an SQL literal`);
}

function arrayElement(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot write ${value} as an SQL number`);
    return String(value);
  }
  if (typeof value === 'string') return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  throw new Error(`cannot write a ${typeof value} array element as an SQL literal`);
}
