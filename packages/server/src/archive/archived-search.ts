import type { RunRecord, SearchResult, WorkflowSummary } from '@baton/protocol';

import { fail } from '../errors.js';
import type { ArchivedRun, RunQuery, RunSortField, Tx } from '../store/store.js';

/**
 * Largest `start + size` of a run search that also finds archived runs: the two sources are
 * each read up to there and merged, so deep pages cost what they skip (Elasticsearch, which
 * Conductor searches, has the same window).
 */
export const MAX_MERGED_WINDOW = 10_000;

type SortKey = string | number;

function keyOf(
  field: RunSortField,
  row: {
    workflowId: string;
    workflowName: string;
    status: string;
    createTime: number;
    updateTime: number;
    endTime: number;
  },
): SortKey {
  switch (field) {
    case 'createTime':
      return row.createTime;
    case 'updateTime':
      return row.updateTime;
    case 'endTime':
      return row.endTime;
    case 'status':
      return row.status;
    case 'workflowType':
      return row.workflowName;
    case 'workflowId':
      return row.workflowId;
  }
}

function compareKeys(a: SortKey, b: SortKey): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  // Byte order, as the stores sort text (PostgreSQL with COLLATE "C").
  return Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)));
}

type Row = {
  workflowId: string;
  workflowName: string;
  status: string;
  createTime: number;
  updateTime: number;
  endTime: number;
};

/** The order the stores use (runOrderBy): the asked fields (default createTime DESC), then workflowId ASC. */
function comparator(sort: RunQuery['sort']): (a: Row, b: Row) => number {
  const fields = sort.length > 0 ? sort : [{ field: 'createTime' as const, order: 'DESC' as const }];
  return (a, b) => {
    for (const { field, order } of fields) {
      const c = compareKeys(keyOf(field, a), keyOf(field, b));
      if (c !== 0) return order === 'ASC' ? c : -c;
    }
    return compareKeys(a.workflowId, b.workflowId);
  };
}

/** One page over hot and archived runs, in the query's order. */
export async function mergeRunPages(
  query: RunQuery,
  tx: Tx,
  hotSummary: (run: RunRecord) => WorkflowSummary,
  coldSummary: (row: ArchivedRun) => WorkflowSummary,
): Promise<SearchResult<WorkflowSummary>> {
  const window = query.start + query.size;
  if (window > MAX_MERGED_WINDOW) {
    throw fail('SEARCH_WINDOW_TOO_LARGE', { max: MAX_MERGED_WINDOW }, [
      {
        path: 'querystring.start',
        message: `start + size over ${MAX_MERGED_WINDOW}`,
        invalidValue: query.start,
      },
    ]);
  }
  const head = { ...query, start: 0, size: window };
  const hot = await tx.searchRuns(head);
  const cold = await tx.searchArchivedRuns(head);
  // A run moved between the two reads shows up in both: keep its hot row.
  const hotIds = new Set(hot.results.map((run) => run.workflowId));
  const rows: Array<{ row: Row; summary: () => WorkflowSummary }> = [
    ...hot.results.map((run) => ({ row: run, summary: () => hotSummary(run) })),
    ...cold.results
      .filter((archived) => !hotIds.has(archived.workflowId))
      .map((archived) => ({ row: archived, summary: () => coldSummary(archived) })),
  ];
  const order = comparator(query.sort);
  rows.sort((a, b) => order(a.row, b.row));
  return {
    totalHits: hot.totalHits + cold.totalHits,
    results: rows.slice(query.start, window).map((r) => r.summary()),
  };
}
