/** A client that can run a statement: a pool, or one of its connections. */
interface SettingsClient {
  query: <R extends object>(sql: string, values?: unknown[]) => Promise<{ rows: R[] }>;
}

/**
 * A setting of the database (`store_settings`), read by a node once its migrations have run: how
 * it writes what nodes of an earlier release may still read (record-shape.ts, latest-by-name.ts).
 * `made`: this node has just created the database, which no earlier release has met, so the
 * setting is set to `madeValue`. Where the table or the row is missing (a schema from before the
 * setting), `fallback`. A value outside `values` stops the node, naming the setting.
 */
export async function databaseSetting<T extends string>(
  client: SettingsClient,
  name: string,
  values: readonly T[],
  { made, madeValue, fallback }: { made: boolean; madeValue: T; fallback: T },
): Promise<T> {
  const { rows: table } = await client.query<{ present: boolean }>(
    "SELECT to_regclass('store_settings') IS NOT NULL AS present",
  );
  if (table[0]?.present !== true) return fallback;
  if (made) {
    const { rows } = await client.query<{ name: string }>(
      'UPDATE store_settings SET value = $2 WHERE name = $1 RETURNING name',
      [name, madeValue],
    );
    return rows.length > 0 ? madeValue : fallback;
  }
  const { rows } = await client.query<{ value: string }>('SELECT value FROM store_settings WHERE name = $1', [
    name,
  ]);
  const value = rows[0]?.value;
  if (value === undefined) return fallback;
  if (!(values as readonly string[]).includes(value))
    throw new Error(
      `store_settings.${name} is ${JSON.stringify(value)}: it must be one of ${values.join(', ')}`,
    );
  return value as T;
}
