/**
 * Entries a node keeps to skip work (a task row's unpacking, a definition snapshot's read), bounded
 * by the memory they hold rather than their number. A bound by number holds any amount of memory
 * when the entries are large: an inline output or definition may be megabytes, and 4,096 task rows
 * of such outputs were gigabytes. Here entries count by their bytes, one too large for its share is
 * not kept at all (its reads do the work, as for any entry not kept), and one read again moves to
 * the back, since what is read again (a run's first rows, read by each of its decisions; a
 * workflow's definition) is what the cache is for. Users: task-record-storage.ts and
 * store-postgres/run-definitions.ts.
 */
export interface Sized {
  /** About the memory the entry holds, in bytes. */
  readonly bytes: number;
}

export class ByteBoundedCache<Row extends Sized> {
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

  /** The kept rows, oldest first (for tests). */
  values(): IterableIterator<Row> {
    return this.rows.values();
  }

  /** How many rows and bytes are kept (for tests and metrics). */
  get size(): { rows: number; bytes: number } {
    return { rows: this.rows.size, bytes: this.held };
  }
}
