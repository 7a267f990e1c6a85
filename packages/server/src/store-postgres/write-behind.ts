import type pg from 'pg';

import type { Query, Sql } from './sql.js';
import type { PendingWrite } from './merge-writes.js';
import { storableParams } from './text.js';

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
/**
 * The statements a batch runs as prepared generic plans: those whose planning cost a step most,
 * and whose every parameter is a key or an array of keys, so that a generic plan finds their rows
 * by index (`preparation` below). The others go inlined and are planned for their values each time.
 */
export const PREPARED_STATEMENTS: ReadonlySet<string> = new Set([
  'baton_get_task',
  'baton_lock_run',
  'baton_lock_run_in_batch',
  'baton_decide_tasks',
  'baton_insert_tasks',
  'baton_update_tasks',
  'baton_enqueue',
  // A group commit's hand-outs, merged into one a batch (merge-writes.ts): planned each time it
  // cost PostgreSQL 6 % of its CPU a step on the branching shape (docs/PERFORMANCE.md).
  'baton_update_open_tasks_expected',
  // The same write alone, with the claim of a poll outside a batch: once a run. As node-postgres's
  // statement its plan, made while a fresh database's `tasks` was small, read the whole table at
  // every run's first hand-out for as long as the connection lived (docs/PERFORMANCE.md).
  'baton_update_open_tasks',
  // The claims: an update-v2 with nothing next in its run claims with its decision's writes
  // waiting, and planning the claim (four CTEs) cost PostgreSQL about 0.55 ms each time, eight
  // times its execution. Their generic plan walks queue_messages_claim whatever the table's size
  // (test/store/queue-claim-plan.test.ts).
  'baton_claim',
  'baton_claim_pair',
  // The finished tasks' messages (merged where the batch's order allows): 0.2 a step in a line and
  // 0.6 in the branching shape. Planned each time it took about 20 µs more of PostgreSQL than its
  // EXECUTE (5,000 of each from one session: 78 against 58 µs a round trip). Its generic plan
  // reads queue_messages_pkey.
  'baton_remove_messages',
  // A run's start and end, once a run each: planned each time, about 0.1 ms of PostgreSQL's CPU
  // more than their EXECUTE (the start's definition snapshot a literal of a few kilobytes). Both
  // find or write their row by its key.
  'baton_insert_run',
  'baton_insert_compact_run',
  'baton_update_run',
  'baton_get_wf_def',
  'baton_get_latest_wf_def',
]);

/**
 * When a connection prepares a statement again: a generic plan is made from the table sizes of
 * its moment (the planner reads the size of a table never analyzed from its file), and though it
 * never scans a whole table (`preparation`), its joins and index choices are those of that moment.
 * Planned again after as long as the statement has been prepared on the connection (1 s, 2 s,
 * 4 s, …), at most every minute: a new database's plans follow its tables within seconds, for a
 * few plannings per statement and connection.
 */
const REPLAN_MIN_MS = 1_000;
const REPLAN_MAX_MS = 60_000;

/**
 * What prepares `name` as `text` and makes its generic plan at once, with sequential scans ruled
 * out. Every parameter of these statements is a key or an array of keys, and the rows they touch
 * are few whatever a table holds; but a plan is made from the table's size at its moment, and one
 * made while `tasks` was small read the whole table on every step as it grew (PostgreSQL's
 * statistics of a fresh database: the step's task update scanned `tasks` for its first 900 steps,
 * docs/PERFORMANCE.md). PostgreSQL makes a prepared statement's plan at its first EXECUTE; EXPLAIN
 * EXECUTE makes and keeps it without running anything, so the setting holds for that planning
 * alone and the transaction's other statements are planned as usual. A plan PostgreSQL makes again
 * later by itself (after an ANALYZE of its tables) is the planner's own, from the statistics then.
 */
