import { performance } from 'node:perf_hooks';

import type { Logger } from 'pino';

import type { Clock } from '../clock.js';
import type { FiredTimer, TimerKind } from '../engine/index.js';
import { coerceError } from '../errors.js';
import { newId } from '../ids.js';
import type { WakeBus } from '../queue/wake-bus.js';
import type { StoredTimer, Store, Tx } from '../store/store.js';
import type { AfterCommit, DecisionApplier } from '../decisions/decision-applier.js';
import { attemptAfterCommit, type HandOffAttempts, settledWith } from '../decisions/after-commit.js';
import { OutageLog } from '../store/outage-log.js';
import { actOnLapsedLock } from './lapsed-locks.js';

export interface TimerLoopOptions {
  /** Longest sleep between checks, so timers armed by other nodes are seen (ms). */
  idleMs: number;
  /** Timers claimed per round (default 100). */
  batchSize?: number;
  /** How long a claim leases its timers before another node may take them (default 10 s). */
  leaseMs?: number;
  /**
   * A new set of reservations in this node's waiting polls (handout/parked-polls.ts), for each
   * attempt of a timer's transaction: what it queues goes to a waiting poll as a start's does.
   */
  parkedAttempt?: HandOffAttempts;
}

const TIMER_KINDS: ReadonlySet<string> = new Set<TimerKind>([
  'WAIT',
  'POLL_TIMEOUT',
  'RESPONSE_TIMEOUT',
  'TASK_TIMEOUT',
  'TOTAL_TIMEOUT',
  'WORKFLOW_TIMEOUT',
  'CONTINUE',
  'START_RUN',
]);
/** A hint for a timer due "now" is acted on a moment later, once its transaction has committed. */
const HINT_SETTLE_MS = 25;
/** Bound on claim rounds of one `fireDue`, in case firing keeps arming timers already due. */
const MAX_ROUNDS = 1000;

/**
 * The workflow-state scheduler (docs/design/shape.md#durable-timers-the-only-sweeper): the durable
 * timer table and the queue's locks (whose lapse is a response timeout) are the only sweepers.
 * The loop sleeps until the next timer is due (woken early when this node arms an earlier one, and at
 * least every `idleMs` to see timers armed by other nodes), claims due timers under a lease
 * (SKIP LOCKED on PostgreSQL, so nodes share them), and fires each in its own transaction that
 * locks the run, deletes the timer and applies the decision it causes: a timer fires once, and
 * one whose node died mid-fire is fired by another node when its lease lapses.
 */
export class TimerLoop {
  private running = false;
  private loop: Promise<void> | undefined;
  private hint: number | undefined;
  private sleeping: { until: number; wake: () => void } | undefined;
  private lastTick: number | undefined;
  private readonly batchSize: number;
  private readonly outage: OutageLog;
  private readonly leaseMs: number;
  /** Timers that belong to no run (schedules): fired by their owner inside the firing transaction. */
  private readonly kinds = new Map<
    string,
    (tx: Tx, timer: StoredTimer, after: AfterCommit) => Promise<void>
  >();

  constructor(
    private readonly store: Store,
    private readonly executor: DecisionApplier,
    private readonly wake: WakeBus,
    private readonly clock: Clock,
    private readonly logger: Pick<Logger, 'warn' | 'error' | 'info'>,
    private readonly options: TimerLoopOptions,
  ) {
    this.outage = new OutageLog(logger, 'timer loop');
    this.batchSize = options.batchSize ?? 100;
    this.leaseMs = options.leaseMs ?? 10_000;
  }

  /** Timers of `kind` are fired by `fire` (in a transaction that has just deleted the timer). */
  handleKind(kind: string, fire: (tx: Tx, timer: StoredTimer, after: AfterCommit) => Promise<void>): void {
    this.kinds.set(kind, fire);
  }

  /** Starts the background loop (idempotent). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.lastTick = performance.now();
    this.loop = this.run();
  }

  /** Stops the loop and waits for the round in progress to finish. */
  async stop(): Promise<void> {
    this.running = false;
    this.sleeping?.wake();
    await this.loop;
    this.loop = undefined;
  }

  /** A timer due at `dueAt` is being armed on this node: wake in time for it. */
  armed(dueAt: number): void {
    const at = Math.max(dueAt, this.clock.now() + HINT_SETTLE_MS);
    this.hint = this.hint === undefined ? at : Math.min(this.hint, at);
    if (this.sleeping && at < this.sleeping.until) this.sleeping.wake();
  }

