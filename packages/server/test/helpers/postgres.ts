import { randomBytes } from 'node:crypto';

import pg from 'pg';

/**
 * A fresh, empty PostgreSQL database on the server named by BATON_TEST_DATABASE_URL
 * (set by scripts/run-tests.mjs, which starts a throwaway server when none is given).
 * Each caller gets its own database, so test files never see each other's rows.
 */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export function testServerUrl(): string {
  const url = process.env.BATON_TEST_DATABASE_URL;
  if (!url) {
    throw new Error('BATON_TEST_DATABASE_URL is not set: run the tests with `npm test`');
  }
  return url;
}

export async function createTestDatabase(prefix = 'baton_test'): Promise<TestDatabase> {
  const serverUrl = testServerUrl();
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Which stores the store-backed suites run on: `BATON_TEST_STORES=sqlite,postgres` (default both). */
export function enabledStores(): Array<'sqlite' | 'postgres'> {
  const raw = process.env.BATON_TEST_STORES ?? 'sqlite,postgres';
  const wanted = raw.split(',').map((s) => s.trim());
  return (['sqlite', 'postgres'] as const).filter((s) => wanted.includes(s));
}