export function preparation(name: string, text: string): string[] {
  return [
    'SET LOCAL enable_seqscan = off',
    // A plan that must still scan a table without an index (task_defs_version's one row) costs
    // what the setting adds, far above the cost at which PostgreSQL compiles a plan with JIT on
    // every execution: the plan is made without it.
    'SET LOCAL jit = off',
    `PREPARE ${name} AS ${text}`,
    `EXPLAIN EXECUTE ${name}${nullArguments(text)}`,
    'SET LOCAL enable_seqscan TO DEFAULT',
    'SET LOCAL jit TO DEFAULT',
  ];
}

/** EXECUTE's argument list of NULLs for a statement prepared from `text` (none: no list). */
export function nullArguments(text: string): string {
  const n = parameterCount(text);
  return n === 0 ? '' : `(${Array.from({ length: n }, () => 'NULL').join(', ')})`;
}

/** How many parameters a statement's text takes: PREPARE without types takes its highest `$n`. */
export function parameterCount(text: string): number {
  let most = 0;
  for (const m of text.matchAll(/\$(\d+)/g)) most = Math.max(most, Number(m[1]));
  return most;
}

/** When a connection first and last prepared a statement. */
export interface PreparedPlan {
  first: number;
  at: number;
}

/** Whether a plan prepared as `plan` is due to be made again at `now`. */
export function replanDue(plan: PreparedPlan, now: number): boolean {
  const interval = Math.min(REPLAN_MAX_MS, Math.max(REPLAN_MIN_MS, plan.at - plan.first));
  return now - plan.at >= interval;
}

/**
 * The prepared-statement state of one transaction on one connection: which statements the
 * connection has prepared (shared by its transactions), which a message in flight prepares, and
 * whether this transaction has set its plan mode. Shared by the WriteBehinds of a group commit's
 * members (group-commit.ts), so two of them never prepare one statement twice.
 */
export class TxPlans {
  /** `SET LOCAL plan_cache_mode` sent (or queued) in this transaction. */
  generic = false;
  /** Names PREPAREd in a message not answered yet. */
  readonly preparing = new Set<string>();
  /** A message that prepared statements failed: PostgreSQL may or may not have them. */
  inDoubt = false;
  readonly now = Date.now();
  /**
   * Shared by several WriteBehinds (a group commit's members): what sets up a deferred write
   * (SET LOCAL, DEALLOCATE, PREPARE) then goes with the next message any of them sends, not
   * with the write, since another member may send an EXECUTE of the same statement first.
   */
  private setup: string[] = [];
  private setupNames: string[] = [];

  constructor(
    readonly prepared: Map<string, PreparedPlan>,
    readonly shared = false,
  ) {}

  /** Queues what sets up a deferred write (shared plans only). */
  addSetup(statements: readonly string[], names: readonly string[]): void {
    this.setup.push(...statements);
    this.setupNames.push(...names);
  }

  /** What waits to set up deferred writes, taken to go first in the next message. */
  takeSetup(): { statements: string[]; names: string[] } {
    const out = { statements: this.setup, names: this.setupNames };
    this.setup = [];
    this.setupNames = [];
    return out;
  }

  /** A message that prepared `names` went through. */
  done(names: readonly string[]): void {
    for (const name of names) {
      this.prepared.set(name, { first: this.prepared.get(name)?.first ?? this.now, at: this.now });
      this.preparing.delete(name);
    }
  }
}

/** Runs several statements as one simple-protocol message; one answer per statement. */
export type SendMany = (statements: readonly string[]) => Promise<unknown>;

export class WriteBehind {
  private pending: PendingWrite[] = [];
  private count = 0;
  private readonly plans: TxPlans | undefined;
  private sentWrite = false;

