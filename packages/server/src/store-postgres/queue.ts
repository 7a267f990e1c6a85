import type { QueueCounts } from '@baton/protocol';

import {
  type QueueCountsRow,
  type QueueMessageRow,
  type TxState,
  compareClaimOrder,
  dedupeMessages,
  messageFromRow,
  queueCountsFromRow,
  uniqueSorted,
} from '../store/sql-common.js';
import type {
  ClaimRequest,
  QueueMessage,
  StoredQueueMessage,
  TimerFilter,
  TimerRecord,
} from '../store/store.js';
import { SqlTimerTx } from '../store/timer-tx.js';
import { type Query, SQL, type Sql } from './sql.js';
import * as timers from './timers.js';
import type { WriteBehind } from './write-behind.js';
import { storableTime } from '../bounds/time.js';

/** A claimed message's row, with its task's record and the task definitions' change counter. */
export interface ClaimedRow extends QueueMessageRow {
  prev_visible_at: number;
  // The claimed task's row (task-rows.ts), every one null when the task is gone.
  task_record: Record<string, unknown> | null;
  task_packed: Buffer | null;
  task_workflow_id: string | null;
  task_seq: number | null;
  task_ref_name: string | null;
  task_type: string | null;
  task_status: string | null;
  task_update_time: number | null;
  defs_version: number | null;
}

/**
 * The worker-queue, timer and dead-letter methods of the PostgreSQL `Tx` (`PgRunLockTx` extends
 * this, and `PgTx` that; `PgTx` adds `notifyQueues`).
 */
export abstract class PgQueueTx extends SqlTimerTx<Query> {
  constructor(
    protected readonly q: Query,
    state: TxState,
    /** Defers writes to the next answering statement (transactions only; `read` has none). */
    protected readonly writes?: WriteBehind,
  ) {
    // The timer and dead-letter methods: this dialect's statements behind the shared checks.
    super(timers, q, state);
  }

  /** A write nobody reads the answer of: deferred inside a transaction (write-behind.ts). */
  protected async write(sql: Sql | string, values: readonly unknown[]): Promise<void> {
    if (this.writes) this.writes.later(sql, values);
    else await this.q(sql, values);
  }

  override async armTimers(list: readonly TimerRecord[], now: number): Promise<void> {
    const params = timers.armParams(list, now);
    if (params) await this.write(timers.TIMER_SQL.arm, params);
  }

  override async dropTimers(filter: TimerFilter): Promise<void> {
    const statement = timers.cancelStatement(filter);
    if (statement) await this.write(statement.sql, statement.params);
  }

  async enqueue(messages: readonly QueueMessage[], now: number): Promise<void> {
    if (messages.length === 0) return;
    // Sorted by taskId, so concurrent enqueues lock rows in the same order.
    const ms = dedupeMessages(messages);
    await this.write(SQL.enqueue, [
      ms.map((m) => m.taskId),
      ms.map((m) => m.queueName),
      ms.map((m) => m.workflowId),
      ms.map((m) => m.taskRef),
      ms.map((m) => m.attempt),
      ms.map((m) => m.priority),
      ms.map((m) => m.visibleAt),
      ms.map((m) => m.lockMs),
      ms.map(() => now),
      ms.map((m) => m.lock?.lockedUntil ?? null),
      ms.map((m) => m.lock?.lockToken ?? null),
      ms.map((m) => m.lock?.workerId ?? null),
    ]);
  }

  async claim(request: ClaimRequest): Promise<StoredQueueMessage[]> {
    const [first, second] = request.queueNames;
    if (request.queueNames.length === 2 && first !== undefined && second !== undefined) {
      const { rows } = await this.q<ClaimedRow & { queue_rank: number }>(SQL.claimPair, [
        first,
        second,
        request.now,
        request.count,
        request.lockToken,
        request.workerId,
      ]);
      this.claimedWith(rows);
      // RETURNING has no order: restore the claim order from the values the rows had before.
      return rows
        .map((row) => ({ row, priority: row.priority, visibleAt: row.prev_visible_at, taskId: row.task_id }))
        .sort((a, b) => a.row.queue_rank - b.row.queue_rank || compareClaimOrder(a, b))
        .map((o) => messageFromRow(o.row));
    }
    const claimed: StoredQueueMessage[] = [];
    const read: ClaimedRow[] = [];
    for (const queueName of request.queueNames) {
      const want = request.count - claimed.length;
      if (want <= 0) break;
      const { rows } = await this.q<ClaimedRow>(SQL.claim, [
        queueName,
        request.now,
        want,
        request.lockToken,
        request.workerId,
      ]);
      read.push(...rows);
      // RETURNING has no order: restore the claim order from the values the rows had before.
      const ordered = rows
        .map((row) => ({ row, priority: row.priority, visibleAt: row.prev_visible_at, taskId: row.task_id }))
        .sort(compareClaimOrder);
      claimed.push(...ordered.map((o) => messageFromRow(o.row)));
    }
    this.claimedWith(read);
    return claimed;
  }

  /**
   * What a claim read besides its messages: each one's task (null: the task is gone) and the task
   * definitions' change counter. `PgRunLockTx` (run-lock.ts) keeps them for the reads a hand-out
   * makes next.
   */
  protected claimedWith(_rows: readonly ClaimedRow[]): void {}

  async getMessage(taskId: string): Promise<StoredQueueMessage | undefined> {
    const { rows } = await this.q<QueueMessageRow>(SQL.getMessage, [taskId]);
    return rows[0] && messageFromRow(rows[0]);
  }

  async removeMessages(taskIds: readonly string[]): Promise<void> {
    if (taskIds.length === 0) return;
    await this.write(SQL.removeMessages, [uniqueSorted(taskIds)]);
  }

  async requeueMessage(taskId: string, visibleAt: number): Promise<boolean> {
    return ((await this.q(SQL.requeueMessage, [taskId, storableTime(visibleAt)])).rowCount ?? 0) > 0;
  }

  async extendLock(taskId: string, lockedUntil: number): Promise<boolean> {
    return ((await this.q(SQL.extendLock, [taskId, storableTime(lockedUntil)])).rowCount ?? 0) > 0;
  }

  async deadLetterMessage(taskId: string): Promise<boolean> {
    return ((await this.q(SQL.deadLetterMessage, [taskId])).rowCount ?? 0) > 0;
  }

  async queueCounts(now: number): Promise<QueueCounts[]> {
    const { rows } = await this.q<QueueCountsRow>(SQL.queueCounts, [now]);
    return rows.map(queueCountsFromRow);
  }

  async nextVisibleAt(queueNames: readonly string[], _now: number): Promise<number | undefined> {
    if (queueNames.length === 0) return undefined;
    const { rows } = await this.q<{ v: number | null }>(SQL.nextVisibleAt, [uniqueSorted(queueNames)]);
    return rows[0]?.v ?? undefined;
  }
}
