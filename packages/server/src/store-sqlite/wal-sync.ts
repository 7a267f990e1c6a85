import { type FileHandle, open } from 'node:fs/promises';

import { StoreUnavailable } from '../store/store-faults.js';

/**
 * Group commit for the SQLite store's power-loss durability.
 *
 * With `synchronous = FULL`, SQLite fsyncs the WAL inside every COMMIT, and better-sqlite3 makes
 * that fsync block the event loop (most of a step's wall time under load). Instead the writer runs
 * with `synchronous = NORMAL` (a COMMIT only writes the WAL; checkpoints still fsync the WAL before
 * copying it into the database and the database after) and this class makes the commits durable
 * by fdatasync'ing the WAL file on libuv's thread pool. One fdatasync covers every commit written
 * before it started, so commits that arrive while one runs share the next: under load, several
 * transactions per fsync. A transaction is answered only once a sync that started after its COMMIT
 * has finished, so what is acknowledged is exactly as durable as with FULL.
 *
 * A failed fdatasync is final: the kernel may have dropped the dirty pages and a later fsync could
 * succeed without them, so every waiter and every later transaction gets the error. It is a
 * `StoreUnavailable` naming the system's error (EIO, EROFS…): requests answer 503 with it, and the
 * store's health check says DOWN, until the node is restarted on a repaired disk. A disk that turns
 * read-only under the node can fail here rather than in SQLite: a COMMIT that overwrites pages the
 * WAL already has is taken into the page cache, and only the sync meets the read-only disk.
 */
export class WalSync {
  /** Commits written to the WAL so far (a sequence number, not a count of bytes). */
  private written = 0;
  /** The highest `written` known to be on disk. */
  private synced = 0;
  private flushing: Promise<void> | undefined;
  private handle: Promise<FileHandle> | undefined;
  private failure: Error | undefined;
  private closed = false;

  constructor(private readonly walFile: string) {}

  /** Records that a COMMIT wrote the WAL; answers its sequence number for `durable`. */
  committed(): number {
    this.written += 1;
    return this.written;
  }

  /** The sequence number of the last commit written: what a read may have seen. */
  get lastWritten(): number {
    return this.written;
  }

  /** Throws if an earlier sync failed (the store must not take new writes then). */
  check(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Resolves once every commit up to `upTo` is on disk. */
  async durable(upTo: number): Promise<void> {
    while (this.synced < upTo) {
      this.check();
      if (this.closed) throw new Error('store: the SQLite store is closed');
      this.flushing ??= this.flush().finally(() => {
        this.flushing = undefined;
      });
      await this.flushing;
    }
    this.check();
  }

  /** Closes the WAL file (after the last transaction: pending syncs are awaited first). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flushing?.catch(() => {});
    const handle = this.handle;
    this.handle = undefined;
    // A file that never opened (the failure is already reported) has nothing to close.
    const file = await handle?.catch(() => undefined);
    await file?.close();
  }

  private async flush(): Promise<void> {
    // Everything written before the sync starts is covered by it.
    const upTo = this.written;
    try {
      // Opened on first use: SQLite creates the WAL file with the first write. It is the same
      // file (inode) for as long as the store's connections are open; only then is it removed.
      this.handle ??= open(this.walFile, 'r');
      await (await this.handle).datasync();
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.failure = new StoreUnavailable(
        `SQLite: could not sync the WAL to disk (${reason}); no write is taken until the node is restarted on a repaired disk`,
        { cause: err },
      );
      throw this.failure;
    }
    this.synced = Math.max(this.synced, upTo);
  }
}
