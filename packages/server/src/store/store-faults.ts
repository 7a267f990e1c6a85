import { SQLSTATE, sqlState } from './sqlstate.js';

/**
 * Which errors mean "the database is away" rather than "this request is wrong": a lost or
 * refused connection, a timeout, a server shutting down or answering read-only (no longer the
 * primary), a full disk or a read-only file. Requests that meet one answer 503 with Retry-After
 * (http/error-handler.ts); long polls that meet one after waiting answer empty; background loops
 * back off. Such an error never acknowledges anything: a COMMIT whose answer was lost is one.
 */

/** SQLSTATE classes and codes that say the server, not the statement, is the problem. */
const UNAVAILABLE_CLASSES = ['08', '53', '57P'];
const UNAVAILABLE_STATES: ReadonlySet<string> = new Set<string>([
  SQLSTATE.queryCanceled, // statement_timeout
  SQLSTATE.readOnlyTransaction, // a standby, or a primary demoted by a failover
]);

/** Node's socket errors on the way to the server. */
const SOCKET_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What node-postgres says when a connection breaks or a timeout fires (it sets no code). */
const DRIVER_MESSAGES =
  /^(Connection terminated|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)/;

/** better-sqlite3's codes for a database that cannot take writes now. */
const SQLITE_CODES = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|NOTADB|CORRUPT)/;

/** A database error that says which database is away and why (the message is safe to show). */
export class StoreUnavailable extends Error {
  override name = 'StoreUnavailable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The reason the database is away, when `err` (or an error in its cause chain) says it is. */
export function storeFault(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const reason = faultOf(current);
    if (reason !== undefined) return reason;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function faultOf(err: object): string | undefined {
  const raw = (err as { message?: unknown }).message;
  const message = typeof raw === 'string' ? raw : '';
  if (err instanceof StoreUnavailable) return message;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SQLITE_CODES.test(code)) return `SQLite: ${message} (${code})`;
    if (SOCKET_CODES.has(code)) return `PostgreSQL: ${message}`;
  }
  const state = sqlState(err);
  if (state !== undefined) {
    if (UNAVAILABLE_STATES.has(state) || UNAVAILABLE_CLASSES.some((c) => state.startsWith(c)))
      return `PostgreSQL: ${message} (SQLSTATE ${state})`;
    return undefined;
  }
  if (DRIVER_MESSAGES.test(message)) return `PostgreSQL: ${message}`;
  return undefined;
}

/**
 * Whether `err` says the connection broke (reset, ended, the server ended the session) rather than
 * timed out or refused: a read may then run once more on another connection at once.
 */
export function brokenConnection(err: unknown): boolean {
  const state = sqlState(err);
  if (state !== undefined) return state.startsWith('08') || state === '57P01' || state === '57P02';
  const code = (err as { code?: unknown } | undefined)?.code;
  if (code === 'ECONNRESET' || code === 'EPIPE') return true;
  const message = err instanceof Error ? err.message : '';
  return message.startsWith('Connection terminated unexpectedly');
}

/** Seconds a client should wait before trying again after a 503 for an absent database. */
export const RETRY_AFTER_SECONDS = 1;