  /**
   * Fires every timer due at `now` (default: the clock's now) once, including timers that the
   * firing itself arms already due, and answers how many fired. The background loop calls it;
   * tests on a manual clock call it directly instead of sleeping through real timeouts. The
   * decisions are made at the executor's clock time, so move that clock to `now` first.
   */
  async fireDue(now: number = this.clock.now()): Promise<number> {
    let fired = 0;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const claimed = await this.store.transaction((tx) =>
        tx.claimDueTimers({ now, limit: this.batchSize, leaseMs: this.leaseMs }),
      );
      if (claimed.length === 0) break;
      for (const timer of claimed) {
        try {
          if (await this.fire(timer)) fired++;
        } catch (raw) {
          // Left leased: it is claimed again when the lease lapses.
          this.logger.error({ err: coerceError(raw), timerId: timer.timerId }, 'timer failed to fire');
        }
      }
    }
    return fired + (await this.sweepLapsedLocks(now));
  }

  /** Response timeouts: locks that lapsed at `now` (lapsed-locks.ts), leased and acted on one by one. */
  private async sweepLapsedLocks(now: number): Promise<number> {
    let fired = 0;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const lease = { lockToken: newId() };
      const lapsed = await this.store.transaction((tx) =>
        tx.claimLapsedLocks({
          now,
          limit: this.batchSize,
          leaseMs: this.leaseMs,
          lockToken: lease.lockToken,
        }),
      );
      if (lapsed.length === 0) break;
      for (const message of lapsed) {
        try {
          const { applied, after } = await this.settled(async (tx, after) => ({
            applied: await actOnLapsedLock(tx, this.executor, message, lease, now, after),
            after,
          }));
          this.executor.afterCommitted(after, this.wake);
          if (applied) fired++;
        } catch (raw) {
          // Left leased: it is swept again when the lease lapses.
          this.logger.error(
            { err: coerceError(raw), taskId: message.taskId },
            'response timeout failed to fire',
          );
        }
      }
    }
    return fired;
  }

  /** Whether the loop runs and how long ago it last completed a round (`/health`). */
  health(): { running: boolean; lastTickAgeMs?: number } {
    if (!this.running || this.lastTick === undefined) return { running: false };
    return { running: true, lastTickAgeMs: Math.round(performance.now() - this.lastTick) };
  }

  /** Throws when the running loop has not completed a round for much longer than it sleeps. */
  healthCheck(): Promise<Record<string, unknown>> {
    const h = this.health();
    const limit = Math.max(30_000, this.options.idleMs * 5);
    if (h.running && (h.lastTickAgeMs ?? 0) > limit)
      return Promise.reject(new Error(`the timer loop last completed a round ${h.lastTickAgeMs} ms ago`));
    return Promise.resolve({ ...h });
  }

  /** One timer, one transaction: run locked, timer deleted (or found gone: fired elsewhere), decision applied. */
  private async fire(timer: StoredTimer): Promise<boolean> {
    // `after` is made inside: a transaction run again (deadlock) must not report twice.
    const { fired, after } = await this.settled(async (tx, after) => {
      const owner = this.kinds.get(timer.kind);
      if (owner) {
        if (!(await tx.deleteTimer(timer.timerId))) return { fired: false, after };
        await owner(tx, timer, after);
        return { fired: true, after };
      }
      const run = await tx.lockRun(timer.workflowId);
      if (!(await tx.deleteTimer(timer.timerId))) return { fired: false, after };
      if (!run || !TIMER_KINDS.has(timer.kind)) return { fired: true, after };
      const event: FiredTimer = {
        timerId: timer.timerId,
        workflowId: timer.workflowId,
        kind: timer.kind as TimerKind,
        dueAt: timer.dueAt,
        payload: timer.payload,
        ...(timer.taskId !== undefined && { taskId: timer.taskId }),
      };
      await this.executor.handle(tx, timer.workflowId, { type: 'TIMER', timer: event }, after);
      return { fired: true, after };
    });
    this.executor.afterCommitted(after, this.wake);
    return fired;
  }

  /**
   * A transaction of the loop with its own `after` for each attempt (one run again, after a
   * deadlock, must not report twice) and, when the node has waiting polls, its hand-offs to them
   * settled with it: delivered on commit, given back when an attempt fails or runs again.
   */
  private async settled<T>(work: (tx: Tx, after: AfterCommit) => Promise<T>): Promise<T> {
    const held: Pick<AfterCommit, 'parked'> = {};
    return settledWith(
      held,
      this.store.transaction((tx) => work(tx, attemptAfterCommit(held, this.options.parkedAttempt))),
    );
  }

  private async run(): Promise<void> {
    while (this.running) {
      let delayMs = this.options.idleMs;
      try {
        // A read first: an idle node costs one cheap query per round, not a write transaction.
        const now = this.clock.now();
        let next = await this.nextDue();
        if (next !== undefined && next <= now) {
          await this.fireDue(now);
          next = await this.nextDue();
        }
        this.lastTick = performance.now();
        this.outage.succeeded();
        const target = Math.min(next ?? Infinity, this.hint ?? Infinity);
        this.hint = undefined;
        delayMs = Math.max(0, Math.min(this.options.idleMs, target - this.clock.now()));
      } catch (raw) {
        if (!this.running) break;
        this.outage.failed(raw);
        delayMs = Math.min(this.options.idleMs, 1000);
      }
      if (this.running) await this.sleep(delayMs);
    }
  }

  /** The next timer due or held lock lapsing, whichever is first. */
  private nextDue(): Promise<number | undefined> {
    return this.store.read(async (tx) => {
      const timer = await tx.nextTimerDueAt();
      const lapse = await tx.nextLockLapseAt();
      if (timer === undefined) return lapse;
      return lapse === undefined ? timer : Math.min(timer, lapse);
    });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.sleeping = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleeping = { until: this.clock.now() + ms, wake: done };
      // A hint that arrived while this round ran: act on it.
      if (this.hint !== undefined && this.hint < this.sleeping.until) done();
    });
  }
}
