import type pg from 'pg';

import { type Query, type Sql } from './sql.js';
import { sqlState } from '../store/sqlstate.js';
import { mergeWrites } from './merge-writes.js';
import { TxPlans, WriteBehind, inline } from './write-behind.js';
import type { Joinable, Tx } from '../store/store.js';
import { TxState } from '../store/sql-common.js';
import { storeFault } from '../store/store-faults.js';
import { ControlFlowError } from '../control-flow-error.js';

/**
 * Group commit: concurrent transactions of one node that asked for it (`Store.transaction(fn,
 * { group: true })`: a worker's result or poll) run together as the members of one PostgreSQL
 * transaction on one connection. Their statements go to PostgreSQL in shared messages (whatever
 * the members send in the same turn of the event loop is one message), and one COMMIT ends them
 * all: one BEGIN, one plan-mode SET, one COMMIT and a fraction of the round trips per member
 * instead of a transaction each.
 *
 * Each member still locks its run by its row (`lockRun`), and two members never hold the same
 * run, nor the same task type's limit row (`lockTaskLimit`): a member that asks for one that
 * another member (of any batch in flight on this node) holds leaves the batch and waits in line for
 * that key; once no batch holds it, the first in line joins the next batch (`parked`; alone after
 * `MAX_REQUEUES` times turned away). A run locked by a transaction outside the batch is not
 * waited for inside it either: that member leaves for the next batch (`LockedElsewhere`). A
 * member's failure is its own:
 *   - a member that failed having changed nothing (plain SELECTs, deferred writes never sent) is
 *     dropped with its deferred writes, and the others commit;
 *   - otherwise (it sent a write, or PostgreSQL refused a statement of the batch, which aborts
 *     the whole transaction) the batch rolls back and every member runs again alone, in a
 *     transaction of its own, exactly as without group commit.
 * So a member may run more than once before it commits, as a transaction retried after a
 * serialization failure may: transaction functions have no effect outside the transaction.
 * Transactions of one batch that may be done together (`Joinable`, the same key: results for one
 * run) are one member, running the first one's joint function: where each would otherwise leave
 * the batch for the run another holds, and wait a batch each, they share one lock, one read and
 * one decision. A joint that fails having changed nothing runs each of its transactions alone.
 * A COMMIT that fails without an answer from PostgreSQL (the connection lost) leaves the outcome
 * unknown, and every member gets that error, as a transaction of its own would.
 */

export interface GroupCommitOptions {
  /** A connection of the pool. */
  connect(): Promise<pg.PoolClient>;
  /** The prepared statements of a connection (write-behind.ts). */
  prepared(client: pg.PoolClient): TxPlans['prepared'];
  /** A `Tx` of a member: its query function, state, NOTIFY set, deferred writes and locks. */
  tx(q: Query, state: TxState, notified: Set<string>, writes: WriteBehind, locks: MemberLocks): Tx;
  /** Runs a transaction alone, with the store's retries (the path without group commit). */
  alone<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Queue names to NOTIFY, once their transaction committed. */
  notify(names: Set<string>): void;
  /** Told of the error that lost a batch's connection (a demoted primary moves the node on). */
  lost?(err: unknown, client: pg.PoolClient): void;
  /** Members of one batch at most (default 64). */
  maxBatch?: number;
  /**
   * Batches in flight at once, each on a connection of its own (default 4). A second starts only
   * while the first is held up (see `GroupCommit.schedule`).
   */
  maxInFlight?: number;
  /** A monotonic clock in ms (default `performance.now`), for how long batches take. */
  now?: () => number;
}

/**
 * Told what a member locks to serialise itself against other transactions (`lockRun`: its run;
 * `lockTaskLimit`: a task type's limit row). Inside one transaction such a row lock serialises
 * nothing between members, so this throws `HeldInBatch` when another member (of any batch in
 * flight on this node) holds the same key.
 */
export interface MemberLocks {
  claim(key: string): void;
}

/** A member asked for a lock that another member of a batch in flight holds. */
export class HeldInBatch extends ControlFlowError {
  constructor(readonly key: string) {
    super(`${key} is held by another transaction of this group commit`);
  }
}

