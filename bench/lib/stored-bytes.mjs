// What a system's history takes on disk, for the "bytes per finished step" figure: measured before
// the pass and after it, so the difference is what the pass's runs added (the schema, empty
// indexes and registered definitions are not charged to the steps).
//   PostgreSQL: pg_total_relation_size (heap, indexes, TOAST and free-space maps) of every
//   table of the database outside the system catalogs.
//   SQLite: the pages in use, (page_count − freelist_count) × page_size, read through a
//   connection of its own, which sees the WAL's committed pages too, checkpointed or not.
// And the same once only the live rows are left ("live"): PostgreSQL keeps the old version of an
// updated or deleted row until a vacuum frees its space (the figure above counts them: this
// machine's server runs no autovacuum), so every table is rewritten with VACUUM FULL and measured
// again; SQLite's database is copied with VACUUM INTO and the copy measured. That is about what a
// server whose vacuum keeps up holds for each step.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import pg from 'pg';

/** Bytes of every user table of the database at `databaseUrl`, indexes and TOAST included. */
export async function pgStoredBytes(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p', 'm')
          AND n.nspname NOT IN ('pg_catalog', 'information_schema')
          AND n.nspname NOT LIKE 'pg_toast%'`,
    );
    return Number(rows[0].bytes);
  } finally {
    await client.end();
  }
}

/** The same after VACUUM FULL of every user table: the bytes of the live rows, packed. */
export async function pgLiveBytes(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // A system still holding a lock (a maintenance job) must not hang the bench.
    await client.query("SET lock_timeout = '60s'");
    const { rows } = await client.query(
      `SELECT format('%I.%I', n.nspname, c.relname) AS name
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'm')
          AND n.nspname NOT IN ('pg_catalog', 'information_schema')
          AND n.nspname NOT LIKE 'pg_toast%'`,
    );
    for (const { name } of rows) await client.query(`VACUUM FULL ${name}`);
  } finally {
    await client.end();
  }
  return pgStoredBytes(databaseUrl);
}

let Database;

/** Bytes of the pages in use in the SQLite database `file` (tables and indexes). */
export function sqliteStoredBytes(file) {
  // better-sqlite3 as the server resolves it: the bench has no SQLite of its own.
  Database ??= createRequire(
    join(dirname(fileURLToPath(import.meta.url)), '../../packages/server/package.json'),
  )('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const pages = db.pragma('page_count', { simple: true });
    const free = db.pragma('freelist_count', { simple: true });
    const size = db.pragma('page_size', { simple: true });
    return (pages - free) * size;
  } finally {
    db.close();
  }
}

/** The pages in use of a VACUUM INTO copy of the SQLite database `file`: its live rows, packed. */
export function sqliteLiveBytes(file) {
  Database ??= createRequire(
    join(dirname(fileURLToPath(import.meta.url)), '../../packages/server/package.json'),
  )('better-sqlite3');
  const copy = join(tmpdir(), `baton-bench-live-${process.pid}-${Date.now()}.db`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.prepare('VACUUM INTO ?').run(copy);
  } finally {
    db.close();
  }
  try {
    return sqliteStoredBytes(copy);
  } finally {
    rmSync(copy, { force: true });
  }
}

/**
 * Measures around a pass: `await before()` then, once the pass is done, `after(steps)` answers
 * { bytes, bytesPerStep, liveBytesPerStep, how } with bytes the growth over the pass, and
 * liveBytesPerStep the growth counting live rows only (null if the rewrite failed).
 */
export function storedBytesMeter({ databaseUrl, sqliteFile }) {
  const measure = async () =>
    databaseUrl !== undefined ? pgStoredBytes(databaseUrl) : sqliteStoredBytes(sqliteFile);
  const measureLive = async () =>
    databaseUrl !== undefined ? pgLiveBytes(databaseUrl) : sqliteLiveBytes(sqliteFile);
  const how =
    databaseUrl !== undefined
      ? 'PostgreSQL: pg_total_relation_size of every table (heap, indexes, TOAST), growth over the pass'
      : 'SQLite: pages in use (page_count − freelist_count) × page_size, WAL included, growth over the pass';
  let start;
  return {
    async before() {
      start = await measure();
    },
    async after(steps) {
      const end = await measure();
      const bytes = end - start;
      // Last: the rewrite changes what `end` would read.
      const live = await measureLive().catch(() => null);
      return {
        bytes,
        totalBytes: end,
        bytesPerStep: steps > 0 ? bytes / steps : null,
        liveBytesPerStep: live !== null && steps > 0 ? (live - start) / steps : null,
        how,
      };
    },
  };
}
