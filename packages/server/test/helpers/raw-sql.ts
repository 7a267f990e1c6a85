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

/**
 * Rows of a query run straight on a test store's database, bypassing the store: `$1`, `$2`… are
 * its parameters on either dialect (SQLite's `?1`, `?2`…).
 */
export async function rawQuery<R>(
  where: { url?: string; file?: string },
  sql: string,
  params: readonly unknown[] = [],
): Promise<R[]> {
  if (where.url !== undefined) {
    const client = new pg.Client({ connectionString: where.url });
    await client.connect();
    try {
      return (await client.query(sql, [...params])).rows as R[];
    } finally {
      await client.end();
    }
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(where.file ?? '');
  try {
    const numbered = Object.fromEntries(params.map((value, i) => [String(i + 1), value]));
    const statement = db.prepare(sql.replace(/\$(\d+)/g, '?$1'));
    if (!statement.reader) {
      statement.run(numbered);
      return [];
    }
    return statement.all(numbered) as R[];
  } finally {
    db.close();
  }
}

/** What a test that rolls its schema back to an earlier step undoes of idempotency-keys-by-run, on either dialect. */
export const BEFORE_IDEMPOTENCY_KEYS_BY_RUN: readonly string[] = ['DROP INDEX idempotency_keys_workflow'];

/**
 * What an SQLite test that rolls its schema back to an earlier step undoes of
 * run-definition-pruning (`run_definitions` itself stays: the SQLite steps make it only if it is not there).
 */
export const SQLITE_BEFORE_DEFINITION_PRUNING: readonly string[] = [
  'DROP INDEX runs_definition',
  'ALTER TABLE run_definitions DROP COLUMN unused_since',
];

/**
 * PostgreSQL back to before the `compact-run-rows` step, for a test that takes a database to an
 * earlier schema by hand: whole run rows (the column fields back in the record, the definition
 * back in the row), the step's table, column and setting gone.
 */
export const PG_BEFORE_COMPACT_RUN_ROWS: readonly string[] = [
  `UPDATE runs SET definition = d.definition FROM run_definitions AS d
   WHERE runs.definition IS NULL AND d.digest = runs.definition_digest`,
  `UPDATE runs SET record = jsonb_strip_nulls(jsonb_build_object(
     'workflowId', workflow_id, 'workflowName', workflow_name, 'workflowVersion', workflow_version,
     'status', status, 'correlationId', correlation_id, 'priority', priority,
     'parentWorkflowId', parent_workflow_id, 'idempotencyKey', idempotency_key,
     'createTime', create_time, 'updateTime', update_time, 'endTime', end_time)) || record`,
  'ALTER TABLE runs DROP COLUMN definition_digest',
  'ALTER TABLE runs ALTER COLUMN definition SET NOT NULL',
  'DROP TABLE run_definitions',
  "DELETE FROM store_settings WHERE name = 'run_rows'",
];
