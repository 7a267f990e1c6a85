import type pg from 'pg';

/**
 * The PostgreSQL server's own settings the store relies on without setting them: autovacuum, and
 * the row counts (`track_counts`) it decides by. With either off, no dead row version is ever
 * reclaimed: every task's first version (a task row is inserted when it is handed out and
 * updated when its result comes, and the update cannot be HOT, its status being indexed) and
 * every deleted queue message stays in the tables and their indexes until someone runs `VACUUM`,
 * so the database grows by about half as much again a step and the queue's claim reads past ever
 * more dead entries (docs/operations.md, "Vacuum"). A node says so when it starts; it does not
 * vacuum by itself, which is the operator's call (a server may have autovacuum off on purpose,
 * for a bulk load, with a vacuum scheduled outside).
 */
export const WATCHED_SETTINGS = ['autovacuum', 'track_counts'] as const;

type WatchedSetting = (typeof WATCHED_SETTINGS)[number];

/** What the settings leave undone, each one sentence for the node's log; none when all is well. */
export function settingWarnings(settings: Readonly<Partial<Record<WatchedSetting, string>>>): string[] {
  const warnings: string[] = [];
  const off = (name: WatchedSetting): boolean => settings[name] === 'off';
  if (off('autovacuum'))
    warnings.push(
      "PostgreSQL's autovacuum is off: dead task and queue rows are never reclaimed unless VACUUM is run on Baton's tables (docs/operations.md, Vacuum)",
    );
  if (off('track_counts'))
    warnings.push(
      "PostgreSQL's track_counts is off, so autovacuum cannot tell when Baton's tables need a vacuum: dead task and queue rows are never reclaimed unless VACUUM is run (docs/operations.md, Vacuum)",
    );
  return warnings;
}

/** Reads the watched settings from the server (`pg_settings` is readable by every role). */
export async function readSettingWarnings(client: Pick<pg.Pool, 'query'>): Promise<string[]> {
  const { rows } = await client.query<{ name: string; setting: string }>(
    'SELECT name, setting FROM pg_settings WHERE name = ANY($1::text[])',
    [WATCHED_SETTINGS],
  );
  // The query names only watched settings, so every row is one.
  return settingWarnings(Object.fromEntries(rows.map((row) => [row.name, row.setting])));
}
