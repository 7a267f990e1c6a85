import Database from 'better-sqlite3';
import pg from 'pg';

import type { OpenedStore } from './stores.js';

/**
 * The text of every row of every table of a test store, read through a separate connection
 * (what an operator with database access would see): for tests that prove a value never
 * reaches a stored row.
 */
export async function everyStoredRow(opened: OpenedStore): Promise<string> {
  if (opened.file) {
    const db = new Database(opened.file, { readonly: true });
    try {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
        name: string;
      }>;
      return tables
        .map((t) => `${t.name}: ${JSON.stringify(db.prepare(`SELECT * FROM "${t.name}"`).all())}`)
        .join('\n');
    } finally {
      db.close();
    }
  }
  if (!opened.url) throw new Error('the opened store has neither a file nor a URL');
  const client = new pg.Client({ connectionString: opened.url });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    const parts: string[] = [];
    for (const t of tables) {
      const { rows } = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${t.table_name}" t`);
      parts.push(`${t.table_name}: ${rows.map((r) => r.row).join('\n')}`);
    }
    return parts.join('\n');
  } finally {
    await client.end();
  }
}
