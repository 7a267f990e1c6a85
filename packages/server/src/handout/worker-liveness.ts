import type { PollData } from '@baton/protocol';

import type { Clock } from '../clock.js';
import type { Store } from '../store/store.js';

/** A queue with no poll for this long has no active worker (the interface's threshold). */
export const ACTIVE_WORKER_WINDOW_MS = 10_000;
/** How stale the in-memory view of other nodes' polls may get before it is re-read. */
const REFRESH_EVERY_MS = 5_000;

/**
 * The last poll time of every worker queue, kept in memory so that queueing work can tell at
 * once whether anybody serves the queue, without a database round trip per enqueue. Polls on
 * this node update it directly; polls on other nodes arrive by re-reading `poll_data` in the
 * background when the view is older than 5 s. It is good enough for a warning, and only for
 * that: the queue views read the poll data from the database.
 *
 * Keys are the queues workers poll (`{type}` or `{domain}-{type}`; a `-high` queue is served
 * by the pollers of its base queue).
 */
export class WorkerLiveness {
  private readonly lastPoll = new Map<string, number>();
  private refreshedAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** A poll committed on this node. */
  polled(queueName: string, at: number): void {
    const known = this.lastPoll.get(queueName);
    if (known === undefined || at > known) this.lastPoll.set(queueName, at);
  }

  /** Re-reads every queue's last poll from the store (all nodes' polls). */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const polls = await this.store.read((tx) => tx.pollData());
        for (const p of polls) this.polled(p.queueName, p.lastPollTime);
        this.refreshedAt = this.clock.now();
      } catch {
        // A failed refresh (store closing, database down) keeps the old view: it is only a hint.
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /** Whether a worker polled `queueName` in the last 10 s (as far as this view knows). */
  isPolled(queueName: string, now: number): boolean {
    const last = this.lastPollOf(queueName);
    return last !== undefined && isActivePoll(last, now);
  }

  /**
   * Last poll (epoch ms) of the queue that serves `queueName`, or undefined when none is known.
   * Starts a background refresh when the view is stale; never waits for it.
   */
  lastPollOf(queueName: string): number | undefined {
    if (this.clock.now() - this.refreshedAt >= REFRESH_EVERY_MS) void this.refresh();
    return this.lastPoll.get(queueName);
  }
}

/** Liveness of one queue, for the queue views. */
export interface QueueLiveness {
  activeWorkers: number;
  lastPollTime?: number;
  noActiveWorkerSince?: number;
}

/**
 * Liveness of `queueName` from poll data: the polls recorded on it, and for a `-high` queue on
 * its base queue too (a poll drains both).
 */
export function queueLiveness(queueName: string, polls: readonly PollData[], now: number): QueueLiveness {
  const base = queueName.endsWith('-high') ? queueName.slice(0, -'-high'.length) : undefined;
  const mine = polls.filter((p) => p.queueName === queueName || p.queueName === base);
  const out: QueueLiveness = {
    activeWorkers: new Set(
      mine.filter((p) => now - p.lastPollTime < ACTIVE_WORKER_WINDOW_MS).map((p) => p.workerId),
    ).size,
  };
  if (mine.length === 0) return out;
  const last = Math.max(...mine.map((p) => p.lastPollTime));
  out.lastPollTime = last;
  if (out.activeWorkers === 0) out.noActiveWorkerSince = last + ACTIVE_WORKER_WINDOW_MS;
  return out;
}

/** Whether a poll at `lastPollTime` still counts as an active worker at `now`. */
export function isActivePoll(lastPollTime: number, now: number): boolean {
  return now - lastPollTime < ACTIVE_WORKER_WINDOW_MS;
}
