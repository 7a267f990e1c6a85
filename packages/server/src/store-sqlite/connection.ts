import Database from 'better-sqlite3';

import { taskField } from '../store/task-record-storage.js';

/** A better-sqlite3 connection with a cache of prepared statements (keyed by SQL text). */
export class SqliteConnection {
  private readonly statements = new Map<string, Database.Statement<unknown[], unknown>>();
  private static readonly MAX_CACHED = 512;
  /**
   * Statements run that may have written: every `run` (transaction control included, as a
   * rollback changes what a read answers) and every `get` or `all` of a statement that writes
   * (`RETURNING`). Equal counts around a stretch of code mean nothing was written in it.
   */
  writes = 0;

  constructor(readonly db: Database.Database) {}

  statement(sql: string): Database.Statement<unknown[], unknown> {
    let stmt = this.statements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare<unknown[], unknown>(sql);
      // Dynamic searches can make many shapes; keep the cache bounded (oldest out first).
      if (this.statements.size >= SqliteConnection.MAX_CACHED) {
        const oldest = this.statements.keys().next();
        if (oldest.done !== true) this.statements.delete(oldest.value);
      }
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  get<R>(sql: string, ...params: unknown[]): R | undefined {
    const stmt = this.statement(sql);
    if (!stmt.readonly) this.writes++;
    return stmt.get(...params) as R | undefined;
  }

  all<R>(sql: string, ...params: unknown[]): R[] {
    const stmt = this.statement(sql);
    if (!stmt.readonly) this.writes++;
    return stmt.all(...params) as R[];
  }

  run(sql: string, ...params: unknown[]): Database.RunResult {
    this.writes++;
    return this.statement(sql).run(...params);
  }

  close(): void {
    this.statements.clear();
    if (this.db.open) this.db.close();
  }
}

/** Opens one connection with Baton's settings. */
export function openConnection(
  file: string,
  options: { readonly: boolean; synchronous: 'FULL' | 'NORMAL'; busyTimeoutMs: number },
): SqliteConnection {
  const db = new Database(file, options.readonly ? { readonly: true, fileMustExist: true } : {});
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`);
  if (!options.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma(options.synchronous === 'NORMAL' ? 'synchronous = NORMAL' : 'synchronous = FULL');
  }
  // No foreign keys: rows of one run are written in one transaction by one writer, and the
  // archiver (later) moves runs without cascading checks on the hot path.
  db.pragma('foreign_keys = OFF');
  db.pragma('temp_store = MEMORY');
  // Unicode-aware lower() for free-text search (SQLite's own lower() folds ASCII only),
  // so both stores match the same runs.
  // One field of a task's stored record, packed or not (task-record-storage.ts): what searches
  // read for the fields a packed record does not keep in clear.
  db.function('baton_task_field', { deterministic: true }, taskField);
  db.function('baton_lower', { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : null,
  );
  return new SqliteConnection(db);
}
