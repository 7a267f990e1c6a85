import type { DefinitionPrunePage, DefinitionPruning } from '../store/store.js';
import type { SqliteConnection } from './connection.js';

/**
 * A page of a pruning pass over `run_definitions` on SQLite (the port's contract is in
 * store/ports/archive.ts). A run refers to a snapshot as `#<id>` in `runs.definition` (sql.ts
 * `runDefinitionRef`), found through `runs_definition`. The page runs in the one writer's
 * transaction, which a start's lookup-or-insert of its snapshot also needs: no start can come
 * between the check and the delete, and nothing reads a run without its snapshot in the same
 * statement (`RUN_COLUMNS`).
 */

const USED = `EXISTS (SELECT 1 FROM runs AS r WHERE r.definition = '#' || d.id)`;

export function pruneRunDefinitions(c: SqliteConnection, page: DefinitionPruning): DefinitionPrunePage {
  const rows = c.all<{ id: number; unused_since: number | null; used: number }>(
    `SELECT d.id, d.unused_since, ${USED} AS used FROM run_definitions AS d
      WHERE d.id > ? ORDER BY d.id LIMIT ?`,
    Number(page.after ?? 0),
    page.limit,
  );
  let deleted = 0;
  let marked = 0;
  for (const r of rows) {
    if (r.used === 1) {
      if (r.unused_since !== null) c.run('UPDATE run_definitions SET unused_since = NULL WHERE id = ?', r.id);
    } else if (r.unused_since === null) {
      c.run('UPDATE run_definitions SET unused_since = ? WHERE id = ?', page.now, r.id);
      marked++;
    } else if (r.unused_since <= page.unusedBefore) {
      deleted += c.run('DELETE FROM run_definitions WHERE id = ?', r.id).changes;
    }
  }
  const last = rows.at(-1);
  return rows.length === page.limit && last
    ? { next: String(last.id), marked, deleted }
    : { marked, deleted };
}
