// Baton on PostgreSQL: a server process on a fresh database, workers over HTTP.
import { runBaton } from '../lib/baton-system.mjs';
import { databaseName, dropDatabase, freshDatabase } from '../lib/pg-admin.mjs';

export default async function run(options) {
  const databaseUrl = await freshDatabase('bench_baton');
  try {
    return await runBaton(options, {
      label: 'Baton (PostgreSQL)',
      databaseUrl,
      pgDatabase: databaseName('bench_baton'),
    });
  } finally {
    await dropDatabase('bench_baton');
  }
}