  constructor(
    private readonly raw: Query,
    /**
     * Names this connection has prepared (`PREPARE wb_<name>`), shared by its transactions. A
     * named statement goes as `EXECUTE` of its prepared plan: without it PostgreSQL planned every
     * inlined statement again, about a third of its time on a step (docs/PERFORMANCE.md).
     * Without it, statements go inlined. A `TxPlans` when several WriteBehinds share a transaction.
     */
    prepared?: Map<string, PreparedPlan> | TxPlans,
    /** Sends a message of several statements (default: `raw` of the statements joined). */
    private readonly many?: SendMany,
  ) {
    this.plans = prepared instanceof Map ? new TxPlans(prepared) : prepared;
  }

  /** Defers a write: written as text when it is sent, so that a group commit can merge it first. */
  later(sql: Sql | string, values: readonly unknown[]): void {
    this.count++;
    this.pending.push({ sql, values });
  }

  /**
   * Whether this connection's prepared statements are in doubt: a batch that prepared some
   * failed, so PostgreSQL may or may not have them. Such a connection is not reused.
   */
  get uncertain(): boolean {
    return this.plans?.inDoubt ?? false;
  }

  /**
   * Whether this transaction may have changed something in the database: a deferred write was
   * sent, or a statement that answers and is not a plain SELECT. A group commit (group-commit.ts)
   * can drop a failed member that changed nothing without rolling the others back.
   */
  get wrote(): boolean {
    return this.sentWrite;
  }

  /** Whether nothing has been written nor waits to be: leaving the transaction takes nothing back. */
  get clean(): boolean {
    return !this.sentWrite && this.pending.length === 0;
  }

  /**
   * The statements that run `sql` with `values`: EXECUTE of its prepared plan (after what sets
   * it up, the first time), or the statement inlined. The last one answers. `names` collects the
   * statements this prepares.
   */
  private statement(sql: Sql | string, values: readonly unknown[], names: string[]): string[] {
    const plans = this.plans;
    if (typeof sql === 'string' || plans === undefined || !PREPARED_STATEMENTS.has(sql.name))
      return [inline(textOf(sql), values)];
    const name = `wb_${sql.name}`;
    const parts: string[] = [];
    if (!plans.generic) {
      // The generic plan of each: their parameters are keys and arrays of keys, which never change
      // a good plan, while the default would keep planning some of them for every call. Until the
      // transaction ends.
      plans.generic = true;
      parts.push('SET LOCAL plan_cache_mode = force_generic_plan');
    }
    const plan = plans.prepared.get(name);
    if (!plans.preparing.has(name) && (plan === undefined || replanDue(plan, plans.now))) {
      plans.preparing.add(name);
      names.push(name);
      if (plan !== undefined) parts.push(`DEALLOCATE ${name}`);
      parts.push(...preparation(name, sql.text));
    }
    const args = storableParams(values).map(literal).join(', ');
    parts.push(values.length > 0 ? `EXECUTE ${name}(${args})` : `EXECUTE ${name}`);
    return parts;
  }

  /** Whether `sql` goes as EXECUTE of a plan this connection prepares (`statement` below). */
  private preparesItself(sql: Sql | string): boolean {
    return this.plans !== undefined && typeof sql !== 'string' && PREPARED_STATEMENTS.has(sql.name);
  }

  /** Sends a batch; the statements it prepared are the connection's once it went through. */
  private async send(statements: readonly string[], names: readonly string[]): Promise<unknown> {
    if (this.plans?.shared) {
      const setup = this.plans.takeSetup();
      statements = [...setup.statements, ...statements];
      names = [...setup.names, ...names];
    }
    try {
      const answer: unknown = this.many
        ? await this.many(statements)
        : await this.raw(statements.join(';\n'));
      this.plans?.done(names);
      return answer;
    } catch (err) {
      if (names.length > 0 && this.plans) this.plans.inDoubt = true;
      throw err;
    }
  }