/**
 * A member found its run locked by a transaction outside the batch: another node's, or one of
 * this node's that runs alone. Waiting for that lock inside the batch would hold up every other
 * member until that transaction ends (and two nodes' batches waiting for each other's runs could
 * deadlock until PostgreSQL aborts one, every member of that batch then running again alone). So
 * a member that has written nothing yet takes the lock without waiting (`SKIP LOCKED`) and,
 * finding it taken, leaves the batch for the next one, behind what arrived meanwhile; turned
 * away more than `MAX_REQUEUES` times in all, it runs alone and waits for the lock by itself.
 * Joining the next batch cost less than running alone at once (a batch's shared BEGIN and
 * COMMIT; docs/PERFORMANCE.md, "Built: a run locked elsewhere does not hold up a batch").
 */
export class LockedElsewhere extends ControlFlowError {
  constructor(readonly key: string) {
    super(`${key} is locked by a transaction outside this group commit`);
  }
}

interface Unit {
  fn: (tx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  /** Times it has left a batch for a lock another member held (`MAX_REQUEUES`). */
  evictions: number;
  /** The key it was let in for from `parked`, until the batch that takes it ends. */
  reservation?: string;
  /** May run joined with others of the same key in a batch. */
  join?: Joinable;
}

/** What the group committer has done, for tests and metrics. */
// A type, not an interface: it is read as a record of counts (metrics.ts).
export type GroupCommitStats = {
  batches: number;
  members: number;
  /** Batches rolled back, their members run again alone. */
  fallbacks: number;
  /** Times a member left a batch for a lock another member held (one member may leave several). */
  evicted: number;
  /** Times a member left a batch for a run locked outside it (`LockedElsewhere`). */
  elsewhere: number;
  /** Deferred writes that went as part of another member's statement (merge-writes.ts). */
  merged: number;
  /** Transactions committed by another one's joint function (`Joinable`): one decision for several. */
  joined: number;
};

/** Every count at zero: a group committer's before its first transaction. */
export function noGroupCommits(): GroupCommitStats {
  return { batches: 0, members: 0, fallbacks: 0, evicted: 0, elsewhere: 0, merged: 0, joined: 0 };
}

/**
 * A batch in flight that has taken this many times as long as batches typically take (never
 * less than the floor) counts as held up, most likely waiting for a row lock, and no longer keeps
 * the next batch waiting.
 */
const STALL_FACTOR = 4;
const STALL_FLOOR_MS = 5;

/**
 * A member that left a batch for a lock another member held waits, in order with the others that
 * left for the same key, until no batch in flight holds the key; then one of them at a time joins
 * the next batch, ahead of what arrived since (`parked`). The results of one run's parallel
 * branches arrive together, and all but one leave their batch: each in a transaction of its own
 * paid its own BEGIN, round trips and COMMIT, where a batch shares them, and several of them at
 * once only waited for each other's row lock in PostgreSQL (docs/PERFORMANCE.md, "Built: a member
 * that left its batch joins the next"). A member that has left batches more than this many times
 * runs alone, and waits for the row lock in PostgreSQL as any transaction does.
 */
const MAX_REQUEUES = 3;

/** Transactions one joint function takes at most (a fork's branches ending together). */
const MAX_JOINED = 16;

export class GroupCommit {
  private waiting: Unit[] = [];
  private scheduled = false;
  /** Batches (and lone transactions) in flight: when each started. */
  private readonly flying = new Set<{ at: number }>();
  /** How long a batch typically takes, in ms (a moving average). */
  private typicalMs = STALL_FLOOR_MS;
  private stallCheck: NodeJS.Timeout | undefined;
  /** Locks (runs, limit rows) held by members of batches in flight, and by which. */
  private readonly held = new Map<string, Member>();
  /** Members that left a batch for a key, by key, in the order they left. */
  private readonly parked = new Map<string, Unit[]>();
  /** Keys a parked member was let in for, until the batch that takes it ends. */
  private readonly reserved = new Set<string>();
  readonly stats: GroupCommitStats = noGroupCommits();
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private readonly now: () => number;

