import type { Migration } from './sql-common.js';

/**
 * Which schema steps a starting node applies, and when it refuses to start. Dialect-free: the
 * stores read `schema_migrations` and apply what this answers, under their own lock.
 *
 * Rolling upgrades run nodes of two releases on one database at once, so migrations are
 * expand-then-contract (store/ARCHITECTURE.md, "Schema migrations"): each step declares
 * `compatibleFrom`, the oldest schema version whose code keeps working once the step is applied,
 * and the database records it. A node starts on a schema newer than its own when every step it
 * does not know declares itself compatible with the node's latest step; otherwise it refuses.
 */

/** A node cannot run on the database's schema: the message is the whole story (no stack needed). */
export class SchemaVersionError extends Error {
  override name = 'SchemaVersionError';
}

/** A row of `schema_migrations`. `compatibleFrom` is null where the step predates the column. */
export interface AppliedStep {
  version: number;
  compatibleFrom: number | null;
}

/** Checks a migration list: versions strictly increasing (gaps allowed), declarations in range. */
export function checkMigrationList(migrations: readonly Migration[]): number {
  let previous = 0;
  for (const m of migrations) {
    if (!Number.isInteger(m.version) || m.version <= previous)
      throw new Error(`migration list out of order at ${m.name} (version ${m.version})`);
    if (!Number.isInteger(m.compatibleFrom) || m.compatibleFrom < 1 || m.compatibleFrom > m.version)
      throw new Error(
        `migration ${m.version} (${m.name}) declares compatibleFrom ${m.compatibleFrom}: it must lie in 1..${m.version}`,
      );
    previous = m.version;
  }
  return previous;
}

/** The latest step a list knows (0 for an empty list). */
export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.at(-1)?.version ?? 0;
}

/**
 * The steps to apply, in order, given what the database has applied. Empty when the database is
 * up to date, or newer only by steps compatible with this node. Throws a one-line refusal when
 * this node cannot run on the database.
 */
export function pendingMigrations(
  dialect: string,
  known: readonly Migration[],
  applied: readonly AppliedStep[],
): Migration[] {
  const ours = latestVersion(known);
  const knownVersions = new Set(known.map((m) => m.version));
  const appliedVersions = new Set(applied.map((s) => s.version));
  const unknown = applied.filter((s) => !knownVersions.has(s.version)).sort((a, b) => a.version - b.version);
  const pending = known.filter((m) => !appliedVersions.has(m.version));
  if (unknown.length === 0) return pending;

  const theirs = Math.max(...unknown.map((s) => s.version));
  // A step recorded without a declaration claims no compatibility: only a node that knows it runs on it.
  const blocking = unknown.find((s) => (s.compatibleFrom ?? s.version) > ours);
  if (blocking !== undefined)
    throw new SchemaVersionError(
      `the ${dialect} database has schema version ${theirs}, newer than this Baton's ${ours}, and its step ` +
        `${blocking.version} needs a Baton of schema ${blocking.compatibleFrom ?? blocking.version} or later: ` +
        `upgrade this node to a release that knows schema ${theirs}; refusing to start.`,
    );
  if (pending.length > 0)
    throw new SchemaVersionError(
      `the ${dialect} database has schema version ${theirs}, newer than this Baton's ${ours}, yet lacks this ` +
        `node's step${pending.length > 1 ? 's' : ''} ${pending.map((m) => m.version).join(', ')}: it was migrated ` +
        'by a release of another line; run a release that knows both; refusing to start.',
    );
  return [];
}
