// What a system's history takes on disk, for the "bytes per finished step" figure: measured before
// the pass and after it, so the difference is what the pass's runs added (the schema, empty
// indexes and registered definitions are not charged to the steps).
//   PostgreSQL: pg_total_relation_size (heap, indexes, TOAST and free-space maps) of every
//   table of the database outside the system catalogs.
//   SQLite: the pages in use, (page_count − freelist_count) × page_size, read through a
//   connection of its own, which sees the WAL's committed pages too, checkpointed or not.
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

/**
 * Measures around a pass: `await before()` then, once the pass is done, `after(steps)` answers
 * { bytes, bytesPerStep, how } with bytes the growth over the pass.
 */
export function storedBytesMeter({ databaseUrl, sqliteFile }) {
  const measure = async () =>
    databaseUrl !== undefined ? pgStoredBytes(databaseUrl) : sqliteStoredBytes(sqliteFile);
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
      return { bytes, totalBytes: end, bytesPerStep: steps > 0 ? bytes / steps : null, how };
    },
  };
}
