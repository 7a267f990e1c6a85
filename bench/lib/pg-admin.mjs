// A fresh database per system, on the same PostgreSQL server, so that no system sees another's
// tables or bloat.
import pg from 'pg';

/** The server every system uses (its `postgres` database is used to create the others). */
export const ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * The database a system's `name` stands for in this process: suffixed with the pid, so that two
 * benchmarks on one server (or a benchmark beside a test run) never drop each other's database.
 */
export function databaseName(name) {
  return `${name}_${process.pid}`;
}

function urlFor(database) {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Drops and re-creates `name` (see databaseName); answers its connection URL. */
export async function freshDatabase(base) {
  const name = databaseName(base);
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  return urlFor(name);
}

/** Drops `name` (after a system's run, so the next one starts on a quiet server). */
export async function dropDatabase(base) {
  const name = databaseName(base);
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
