import type { TxState } from './sql-common.js';
import type {
  LockSweep,
  StoredQueueMessage,
  StoredTimer,
  TimerClaim,
  TimerFilter,
  TimerRecord,
} from './store.js';

/**
 * One dialect's timer and dead-letter statements, each taking its connection first. SQLite's
 * answer at once, PostgreSQL's with a promise; `SqlTimerTx` gives the port promises either way.
 */
export interface TimerStatements<C> {
  deadLetteredMessages(
    c: C,
    queueNames: readonly string[],
  ): StoredQueueMessage[] | Promise<StoredQueueMessage[]>;
  armTimers(c: C, timers: readonly TimerRecord[], now: number): void | Promise<void>;
  cancelTimers(c: C, filter: TimerFilter): number | Promise<number>;
  claimDueTimers(c: C, claim: TimerClaim): StoredTimer[] | Promise<StoredTimer[]>;
  deleteTimer(c: C, timerId: string): boolean | Promise<boolean>;
  nextTimerDueAt(c: C): number | undefined | Promise<number | undefined>;
  listTimers(c: C, filter: TimerFilter): StoredTimer[] | Promise<StoredTimer[]>;
  claimLapsedLocks(c: C, sweep: LockSweep): StoredQueueMessage[] | Promise<StoredQueueMessage[]>;
  nextLockLapseAt(c: C): number | undefined | Promise<number | undefined>;
}

/**
 * The timer and dead-letter methods of both SQL `Tx`s: which of them are writes is decided here
 * once; the statements are the dialect's.
 */
export abstract class SqlTimerTx<C> {
  protected constructor(
    private readonly timers: TimerStatements<C>,
    private readonly conn: C,
    protected readonly state: TxState,
  ) {}

  deadLetteredMessages(queueNames: readonly string[]): Promise<StoredQueueMessage[]> {
    return Promise.resolve(this.timers.deadLetteredMessages(this.conn, queueNames));
  }

  armTimers(list: readonly TimerRecord[], now: number): Promise<void> {
    return Promise.resolve(this.timers.armTimers(this.conn, list, now));
  }

  cancelTimers(filter: TimerFilter): Promise<number> {
    return Promise.resolve(this.timers.cancelTimers(this.conn, filter));
  }

  async dropTimers(filter: TimerFilter): Promise<void> {
    await this.cancelTimers(filter);
  }

  claimDueTimers(claim: TimerClaim): Promise<StoredTimer[]> {
    return Promise.resolve(this.timers.claimDueTimers(this.conn, claim));
  }

  deleteTimer(timerId: string): Promise<boolean> {
    return Promise.resolve(this.timers.deleteTimer(this.conn, timerId));
  }

  nextTimerDueAt(): Promise<number | undefined> {
    return Promise.resolve(this.timers.nextTimerDueAt(this.conn));
  }

  listTimers(filter: TimerFilter): Promise<StoredTimer[]> {
    return Promise.resolve(this.timers.listTimers(this.conn, filter));
  }

  claimLapsedLocks(sweep: LockSweep): Promise<StoredQueueMessage[]> {
    return Promise.resolve(this.timers.claimLapsedLocks(this.conn, sweep));
  }

  nextLockLapseAt(): Promise<number | undefined> {
    return Promise.resolve(this.timers.nextLockLapseAt(this.conn));
  }
}
