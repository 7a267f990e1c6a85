/**
 * Store transactions that share one SQLite transaction (see SqliteStore.transaction): each runs
 * inside a savepoint, and the batch settles when the SQLite transaction commits, with the WalSync
 * sequence number its members wait for before they answer, or fails when it is lost.
 */
export class CommitBatch {
  /** Settles once: the sequence number to make durable (0: nothing to wait for), or the failure. */
  readonly committed: Promise<number>;
  private resolve: (sequence: number) => void = () => {};
  private reject: (err: unknown) => void = () => {};

  constructor() {
    this.committed = new Promise<number>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Members await it; a batch no member is left to await must not be an unhandled rejection.
    this.committed.catch(() => {});
  }

  commit(sequence: number): void {
    this.resolve(sequence);
  }

  fail(err: unknown): void {
    this.reject(err);
  }
}
