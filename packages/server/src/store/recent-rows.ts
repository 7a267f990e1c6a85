/**
 * The task rows a node wrote or read last, by task id, bounded by the memory they hold rather than
 * their number (task-record-storage.ts keeps them so that reading a row back skips its unpacking).
 * A bound by number holds any amount of memory when outputs are large: an inline output may be
 * megabytes, and 4,096 such rows were gigabytes. Here rows count by their bytes, a row too large
 * for its share is not kept at all (its reads unpack it, as any row not kept), and a row read again
 * moves to the back, since the first-written rows of a run in flight are read by each of its
 * decisions.
 */
export interface RecentRow {
  /** About the memory the row holds, in bytes. */
  readonly bytes: number;
}

export class RecentRows<Row extends RecentRow> {
  private readonly rows = new Map<string, Row>();
  private held = 0;

  constructor(
    /** The bytes all rows may hold together. */
    private readonly budgetBytes: number,
    /** A row larger than this is not kept: it would push out a great many ordinary ones. */
    private readonly maxRowBytes: number,
  ) {}

  /** The row kept for `key`, moved to the back (read last, pushed out last). */
  get(key: string): Row | undefined {
    const row = this.rows.get(key);
    if (row !== undefined) {
      this.rows.delete(key);
      this.rows.set(key, row);
    }
    return row;
  }

  /** Keeps `row` for `key` in place of what was kept, pushing out the oldest past the budget. */
  set(key: string, row: Row): void {
    this.delete(key);
    if (row.bytes > this.maxRowBytes) return;
    this.rows.set(key, row);
    this.held += row.bytes;
    for (const [oldest, kept] of this.rows) {
      if (this.held <= this.budgetBytes) break;
      this.rows.delete(oldest);
      this.held -= kept.bytes;
    }
  }

  delete(key: string): void {
    const row = this.rows.get(key);
    if (row === undefined) return;
    this.rows.delete(key);
    this.held -= row.bytes;
  }

  /** How many rows and bytes are kept (for tests and metrics). */
  get size(): { rows: number; bytes: number } {
    return { rows: this.rows.size, bytes: this.held };
  }
}