  /**
   * A query that must answer now. With writes waiting, they and the query go in one message
   * (the query inlined too; its answer is the message's last); otherwise the query goes alone,
   * as node-postgres's prepared statement. A statement this connection prepares itself goes as
   * its EXECUTE either way: node-postgres keeps the plan of its statement's first execution for
   * as long as the connection lives, made from the table sizes of that moment. On a shared
   * connection (`many` given: a group commit's member) every query goes as text, to travel with
   * the other members' in one message.
   */
  readonly q: Query = async <R extends pg.QueryResultRow>(
    sql: Sql | string,
    values: readonly unknown[] = [],
  ) => {
    if (this.pending.length === 0 && this.many === undefined && !this.preparesItself(sql)) {
      this.count++;
      if (!isPlainSelect(sql)) this.sentWrite = true;
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
    const { statements: batch, names } = this.takePending();
    // What sets the queries up (PREPARE, SET) goes first: their answers are the batch's last ones.
    const runs: string[] = [];
    for (const query of queries) {
      if (!isPlainSelect(query.sql)) this.sentWrite = true;
      const parts = this.statement(query.sql, query.values, names);
      runs.push(parts.pop() ?? '');
      batch.push(...parts);
    }
    batch.push(...runs);
    const answer = await this.send(batch, names);
    const results = (Array.isArray(answer) ? answer : [answer]) as pg.QueryResult[];
    return results.slice(results.length - queries.length);
  }

  /**
   * The deferred writes, taken out to be sent (with a query, with COMMIT, or by a group commit
   * with its COMMIT) as text, and the statements they prepare.
   */
  takePending(): { statements: string[]; names: string[] } {
    return this.render(this.takePendingWrites());
  }

  /** The deferred writes, taken out as they were queued (a group commit merges its members'). */
  takePendingWrites(): PendingWrite[] {
    // BEGIN alone is not a write.
    if (this.pending.some((w) => w.sql !== 'BEGIN')) this.sentWrite = true;
    const out = this.pending;
    this.pending = [];
    return out;
  }

  /**
   * Writes as the statements that run them (after what sets them up: with shared plans, that
   * goes to the plans, to be taken first by the next message), and the statements they prepare.
   */
  render(writes: readonly PendingWrite[]): { statements: string[]; names: string[] } {
    const statements: string[] = [];
    const names: string[] = [];
    for (const w of writes) {
      if (this.plans?.shared) {
        const own: string[] = [];
        const parts = this.statement(w.sql, w.values, own);
        statements.push(parts.pop() ?? '');
        this.plans.addSetup(parts, own);
      } else statements.push(...this.statement(w.sql, w.values, names));
    }
    return { statements, names };
  }

  /** How many statements this transaction has sent or queued (a prefetched answer is stale once it moves). */
  get statements(): number {
    return this.count;
  }

  /** Sends the deferred writes, followed by `tail` (e.g. COMMIT) in the same message when given. */
  async flush(tail?: string): Promise<void> {
    if (this.pending.length === 0) {
      if (tail !== undefined) await this.raw(tail);
      return;
    }
    const { statements, names } = this.takePending();
    await this.send([...statements, ...(tail === undefined ? [] : [tail])], names);
  }
}

/** A statement that only reads (row locks aside): SELECT, or EXECUTE of a prepared SELECT. */
function isPlainSelect(sql: Sql | string): boolean {
  return /^\s*SELECT\b/i.test(textOf(sql));
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
  if (typeof value === 'string') return escapeLiteral(value);
  if (Array.isArray(value)) return escapeLiteral(`{${value.map(arrayElement).join(',')}}`);
  throw new Error(`cannot write a ${typeof value} parameter as an SQL literal`);
}

/**
 * A string as an SQL literal, the text pg's `escapeLiteral` makes: quotes doubled, and with a
 * backslash, backslashes doubled in an `E'…'` string. pg builds it one character at a time, which
 * left a string object per character of every task record written (a quarter of what the server
 * allocated per step).
 */
export function escapeLiteral(value: string): string {
  const quoted = value.includes("'") ? value.replace(/'/g, "''") : value;
  if (!value.includes('\\')) return `'${quoted}'`;
  return ` E'${quoted.replace(/\\/g, '\\\\')}'`;
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
