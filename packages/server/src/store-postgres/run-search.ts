import type { RunRecord, WorkflowDef } from '@baton/protocol';

import { ARCHIVED_COLUMNS, type ArchivedRunRow, archivedFromRow } from '../store/archive-rows.js';
import { freeTextNeedle, freeTextWords, likePrefix, runOrderBy } from '../store/sql-common.js';
import { RUN_FILTER_COLUMNS, compileFilter } from '../store/sql-filter.js';
import type { ArchivedRun, RunQuery } from '../store/store.js';
import type { Query } from './sql.js';

/** Run search on PostgreSQL: hot runs and the archive's index answer the same conditions. */

export interface RunRow {
  record: Omit<RunRecord, 'workflowDefinition'>;
  definition: WorkflowDef;
}

type Placeholder = (value: unknown) => string;

function placeholders(): { params: unknown[]; p: Placeholder } {
  const params: unknown[] = [];
  return {
    params,
    p: (value) => {
      params.push(value);
      return `$${params.length}`;
    },
  };
}

/** The conditions of a run query both `runs` and `archived_runs` answer (same column names). */
export function runConditions(query: RunQuery, p: Placeholder): string[] {
  const where: string[] = [];
  if (query.filter !== undefined) {
    where.push(
      compileFilter(query.filter, RUN_FILTER_COLUMNS, (value, numeric) =>
        numeric ? `${p(Number(value))}::bigint` : `${p(String(value))}::text`,
      ),
    );
  }
  if (query.name !== undefined) where.push(`workflow_name = ${p(query.name)}`);
  if (query.status !== undefined && query.status.length > 0)
    where.push(`status = ANY(${p(query.status)}::text[])`);
  if (query.correlationId !== undefined) where.push(`correlation_id = ${p(query.correlationId)}`);
  if (query.from !== undefined) where.push(`create_time >= ${p(query.from)}::bigint`);
  if (query.to !== undefined) where.push(`create_time <= ${p(query.to)}::bigint`);
  return where;
}

/**
 * Free text on hot runs, every arm from an index: the id by prefix (runs_id_prefix), the
 * correlation id whole (runs_correlation), and every word of the needle as a word prefix of the
 * run's search text (runs_search_words: correlation id, name, reason, input and output).
 */
function freeTextCondition(text: string, p: Placeholder): string {
  const arms = [`workflow_id COLLATE "C" LIKE ${p(likePrefix(text))}`, `correlation_id = ${p(text)}`];
  const words = freeTextWords(text);
  if (words.length > 0) {
    const tsquery = words.map((w) => `'${w}':*`).join(' & ');
    arms.push(
      `(search_text IS NOT NULL AND to_tsvector('simple', search_text) @@ to_tsquery('simple', ${p(tsquery)}))`,
    );
  }
  return `(${arms.join(' OR ')})`;
}

export async function searchRuns(q: Query, query: RunQuery): Promise<{ totalHits: number; rows: RunRow[] }> {
  const { params, p } = placeholders();
  const where = runConditions(query, p);
  const text = freeTextNeedle(query.freeText);
  if (text !== undefined) where.push(freeTextCondition(text, p));
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const filterParams = [...params];
  const limit = p(Math.max(0, query.size));
  const offset = p(Math.max(0, query.start));
  const [count, page] = await Promise.all([
    q<{ n: number }>(`SELECT count(*) AS n FROM runs ${whereSql}`, filterParams),
    q<RunRow>(
      `SELECT record, definition FROM runs ${whereSql} ORDER BY ${runOrderBy(query.sort, '"C"')} LIMIT ${limit} OFFSET ${offset}`,
      params,
    ),
  ]);
  return { totalHits: Number(count.rows[0]?.n ?? 0), rows: page.rows };
}

export async function searchArchivedRuns(
  q: Query,
  query: RunQuery,
): Promise<{ totalHits: number; results: ArchivedRun[] }> {
  const { params, p } = placeholders();
  const where = runConditions(query, p);
  const text = freeTextNeedle(query.freeText);
  if (text !== undefined) {
    const t = p(text);
    const needle = p(text.toLowerCase());
    where.push(
      `(workflow_id = ${t} OR correlation_id = ${t} OR strpos(lower(workflow_name), ${needle}) > 0)`,
    );
  }
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const filterParams = [...params];
  const limit = p(Math.max(0, query.size));
  const offset = p(Math.max(0, query.start));
  const count = await q<{ n: number }>(
    `SELECT count(*)::int AS n FROM archived_runs ${whereSql}`,
    filterParams,
  );
  const page = await q<ArchivedRunRow>(
    `SELECT ${ARCHIVED_COLUMNS} FROM archived_runs ${whereSql} ORDER BY ${runOrderBy(query.sort, '"C"')} LIMIT ${limit} OFFSET ${offset}`,
    params,
  );
  return { totalHits: count.rows[0]?.n ?? 0, results: page.rows.map(archivedFromRow) };
}
