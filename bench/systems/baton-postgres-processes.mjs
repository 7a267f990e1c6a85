// Baton on PostgreSQL as one server started with BATON_PROCESSES=`options.processes` (default 2):
// a primary forks that many node processes sharing the port, and the workers reach them through
// it as through one node. Runs as baton-postgres-processes-2, -4, … (systems-catalog.mjs).
import { runBaton } from '../lib/baton-system.mjs';
import { databaseName, dropDatabase, freshDatabase } from '../lib/pg-admin.mjs';

export default async function run(options) {
  const processes = options.processes ?? 2;
  const databaseUrl = await freshDatabase('bench_baton_processes');
  try {
    return await runBaton(options, {
      label: `Baton (PostgreSQL, BATON_PROCESSES=${processes})`,
      databaseUrl,
      pgDatabase: databaseName('bench_baton_processes'),
      processes,
    });
  } finally {
    await dropDatabase('bench_baton_processes');
  }
}
