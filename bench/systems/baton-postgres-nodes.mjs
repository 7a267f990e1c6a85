// Baton on PostgreSQL with several nodes: `options.nodes` server processes (default 2) on one
// fresh database, each a node of the cluster, with the workers and the starts spread over them.
// Runs as baton-postgres-2-nodes, baton-postgres-4-nodes, … (systems-catalog.mjs).
import { runBaton } from '../lib/baton-system.mjs';
import { databaseName, dropDatabase, freshDatabase } from '../lib/pg-admin.mjs';

export default async function run(options) {
  const nodes = options.nodes ?? 2;
  const databaseUrl = await freshDatabase('bench_baton_nodes');
  try {
    return await runBaton(options, {
      label: `Baton (PostgreSQL, ${nodes} nodes)`,
      databaseUrl,
      pgDatabase: databaseName('bench_baton_nodes'),
      nodes,
    });
  } finally {
    await dropDatabase('bench_baton_nodes');
  }
}
