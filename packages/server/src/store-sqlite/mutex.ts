/**
 * A FIFO async mutex. better-sqlite3 runs each statement synchronously, but a Store
 * transaction is an async function that may await between statements; the mutex makes
 * sure a second transaction cannot start on the connection until the first has ended.
 */
export class AsyncMutex {
  private tail: Promise<void> = Promise.resolve();

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release: () => void = () => {};
    this.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