  constructor(private readonly options: GroupCommitOptions) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 64);
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 4);
    this.now = options.now ?? (() => performance.now());
  }

  /** Transactions waiting for a batch to take them (not those parked for a key). */
  get queued(): number {
    return this.waiting.length;
  }

  transaction<T>(fn: (tx: Tx) => Promise<T>, join?: Joinable): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const unit: Unit = {
        fn,
        resolve: (value) => resolve(value as T),
        reject,
        evictions: 0,
        ...(join && { join }),
      };
      this.waiting.push(unit);
      this.schedule();
    });
  }

  /**
   * Starts a batch of whatever waits in the next turn, so that arrivals of this turn join it.
   * One batch at a time while it moves: what arrives meanwhile waits to be the next batch, so a
   * loaded node commits fewer, larger batches (half the commits and round trips per step of four
   * batches in flight, and a third less PostgreSQL CPU; docs/PERFORMANCE.md). A batch held up (a
   * member waiting for a lock another transaction holds) no longer counts after a while, and
   * more start beside it, up to `maxInFlight`: one run's wait delays the others only briefly.
   */
  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0 || this.flying.size >= this.maxInFlight) return;
    const now = this.now();
    const stallAfter = Math.max(STALL_FLOOR_MS, STALL_FACTOR * this.typicalMs);
    let moving = Infinity;
    for (const b of this.flying) if (now - b.at < stallAfter) moving = Math.min(moving, b.at + stallAfter);
    if (moving !== Infinity) {
      this.checkAgainIn(moving - now);
      return;
    }
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.flying.size >= this.maxInFlight) return;
      const units = this.waiting.splice(0, this.maxBatch);
      if (units.length === 0) return;
      const batch = { at: this.now() };
      this.flying.add(batch);
      // Once: a batch frees its place before it answers its members (runBatch), and again at its end.
      const done = (): void => {
        if (!this.flying.delete(batch)) return;
        this.typicalMs += (this.now() - batch.at - this.typicalMs) / 10;
        this.schedule();
      };
      // A lone transaction goes the plain way: nothing to share, no message to wait for. One let
      // in from `parked` keeps its key reserved until it ends, so the next of that key waits.
      const only = units.length === 1 ? units[0] : undefined;
      if (only)
        void this.options
          .alone(only.fn)
          .then(only.resolve, only.reject)
          .finally(() => {
            this.endReservations([only]);
            done();
          });
      else void this.runBatch(units, done).finally(done);
      this.schedule();
    });
  }

  /** Looks again once the batch in flight would count as held up (unless one ends first). */
  private checkAgainIn(ms: number): void {
    if (this.stallCheck) return;
    this.stallCheck = setTimeout(
      () => {
        this.stallCheck = undefined;
        this.schedule();
      },
      Math.max(1, Math.ceil(ms)),
    );
    // What waits is held by a batch in flight, whose connection keeps the process alive.
    this.stallCheck.unref();
  }

  /**
   * Runs `units` as one batch. `freed` is called once the batch holds nothing any more (its keys,
   * its connection), before its members are answered: see `answerAfterNext`.
   */
  private async runBatch(units: readonly Unit[], freed: () => void): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.options.connect();
    } catch (err) {
      this.endReservations(units);
      for (const u of units) u.reject(err);
      return;
    }
    this.stats.batches++;
    this.stats.members += units.length;
    const channel = new SharedChannel(client);
    const plans = new TxPlans(this.options.prepared(client), true);
    const members: Member[] = joinedUp(units).map((together) => ({
      units: together,
      state: new TxState(true),
      writes: new WriteBehind(channel.query, plans, channel.many),
      notified: new Set<string>(),
      keys: [],
    }));
    const outcomes = await Promise.allSettled(
      members.map(async (m) => {
        const tx = this.options.tx(m.writes.q, m.state, m.notified, m.writes, this.locksOf(m));
        const [first, ...more] = m.units;
        if (!first) return undefined;
        if (more.length === 0 || !first.join) return first.fn(tx);
        return first.join.joint(
          tx,
          m.units.flatMap((u) => (u.join ? [u.join] : [])),
        );
      }),
    );
    for (const m of members) m.state.closed = true;

    const committing: Array<{ member: Member; value: unknown }> = [];
    // Members that left: for a key another member held (parked), or for a run locked elsewhere
    // (the next batch).
    const later: Array<{ unit: Unit; key?: string }> = [];
    const dropped: Array<{ unit: Unit; err: unknown }> = [];
    // Joined transactions whose joint failed having changed nothing: each runs again alone.
    const split: Unit[] = [];
    let rollback = channel.failed !== undefined;
    members.forEach((m, i) => {
      const o = outcomes[i];
      if (o?.status === 'fulfilled') committing.push({ member: m, value: o.value });
      else if (m.writes.wrote) rollback = true;
      else if (o?.reason instanceof HeldInBatch)
        for (const unit of m.units) later.push({ unit, key: o.reason.key });
      else if (o?.reason instanceof LockedElsewhere) for (const unit of m.units) later.push({ unit });
      else if (m.units.length > 1) split.push(...m.units);
      else for (const unit of m.units) dropped.push({ unit, err: o?.reason });
    });

    let broken = false;
    let answer: (() => void) | undefined;
    if (!rollback) {
      // The members' deferred writes, the same statement of several made one (merge-writes.ts).
      const lists = committing.map(({ member }) => member.writes.takePendingWrites());
      const writes = mergeWrites(lists);
      this.stats.merged += lists.reduce((n, list) => n + list.length, 0) - writes.length;
      const rendered = committing[0]?.member.writes.render(writes) ?? { statements: [], names: [] };
      // What sets up the deferred writes first (a dropped member's too: an EXECUTE may need it).
      const { statements, names } = plans.takeSetup();
      statements.push(...rendered.statements);
      names.push(...rendered.names);
      try {
        await channel.many([...statements, 'COMMIT']);
        plans.done(names);
        for (const { member } of committing) this.stats.joined += member.units.length - 1;
        answer = () => {
          const notified = new Set<string>();
          for (const { member, value } of committing) {
            for (const n of member.notified) notified.add(n);
            answerMember(member, value);
          }
          if (notified.size > 0) this.options.notify(notified);
          for (const d of dropped) d.unit.reject(d.err);
        };
      } catch (err) {
        if (names.length > 0) plans.inDoubt = true;
        if (sqlState(err) === undefined || storeFault(err) !== undefined) {
          // No answer: the COMMIT may or may not have happened. As a transaction of its own.
          broken = true;
          this.options.lost?.(err, client);
          for (const u of [
            ...committing.flatMap((c) => c.member.units),
            ...dropped.map((d) => d.unit),
            ...later.map((l) => l.unit),
            ...split,
          ])
            u.reject(err);
          later.length = 0;
          split.length = 0;
        } else {
          // PostgreSQL refused a deferred write: nothing committed; each runs again alone.
          rollback = true;
        }
      }
    }
    const lost = channel.failed !== undefined && storeFault(channel.failed) !== undefined;
    if (rollback && lost) {
      // The connection is gone (or silent): nothing committed, no ROLLBACK to wait for. Every
      // member fails with that error, as a transaction of its own would, instead of running again.
      broken = true;
      rollback = false;
      this.options.lost?.(channel.failed, client);
      for (const u of units) u.reject(channel.failed);
      later.length = 0;
      split.length = 0;
    }
    if (rollback) {
      this.stats.fallbacks++;
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
    }
    const alone = rollback ? [...units] : split;
    if (!rollback) {
      for (const { unit, key } of later) {
        if (key === undefined) this.stats.elsewhere++;
        else this.stats.evicted++;
        if (++unit.evictions > MAX_REQUEUES) alone.push(unit);
        else if (key === undefined) this.waiting.push(unit);
        else this.park(key, unit);
      }
    }
    for (const m of members) for (const k of m.keys) if (this.held.get(k) === m) this.held.delete(k);
    this.endReservations(units);
    client.release(broken || plans.inDoubt);
    freed();
    if (answer) this.answerAfterNext(answer);
    for (const u of alone) void this.options.alone(u.fn).then(u.resolve, u.reject);
  }

  /**
   * Answers a committed batch's members, after the next batch (if one waits) has sent its first
   * message. Answering is the members' own code: their HTTP answers serialised and written, about
   * a tenth of a millisecond each. Run first, it kept PostgreSQL idle while the node wrote them,
   * since the next batch starts in a later turn (`schedule`) and sends in a later one still
   * (`SharedChannel`); run after, it overlaps the next batch's first round trip
   * (docs/PERFORMANCE.md, "Built: a batch answers while the next one reads"). Two turns: the next
   * batch's members queue their first message in the first, and it goes at the start of the
   * second, ahead of this. Nothing waiting: at once.
   */
  private answerAfterNext(answer: () => void): void {
    if (this.waiting.length === 0) answer();
    else setImmediate(() => setImmediate(answer));
  }

  /** `unit` waits for `key`; one let in for it and turned away again keeps its place at the front. */
  private park(key: string, unit: Unit): void {
    const line = this.parked.get(key) ?? [];
    if (unit.reservation === key) line.unshift(unit);
    else line.push(unit);
    this.parked.set(key, line);
  }

  /** The batch that took `units` has ended: the keys they were let in for are free to let in the next. */
  private endReservations(units: readonly Unit[]): void {
    for (const u of units) {
      if (u.reservation !== undefined) this.reserved.delete(u.reservation);
      delete u.reservation;
    }
    // Ahead of what arrived meanwhile: the batch that starts as this one ends takes them.
    this.unpark();
  }

  /** Lets the first parked member of each key no batch in flight holds into the waiting line. */
  private unpark(): void {
    const ready: Unit[] = [];
    for (const [key, line] of this.parked) {
      if (this.held.has(key) || this.reserved.has(key)) continue;
      const unit = line.shift();
      if (line.length === 0) this.parked.delete(key);
      if (unit === undefined) continue;
      unit.reservation = key;
      this.reserved.add(key);
      ready.push(unit);
    }
    this.waiting.unshift(...ready);
  }

  /** The locks of one member: a key another member holds sends it out of the batch. */
  private locksOf(member: Member): MemberLocks {
    return {
      claim: (key) => {
        const holder = this.held.get(key);
        if (holder === member) return;
        if (holder !== undefined) throw new HeldInBatch(key);
        this.held.set(key, member);
        member.keys.push(key);
      },
    };
  }
}

