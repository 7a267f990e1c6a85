/**
 * Wakes long polls when work is queued. In-process wake-ups come from the node that committed;
 * other nodes' commits arrive through the store's notifications. A wake-up is only a hint: the
 * woken poll claims from the database, which is the truth, so a lost wake-up costs latency
 * (bounded by the poll's timeout), never correctness.
 */
export class WakeBus {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly everyQueue = new Set<() => void>();
  private readonly generations = new Map<string, number>();
  /** Bumped by wakeAll, so it reaches queues never woken before too. */
  private epoch = 0;

  /**
   * A number that changes whenever one of these queues is woken. Read it before looking for
   * work and pass it to `wait`, so a wake-up that lands between the look and the wait is not lost.
   */
  generation(queueNames: readonly string[]): number {
    let sum = this.epoch;
    for (const name of queueNames) sum += this.generations.get(name) ?? 0;
    return sum;
  }

  /** Resolves when one of the queues is woken, after `ms`, or when `signal` aborts. */
  wait(
    queueNames: readonly string[],
    ms: number,
    signal?: AbortSignal,
    seenGeneration?: number,
  ): Promise<void> {
    return new Promise((resolve) => {
      const missed = seenGeneration !== undefined && this.generation(queueNames) !== seenGeneration;
      if (ms <= 0 || signal?.aborted || missed) {
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        for (const name of queueNames) {
          const set = this.waiters.get(name);
          set?.delete(done);
          if (set?.size === 0) this.waiters.delete(name);
        }
        this.everyQueue.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      for (const name of queueNames) {
        let set = this.waiters.get(name);
        if (!set) this.waiters.set(name, (set = new Set()));
        set.add(done);
      }
      this.everyQueue.add(done);
    });
  }

  wake(queueNames: readonly string[]): void {
    for (const name of queueNames) {
      this.generations.set(name, ((this.generations.get(name) ?? 0) + 1) % Number.MAX_SAFE_INTEGER);
      const set = this.waiters.get(name);
      if (set) for (const done of [...set]) done();
    }
  }

  /** Wakes every waiter (e.g. after a lost notification connection came back). */
  wakeAll(): void {
    this.epoch = (this.epoch + 1) % Number.MAX_SAFE_INTEGER;
    for (const done of [...this.everyQueue]) done();
  }

  get waiting(): number {
    return this.everyQueue.size;
  }
}
