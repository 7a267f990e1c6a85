/* eslint-disable @typescript-eslint/require-await -- better-sqlite3 is synchronous; the port is async. */
import type { QueueCounts } from '@baton/protocol';

import { type QueueMessageRow, type TxState, messageFromRow, uniqueSorted } from '../store/sql-common.js';
import type { ClaimRequest, QueueMessage, StoredQueueMessage } from '../store/store.js';
import { SqlTimerTx } from '../store/timer-tx.js';
import type { SqliteConnection } from './connection.js';
import { claimMessages, enqueueMessages, oneOf, queueCounts } from './sql.js';
import * as timers from './timers.js';
import { storableTime } from '../bounds/time.js';

/**
 * The earliest time a message of one queue becomes visible: one min() per queue, a single seek on
 * queue_messages_visible, named so that the planner (which has no statistics) cannot take the
 * claim's index and walk the queue.
 */
export const NEXT_VISIBLE =
  'SELECT min(visible_at) AS v FROM queue_messages INDEXED BY queue_messages_visible WHERE queue_name = ? AND dead_lettered = 0 AND locked_until IS NULL';

/**
 * The worker-queue, timer and dead-letter methods of the SQLite `Tx` (`SqliteTx` extends this;
 * it adds `notifyQueues`).
 */
export abstract class SqliteQueueTx extends SqlTimerTx<SqliteConnection> {
  constructor(
    protected readonly c: SqliteConnection,
    state: TxState,
  ) {
    // The timer and dead-letter methods: this dialect's statements behind the shared checks.
    super(timers, c, state);
  }

  async enqueue(messages: readonly QueueMessage[], now: number): Promise<void> {
    enqueueMessages(this.c, messages, now);
  }

  async claim(request: ClaimRequest): Promise<StoredQueueMessage[]> {
    return claimMessages(this.c, request);
  }

  async getMessage(taskId: string): Promise<StoredQueueMessage | undefined> {
    const row = this.c.get<QueueMessageRow>('SELECT * FROM queue_messages WHERE task_id = ?', taskId);
    return row && messageFromRow(row);
  }

  async removeMessages(taskIds: readonly string[]): Promise<void> {
    if (taskIds.length === 0) return;
    const ids = oneOf('task_id', taskIds);
    this.c.run(`DELETE FROM queue_messages WHERE ${ids.sql}`, ids.param);
  }

  async requeueMessage(taskId: string, visibleAt: number): Promise<boolean> {
    return (
      this.c.run(
        `UPDATE queue_messages SET visible_at = ?, locked_until = NULL, lock_token = NULL, worker_id = NULL,
           dead_lettered = 0
         WHERE task_id = ?`,
        storableTime(visibleAt),
        taskId,
      ).changes > 0
    );
  }

  async extendLock(taskId: string, lockedUntil: number): Promise<boolean> {
    return (
      this.c.run(
        `UPDATE queue_messages SET locked_until = ?, visible_at = ?, lock_token = NULL
         WHERE task_id = ? AND locked_until IS NOT NULL AND dead_lettered = 0`,
        storableTime(lockedUntil),
        storableTime(lockedUntil),
        taskId,
      ).changes > 0
    );
  }

  async deadLetterMessage(taskId: string): Promise<boolean> {
    return (
      this.c.run(
        'UPDATE queue_messages SET dead_lettered = 1, locked_until = NULL, lock_token = NULL WHERE task_id = ?',
        taskId,
      ).changes > 0
    );
  }

  async queueCounts(now: number): Promise<QueueCounts[]> {
    return queueCounts(this.c, now);
  }

  async nextVisibleAt(queueNames: readonly string[], _now: number): Promise<number | undefined> {
    let next: number | undefined;
    for (const name of uniqueSorted(queueNames)) {
      const v = this.c.get<{ v: number | null }>(NEXT_VISIBLE, name)?.v;
      if (v !== null && v !== undefined && (next === undefined || v < next)) next = v;
    }
    return next;
  }
}
