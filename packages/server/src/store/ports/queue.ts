import type { PollData, QueueCounts } from '@baton/protocol';

import type { PortAccess } from './access.js';

/** A message on a worker queue: the interface's `{taskId, workflowId, taskRef, input, attempt}` plus delivery state. */
export interface QueueMessage {
  taskId: string;
  queueName: string;
  workflowId: string;
  taskRef: string;
  attempt: number;
  /** Higher first within a queue. */
  priority: number;
  /** Epoch ms before which the message is not handed out. */
  visibleAt: number;
  /** How long a hand-out locks the message (the task's responseTimeoutSeconds, in ms). */
  lockMs: number;
  /**
   * Set when the message is queued already handed out (update-v2's direct hand-off): it is
   * written locked, as a claim would leave it, with `visibleAt` the lock's end.
   */
  lock?: { lockedUntil: number; lockToken: string; workerId: string };
}

export interface StoredQueueMessage extends QueueMessage {
  lockedUntil: number | null;
  lockToken: string | null;
  workerId: string | null;
  deliveryCount: number;
  deadLettered: boolean;
  createdAt: number;
}

export interface ClaimRequest {
  /** Queues in the order they are drained (e.g. the high-priority queue first). */
  queueNames: string[];
  count: number;
  workerId: string;
  now: number;
  /** Token written on claimed messages, so a later result can be matched to this hand-out. */
  lockToken: string;
}

/**
 * A sweep of lapsed locks: messages a worker (or a node's system call) took and never answered
 * within their lock. The lock is the response deadline (the task's response timeout), so no
 * timer row is armed and deleted per hand-out; the sweep claims lapsed ones under a lease.
 */
export interface LockSweep {
  now: number;
  limit: number;
  /** How long the sweeper may take to act on them before another node may sweep them again. */
  leaseMs: number;
  /** Written as the lock token, so the sweeper can tell its lease from a worker's later extension. */
  lockToken: string;
}

export interface PollRecord {
  queueName: string;
  taskType: string;
  domain?: string;
  workerId: string;
  now: number;
}

/** Worker queues: messages, claims, lapsed locks, dead letters and worker liveness. */
export interface QueuePort {
  // --- queues (a queue exists once a task definition or a message names it)
  ensureQueues(queueNames: readonly string[], now: number): Promise<void>;
  listQueues(): Promise<string[]>;

  // --- messages
  enqueue(messages: readonly QueueMessage[], now: number): Promise<void>;
  /**
   * Takes up to `count` visible, unlocked, not dead-lettered messages from the queues in order,
   * highest priority then earliest visible first; locks each for its lockMs,
   * increments deliveryCount, records the worker. One statement per queue with SKIP LOCKED on
   * PostgreSQL, so concurrent claims never take the same message.
   */
  claim(request: ClaimRequest): Promise<StoredQueueMessage[]>;
  getMessage(taskId: string): Promise<StoredQueueMessage | undefined>;
  removeMessages(taskIds: readonly string[]): Promise<void>;
  /** Re-sends a message: visible again at `visibleAt`, unlocked. */
  requeueMessage(taskId: string, visibleAt: number): Promise<boolean>;
  /**
   * Moves the lock of a taken message to `lockedUntil` (lease extension) and clears its token: a
   * sweeper that leased the lapsed lock (`claimLapsedLocks`) then sees that it is no longer its.
   */
  extendLock(taskId: string, lockedUntil: number): Promise<boolean>;
  /**
   * A lock that lapsed is never handed out again by `claim`: this takes up to `limit` messages
   * whose lock lapsed at `now` (not dead-lettered), earliest lapse first, and leases them to the
   * sweeper (`lockedUntil` now + leaseMs, its lockToken; worker kept). Answers them as they were
   * before the lease but for the sweeper's lockToken. SKIP LOCKED on PostgreSQL: concurrent sweepers never take the same one.
   */
  claimLapsedLocks(sweep: LockSweep): Promise<StoredQueueMessage[]>;
  /** When the next held lock lapses (earliest lockedUntil of a message not dead-lettered). */
  nextLockLapseAt(): Promise<number | undefined>;
  /**
   * Moves a message to the dead-letter state (retries exhausted): never handed out again until
   * `requeueMessage` or a new `enqueue` of that taskId. Returns false when there is no such message.
   */
  deadLetterMessage(taskId: string): Promise<boolean>;
  queueCounts(now: number): Promise<QueueCounts[]>;
  /** Earliest visibleAt of a waiting or delayed message on these queues, for long-poll wake-ups. */
  nextVisibleAt(queueNames: readonly string[], now: number): Promise<number | undefined>;
  /** Asks every node to wake long polls on these queues once this transaction commits. */
  notifyQueues(queueNames: readonly string[]): Promise<void>;
  /** Dead-lettered messages of these queues, oldest first. */
  deadLetteredMessages(queueNames: readonly string[]): Promise<StoredQueueMessage[]>;

  // --- worker liveness
  /**
   * Each poll's queue and worker get its time (the latest, where one pair comes twice). A node
   * writes its polls of an interval at once (`handout/poll-recorder.ts`): one statement for all of
   * them on PostgreSQL, where a statement each made the flush one round trip per queue and worker.
   */
  recordPolls(polls: readonly PollRecord[]): Promise<void>;
  /** Poll data of a task type across its queues (all domains); all types when omitted. */
  pollData(taskType?: string): Promise<PollData[]>;
}

/** Which `QueuePort` methods write (refused inside `read()`); every method is checked (tx-access.ts). */
export const QUEUE_ACCESS = {
  ensureQueues: 'write',
  listQueues: 'read',
  enqueue: 'write',
  claim: 'write',
  getMessage: 'read',
  removeMessages: 'write',
  requeueMessage: 'write',
  extendLock: 'write',
  claimLapsedLocks: 'write',
  nextLockLapseAt: 'read',
  deadLetterMessage: 'write',
  queueCounts: 'read',
  nextVisibleAt: 'read',
  notifyQueues: 'write',
  deadLetteredMessages: 'read',
  recordPolls: 'write',
  pollData: 'read',
} as const satisfies PortAccess<QueuePort>;
