/**
 * The worker contract's idle back-off: after a poll that brings nothing, wait 1 ms, then 2, 4,
 * … doubling up to the poll interval, and start again at 1 ms once work arrives.
 */
export class IdleBackoff {
  private next = 1;

  constructor(private readonly maxMs: number) {}

  /** The wait after an empty poll; each call doubles the following one up to the poll interval. */
  nextDelay(): number {
    const delay = Math.min(this.next, this.maxMs);
    this.next = Math.min(this.next * 2, this.maxMs);
    return delay;
  }

  /** Work arrived: the next idle wait starts at 1 ms again. */
  reset(): void {
    this.next = 1;
  }
}
