import { readEnv, type RawEnv } from './config/env.js';
import { compileOptions } from './config/options.js';
import { openStore } from './open-store.js';

/**
 * `baton migrate`: applies the schema migrations of the store the settings name (the same
 * settings as `npm start`) and closes it. The server migrates on start too; this is for
 * deployments that migrate as a separate step before rolling out nodes.
 */
export async function migrateConfiguredStore(rawEnv: RawEnv = readEnv()): Promise<{ store: string }> {
  const options = compileOptions(rawEnv);
  const store = await openStore({
    dataDir: options.dataDir,
    poolSize: 1,
    sqliteSynchronous: options.sqliteSynchronous,
    ...(options.databaseUrl !== undefined && { databaseUrl: options.databaseUrl }),
  });
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  // Never the database URL itself: it may carry a password.
  return {
    store:
      options.databaseUrl === undefined ? `SQLite in ${options.dataDir}` : 'PostgreSQL (BATON_DATABASE_URL)',
  };
}
