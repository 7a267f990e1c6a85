import pg from 'pg';

import { openPostgresStore } from '../../src/store-postgres/postgres-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';

/** A node of `EXPLAIN (FORMAT JSON)`: what the plan tests read of it. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/** A plan's nodes, the root first. */
export function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

/** Every index a plan reads, by name (`Index Name` of index and bitmap index scans). */
export const indexesRead = (plan: PlanNode): string[] =>
  planNodes(plan).flatMap((n) => (n['Index Name'] ? [n['Index Name']] : []));

/** A fresh, migrated PostgreSQL database for a plan test: its store, a client of its own, and the end of both. */
export async function planDatabase(): Promise<{
  store: Store;
  client: pg.Client;
  close: () => Promise<void>;
}> {
  const db: TestDatabase = await createTestDatabase();
  const store = openPostgresStore({ url: db.url, poolSize: 2 });
  await store.migrate();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  return {
    store,
    client,
    close: async () => {
      await client.end();
      await store.close();
      await db.drop();
    },
  };
}
