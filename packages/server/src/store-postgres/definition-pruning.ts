import type { DefinitionPrunePage, DefinitionPruning } from '../store/store.js';
import { definitionLock } from './run-definitions.js';
import type { Query } from './sql.js';

/**
 * A page of a pruning pass over `run_definitions` on PostgreSQL (the port's contract is in
 * store/ports/archive.ts). Whether a run still refers to a snapshot is an index probe
 * (`runs_definition_digest`); the delete holds each snapshot's advisory lock, taken alone
 * (run-definitions.ts `definitionLock`), so a start that found the snapshot kept either commits
 * its run first or stores the snapshot again after this transaction.
 */

/**
 * Whether a run refers to snapshot `d`, always as one probe of `runs_definition_digest` per
 * snapshot. Written as EXISTS in a page's select list, it let the planner choose a hashed plan
 * instead, which reads the whole `runs` table once per page: on a database of 10,000 runs, 4 ms
 * of a page's 7.6, and every run once more for each page as the tables grow. A scalar subquery
 * with LIMIT has no such alternative.
 */
const USED = '((SELECT true FROM runs AS r WHERE r.definition_digest = d.digest LIMIT 1) IS NOT NULL)';

export async function pruneRunDefinitions(q: Query, page: DefinitionPruning): Promise<DefinitionPrunePage> {
  const { rows } = await q<{ digest: string; unused_since: string | number | null; used: boolean }>(
    `SELECT encode(d.digest, 'hex') AS digest, d.unused_since, ${USED} AS used
       FROM run_definitions AS d WHERE d.digest > decode($1, 'hex') ORDER BY d.digest LIMIT $2`,
    [page.after ?? '', page.limit],
  );
  const due = rows.filter(
    (r) => !r.used && r.unused_since !== null && Number(r.unused_since) <= page.unusedBefore,
  );
  let deleted = 0;
  if (due.length > 0) {
    // The locks first, in a statement of their own: the delete's check then sees every start
    // that committed before them (READ COMMITTED takes a new snapshot per statement).
    const locked = await q<{ digest: string }>(
      `SELECT d AS digest FROM unnest($1::text[]) AS d WHERE ${definitionLock('pg_try_advisory_xact_lock', 'd')}`,
      [due.map((r) => r.digest)],
    );
    if (locked.rows.length > 0) {
      const gone = await q(
        `DELETE FROM run_definitions AS d
          WHERE d.digest = ANY(ARRAY(SELECT decode(x, 'hex') FROM unnest($1::text[]) AS x))
            AND d.unused_since <= $2 AND NOT ${USED}`,
        [locked.rows.map((r) => r.digest), page.unusedBefore],
      );
      deleted = gone.rowCount ?? 0;
    }
  }
  // Marks turned: newly unused ones from now, used ones again unmarked; each checked afresh.
  const turned = rows.filter((r) => r.used === (r.unused_since !== null));
  const marked = turned.filter((r) => !r.used).length;
  if (turned.length > 0)
    await q(
      `UPDATE run_definitions AS d SET unused_since = CASE WHEN ${USED} THEN NULL ELSE $2::bigint END
        WHERE d.digest = ANY(ARRAY(SELECT decode(x, 'hex') FROM unnest($1::text[]) AS x))`,
      [turned.map((r) => r.digest), page.now],
    );
  const last = rows.at(-1);
  return rows.length === page.limit && last ? { next: last.digest, marked, deleted } : { marked, deleted };
}