/**
 * `units` as the members they run as: each alone, except those that may be joined (the same
 * `Joinable` key), which go together as one member where the first of them stands, in order.
 */
function joinedUp(units: readonly Unit[]): Unit[][] {
  const members: Unit[][] = [];
  const open = new Map<string, Unit[]>();
  for (const unit of units) {
    const key = unit.join?.key;
    const together = key === undefined ? undefined : open.get(key);
    if (together && together.length < MAX_JOINED) {
      together.push(unit);
      continue;
    }
    const member = [unit];
    members.push(member);
    if (key !== undefined) open.set(key, member);
  }
  return members;
}

/** A committed member's answer: its one transaction's value, or each joined one's own outcome. */
function answerMember(member: Member, value: unknown): void {
  const [first, ...more] = member.units;
  if (more.length === 0) {
    first?.resolve(value);
    return;
  }
  const outcomes = value as ReadonlyArray<PromiseSettledResult<unknown>>;
  member.units.forEach((unit, i) => {
    const outcome = outcomes[i];
    if (outcome?.status === 'fulfilled') unit.resolve(outcome.value);
    else
      unit.reject(
        outcome ? outcome.reason : new Error('a joint transaction answered no outcome for a member'),
      );
  });
}

/**
 * A unit of work inside a batch: its transaction's state, deferred writes, NOTIFYs and locks.
 * Usually one transaction; several joined ones run as their first one's joint function.
 */
