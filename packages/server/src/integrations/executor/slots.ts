/**
 * A counting semaphore for calls in flight on this node (`BATON_SYSTEM_TASK_CONCURRENCY`):
 * the claim loop takes as many slots as are free before it claims, so a node never holds more
 * leased calls than it runs.
 */
export class Slots {
  private free: number;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly capacity: number) {
    this.free = capacity;
  }

  get available(): number {
    return this.free;
  }

  get used(): number {
    return this.capacity - this.free;
  }

  /** Takes every free slot (at least one), waiting until one is free or `signal` aborts (then 0). */
  async takeFree(signal: AbortSignal): Promise<number> {
    while (this.free === 0) {
      if (signal.aborted) return 0;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          signal.removeEventListener('abort', done);
          const at = this.waiters.indexOf(done);
          if (at >= 0) this.waiters.splice(at, 1);
          resolve();
        };
        this.waiters.push(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
    if (signal.aborted) return 0;
    const taken = this.free;
    this.free = 0;
    return taken;
  }

  release(count = 1): void {
    if (count <= 0) return;
    this.free = Math.min(this.capacity, this.free + count);
    for (const wake of this.waiters.splice(0)) wake();
  }
}
