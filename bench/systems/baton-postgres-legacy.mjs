// Baton on PostgreSQL driven by legacy workers: batch poll and `POST /api/tasks`, no update-v2,
// as most existing Conductor workers run. Same server, database and workflow as baton-postgres.
import { runBaton } from '../lib/baton-system.mjs';
import { databaseName, dropDatabase, freshDatabase } from '../lib/pg-admin.mjs';

export default async function run(options) {
  const databaseUrl = await freshDatabase('bench_baton_legacy');
  try {
    return await runBaton(options, {
      label: 'Baton (PostgreSQL, legacy workers)',
      databaseUrl,
      pgDatabase: databaseName('bench_baton_legacy'),
      protocol: 'legacy',
    });
  } finally {
    await dropDatabase('bench_baton_legacy');
  }
}
