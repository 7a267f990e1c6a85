import type { PollData } from '@baton/protocol';

import type { Store, PollRecord } from '../store/store.js';

/**
 * Worker polls, recorded in memory and written to `poll_data` in one transaction per interval
 * (Conductor's `pollDataFlushInterval`). Writing each poll inside its hand-out transaction made
 * every poll of one worker id (an SDK uses its host name for all its threads) wait on the same
 * row lock: the hand-outs of one worker ran one at a time. Poll data is a view for operators and
 * the liveness warning, not acknowledged state, so a crash may lose at most one interval of it.
 * Readers see this node's polls that are not written yet through `merge`.
 */
export class PollRecorder {
  private pending = new Map<string, PollRecord>();
  /** Polls being written by the flush under way (still shown by `merge` until it commits). */
  private inFlight = new Map<string, PollRecord>();
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly flushEveryMs: number,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** A poll: kept until the next flush (only the latest per queue and worker). */
  record(poll: PollRecord): void {
    const key = `${poll.queueName}\u0000${poll.workerId}`;
    const known = this.pending.get(key);
    if (known === undefined || poll.now >= known.now) this.pending.set(key, poll);
    if (this.timer === undefined && !this.closed) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush().catch(this.onError);
      }, this.flushEveryMs);
      this.timer.unref();
    }
  }

  /**
   * Poll data read from the store (of `taskType`, or all) with this node's polls not yet
   * written laid over it, so that this node's views are exact without a write per poll.
   */
  merge(stored: readonly PollData[], taskType?: string): PollData[] {
    const byKey = new Map(stored.map((p) => [`${p.queueName}\u0000${p.workerId}`, p]));
    for (const [key, poll] of [...this.inFlight, ...this.pending]) {
      if (taskType !== undefined && poll.taskType !== taskType) continue;
      const known = byKey.get(key);
      if (known !== undefined && known.lastPollTime >= poll.now) continue;
      byKey.set(key, {
        queueName: poll.queueName,
        workerId: poll.workerId,
        lastPollTime: poll.now,
        ...(poll.domain !== undefined && { domain: poll.domain }),
      });
    }
    return [...byKey.values()].sort((a, b) =>
      a.queueName === b.queueName ? cmp(a.workerId, b.workerId) : cmp(a.queueName, b.queueName),
    );
  }

  /** Writes every poll recorded so far (waits for a flush already under way, then writes the rest). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    const polls = [...this.pending.values()];
    this.inFlight = this.pending;
    this.pending = new Map();
    // One statement on PostgreSQL, which writes the rows in key order (`recordPolls`).
    this.flushing = this.store
      .transaction(async (tx) => {
        await tx.recordPolls(polls);
      })
      .catch((err: unknown) => {
        // Kept for the next flush unless newer polls replaced them.
        for (const poll of polls) {
          const key = `${poll.queueName}\u0000${poll.workerId}`;
          if (!this.pending.has(key)) this.pending.set(key, poll);
        }
        throw err;
      })
      .finally(() => {
        this.inFlight = new Map();
        this.flushing = undefined;
      });
    await this.flushing;
  }

  /** Last flush; no timer is set after this. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
