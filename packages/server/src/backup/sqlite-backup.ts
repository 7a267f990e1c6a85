import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

import Database from 'better-sqlite3';

import { readEnv, type RawEnv } from '../config/env.js';
import { compileOptions } from '../config/options.js';

/** What a backup wrote. */
export interface BackupResult {
  /** The database copied (never a URL). */
  source: string;
  target: string;
  pages: number;
  bytes: number;
}

/** Pages per backup step: all of them, so one step copies one snapshot (see below). */
const ALL_PAGES = 0x7fffffff;

/**
 * A consistent copy of a SQLite database that a server may be writing at this moment, through
 * SQLite's online backup API. The copy is taken in one step, under one read transaction: it holds
 * exactly the transactions committed when that step began (every result the server acknowledged
 * before the backup started), and in WAL mode it blocks no writer while it reads. It is written
 * beside the target, switched to a plain rollback journal (one self-contained file), checked with
 * `PRAGMA integrity_check`, and only then renamed to the target: a backup cut short leaves nothing
 * under the target's name. An existing target is never overwritten.
 */
export async function backupSqliteFile(source: string, target: string): Promise<BackupResult> {
  const to = path.resolve(target);
  if (existsSync(to)) throw new Error(`${to} already exists: back up to a new file`);
  if (!existsSync(path.dirname(to))) throw new Error(`the directory ${path.dirname(to)} does not exist`);
  if (!existsSync(source)) throw new Error(`there is no SQLite database at ${source}`);
  const partial = `${to}.partial-${process.pid}`;
  const removePartial = () => {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${partial}${suffix}`, { force: true });
  };
  removePartial();
  const from = new Database(source, { readonly: true, fileMustExist: true });
  try {
    from.pragma('busy_timeout = 10000');
    const { totalPages } = await from.backup(partial, { progress: () => ALL_PAGES });
    const copy = new Database(partial, { fileMustExist: true });
    try {
      copy.pragma('journal_mode = DELETE');
      const problems = copy.pragma('integrity_check', { simple: false }) as Array<{
        integrity_check: string;
      }>;
      const verdict = problems.map((p) => p.integrity_check);
      if (verdict.length !== 1 || verdict[0] !== 'ok')
        throw new Error(`the copy failed PRAGMA integrity_check: ${verdict.slice(0, 5).join('; ')}`);
    } finally {
      copy.close();
    }
    renameSync(partial, to);
    return { source, target: to, pages: totalPages, bytes: statSync(to).size };
  } catch (err) {
    removePartial();
    throw err;
  } finally {
    from.close();
  }
}

/**
 * `baton backup <path>`: copies the configured SQLite database (same settings as `npm start`)
 * while a server may be running on it. PostgreSQL is backed up with its own tools
 * (docs/operations.md#upgrading).
 */
export async function backupConfiguredStore(
  target: string,
  rawEnv: RawEnv = readEnv(),
): Promise<BackupResult> {
  const options = compileOptions(rawEnv);
  if (options.databaseUrl !== undefined)
    throw new Error(
      'baton backup copies the embedded SQLite database; this configuration uses PostgreSQL (BATON_DATABASE_URL): back it up with pg_dump or continuous archiving (docs/operations.md, "Backup and restore, PostgreSQL")',
    );
  return backupSqliteFile(path.join(options.dataDir, 'baton.db'), target);
}
