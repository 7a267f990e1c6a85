import type { SqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import { waitFor } from './baton-process.js';

/**
 * Runs `start` while a transaction holds SQLite's writer, and frees the writer once `count`
 * joinable transactions wait for it (store-sqlite/join-queue.ts), so that they take it together.
 * Answers what `start` answered, once the holding transaction has ended.
 */
export async function whileWriterHeld<T>(store: SqliteStore, count: number, start: () => T): Promise<T> {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const held = store.transaction(() => gate);
  const started = start();
  try {
    await waitFor(() => (store.joinableWaiting >= count ? true : undefined), {
      timeoutMs: 10_000,
      what: `${count} joinable transactions waiting for the writer`,
    });
  } finally {
    release();
  }
  await held;
  return started;
}