interface Member {
  units: Unit[];
  state: TxState;
  writes: WriteBehind;
  notified: Set<string>;
  /** Lock keys it holds (`held`), released when the batch ends. */
  keys: string[];
}

interface Pending {
  statements: string[];
  /** Answers the message's share of results: one, or one per statement. */
  resolve: (results: pg.QueryResult[]) => void;
  reject: (err: unknown) => void;
}

/**
 * The connection of a batch, shared by its members: what they send in one turn of the event loop
 * goes as one simple-protocol message (BEGIN first, the first time), one message at a time.
 * After PostgreSQL refuses a statement the transaction is aborted: everything after is refused.
 */
class SharedChannel {
  private queue: Pending[] = [];
  private busy = false;
  private began = false;
  failed: unknown;

  constructor(private readonly client: pg.PoolClient) {}

  readonly query: Query = <R extends pg.QueryResultRow>(
    sql: Sql | string,
    values: readonly unknown[] = [],
  ): Promise<pg.QueryResult<R>> =>
    new Promise((resolve, reject) => {
      this.submit({
        statements: [inline(typeof sql === 'string' ? sql : sql.text, values)],
        resolve: (results) => resolve(results[0] as pg.QueryResult<R>),
        reject,
      });
    });

  readonly many = (statements: readonly string[]): Promise<pg.QueryResult[]> =>
    new Promise((resolve, reject) => {
      this.submit({ statements: [...statements], resolve, reject });
    });

  private submit(p: Pending): void {
    if (this.failed !== undefined) {
      p.reject(this.failed);
      return;
    }
    this.queue.push(p);
    if (!this.busy) {
      this.busy = true;
      setImmediate(() => void this.pump());
    }
  }

  private async pump(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const first = !this.began;
      this.began = true;
      try {
        const statements = [...(first ? ['BEGIN'] : []), ...batch.flatMap((p) => p.statements)];
        const answer: unknown = await this.client.query(statements.join(';\n'));
        const results = (Array.isArray(answer) ? answer : [answer]) as pg.QueryResult[];
        let at = first ? 1 : 0;
        for (const p of batch) {
          p.resolve(results.slice(at, at + p.statements.length));
          at += p.statements.length;
        }
      } catch (err) {
        this.failed = err;
        for (const p of [...batch, ...this.queue]) p.reject(err);
        this.queue = [];
      }
    }
    this.busy = false;
  }
}
