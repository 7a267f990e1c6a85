import type { Options } from './options.js';

/** A system or PostgreSQL error's code (`EADDRINUSE`, `ECONNREFUSED`, `28P01`, …). */
function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The database URL as it may be shown: the password left out. */
export function shownDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'an unreadable URL';
  }
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ECONNRESET',
]);

/**
 * One line for a start-up failure people cause and can fix (the port taken, the database not
 * there), naming the setting to change; undefined for anything else (a bug: the stack helps).
 */
export function describeStartFailure(
  err: unknown,
  phase: 'open' | 'listen',
  options: Pick<Options, 'host' | 'port' | 'databaseUrl' | 'dataDir'>,
): string | undefined {
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  if (phase === 'listen') {
    const where = `${options.host}:${options.port}`;
    if (code === 'EADDRINUSE')
      return `cannot listen on ${where}: the address is in use (EADDRINUSE), another Baton or another program has it; set BATON_PORT to a free port, or stop the other`;
    if (code === 'EACCES')
      return `cannot listen on ${where}: permission denied (EACCES), ports below 1024 need privileges; set BATON_PORT to 1024 or above`;
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      return `cannot listen on ${where}: no such address on this machine (${code}); set BATON_HOST to one of its addresses, or 0.0.0.0`;
    return undefined;
  }
  if (options.databaseUrl === undefined) return describeDataDirFailure(code, message, options.dataDir);
  const db = shownDatabaseUrl(options.databaseUrl);
  if (code !== undefined && UNREACHABLE.has(code))
    return `cannot reach the PostgreSQL database at ${db} (${code}: ${message}); start it, or correct BATON_DATABASE_URL`;
  if (code === '28P01' || code === '28000')
    return `the PostgreSQL database at ${db} refused the login (${message}); correct the user or password in BATON_DATABASE_URL`;
  if (code === '3D000')
    return `the PostgreSQL database at ${db} does not exist (${message}); create it, or correct BATON_DATABASE_URL`;
  return undefined;
}

/** Why the data directory or the file in it cannot be used, as the file system says it. */
const DATA_DIR_CODES: Record<string, string> = {
  EEXIST: 'a file of that name is in the way',
  ENOTDIR: 'part of the path is a file, not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
};

/** SQLite's own answers when the file in the data directory is not one it can use. */
const SQLITE_CODES: Record<string, string> = {
  SQLITE_NOTADB: 'it is not a SQLite database',
  SQLITE_CORRUPT: 'the database file is damaged',
  SQLITE_CANTOPEN: 'it cannot be opened',
  SQLITE_READONLY: 'it is read-only',
  SQLITE_PERM: 'permission denied',
  SQLITE_FULL: 'the disk is full',
};

/**
 * The embedded SQLite store (no BATON_DATABASE_URL): a data directory that cannot be made or
 * written, or a file there that is not a database, named with BATON_DATA_DIR.
 */
function describeDataDirFailure(
  code: string | undefined,
  message: string,
  dataDir: string,
): string | undefined {
  if (code === undefined) return undefined;
  const fsReason = DATA_DIR_CODES[code];
  if (fsReason !== undefined)
    return `cannot use the data directory ${dataDir}: ${fsReason} (${code}); set BATON_DATA_DIR to a directory Baton may write`;
  const sqliteReason = SQLITE_CODES[code];
  if (sqliteReason !== undefined)
    return `cannot use the SQLite database in ${dataDir}: ${sqliteReason} (${code}: ${message}); set BATON_DATA_DIR to another directory, or restore the file from a backup`;
  return undefined;
}
