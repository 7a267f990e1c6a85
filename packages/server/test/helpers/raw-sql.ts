import pg from 'pg';

/** Runs statements straight on a test store's database (PostgreSQL by url, SQLite by file), bypassing the store. */
export async function rawSql(
  where: { url?: string; file?: string },
  statements: readonly string[],
): Promise<void> {
  if (where.url !== undefined) {
    const client = new pg.Client({ connectionString: where.url });
    await client.connect();
    try {
      for (const sql of statements) await client.query(sql);
    } finally {
      await client.end();
    }
    return;
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(where.file ?? '');
  try {
    for (const sql of statements) db.exec(sql);
  } finally {
    db.close();
  }
}
