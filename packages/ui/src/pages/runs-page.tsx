import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';

import { ApiError, enc, qs, sendJson } from '../api/client';
import { useDefinitions, useRunSearch, type RunSearch } from '../api/hooks';
import { BULK_ACTIONS, type BulkOperation, type BulkResponse, type WorkflowStatus } from '../api/types';
import { pageSize, SortAndSize } from '../components/sort-and-size';
import { StatusBadge } from '../components/status';
import { formatDuration, formatTime, fromInputTime, zoneLabel } from '../format';
import { Link, useRouter } from '../router';

/**
 * Runs: search by name, status, time range, correlation id and free text; sort; page; act on
 * many runs at once and see each run's result. The search lives in the address bar, so a
 * search can be shared and survives a reload.
 */

const STATUSES: WorkflowStatus[] = ['RUNNING', 'PAUSED', 'COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED'];
const SORTS = [
  ['createTime:DESC', 'Newest first'],
  ['createTime:ASC', 'Oldest first'],
  ['updateTime:DESC', 'Recently updated'],
  ['endTime:DESC', 'Recently ended'],
  ['status:ASC', 'Status'],
  ['workflowType:ASC', 'Name'],
] as const;

/** A time input's value, read in the zone times are shown in. */
function toIso(local: string): string | undefined {
  const ms = fromInputTime(local);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

function searchFrom(params: URLSearchParams): RunSearch & { fromLocal: string; toLocal: string } {
  const size = Number(params.get('size') ?? 25);
  const start = Number(params.get('start') ?? 0);
  const fromLocal = params.get('from') ?? '';
  const toLocal = params.get('to') ?? '';
  const s: RunSearch & { fromLocal: string; toLocal: string } = {
    start: Number.isInteger(start) && start >= 0 ? start : 0,
    size: pageSize(size),
    sort: params.get('sort') ?? 'createTime:DESC',
    fromLocal,
    toLocal,
  };
  for (const key of ['name', 'status', 'correlationId', 'freeText'] as const) {
    const v = params.get(key);
    if (v) s[key] = v;
  }
  const from = toIso(fromLocal);
  const to = toIso(toLocal);
  if (from) s.from = from;
  if (to) s.to = to;
  return s;
}

export function RunsPage() {
  const { location, navigate } = useRouter();
  const search = useMemo(() => searchFrom(location.search), [location.search]);
  const [live, setLive] = useState(true);
  const { fromLocal: _f, toLocal: _t, ...apiSearch } = search;
  const runs = useRunSearch(apiSearch, live);
  const definitions = useDefinitions();
  const names = useMemo(
    () => [...new Set((definitions.data ?? []).map((d) => d.name))].sort(),
    [definitions.data],
  );
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [bulk, setBulk] = useState<{
    op: BulkOperation;
    result?: BulkResponse;
    error?: string;
    busy?: boolean;
  }>();
  const queryClient = useQueryClient();

  const setParams = (patch: Record<string, string | undefined>, resetPage = true) => {
    const next = new URLSearchParams(location.search);
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined || v === '') next.delete(k);
      else next.set(k, v);
    }
    if (resetPage) next.delete('start');
    navigate(`/runs${next.toString() ? `?${next.toString()}` : ''}`, { replace: true });
  };

  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const field = (name: string): string => {
      const v = form.get(name);
      return typeof v === 'string' ? v : '';
    };
    const statuses = form.getAll('status').filter((v): v is string => typeof v === 'string');
    setParams({
      name: field('name'),
      correlationId: field('correlationId').trim(),
      freeText: field('freeText').trim(),
      from: field('from'),
      to: field('to'),
      status: statuses.join(','),
    });
  };

  const results = runs.data?.results ?? [];
  const total = runs.data?.totalHits ?? 0;
  const allOnPage = results.length > 0 && results.every((r) => selected.has(r.workflowId));
  const statusSet = new Set((search.status ?? '').split(',').filter(Boolean));

  const runBulk = async (op: BulkOperation) => {
    const ids = [...selected];
    let reason = '';
    if (op === 'terminate') {
      const answer = window.prompt(`Terminate ${ids.length} run(s)? Reason:`, 'terminated from the UI');
      if (answer === null) return;
      reason = answer;
    }
    setBulk({ op, busy: true });
    try {
      const result = await sendJson<BulkResponse>('POST', `/api/workflow/bulk/${op}${qs({ reason })}`, ids);
      setBulk({ op, result });
      setSelected(new Set(Object.keys(result.bulkErrorResults)));
      await queryClient.invalidateQueries({ queryKey: ['runs'] });
    } catch (err) {
      setBulk({ op, error: err instanceof ApiError || err instanceof Error ? err.message : String(err) });
    }
  };

  return (
    <div className="page">
      <div className="page-head">
        <h1>Runs</h1>
        <label className="toggle">
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} /> live updates
        </label>
      </div>
      <form
        className="card filters"
        onSubmit={onSubmit}
        key={location.search.toString()}
        aria-label="Search runs"
      >
        <div className="field">
          <label htmlFor="f-name">Workflow</label>
          <select id="f-name" name="name" defaultValue={search.name ?? ''}>
            <option value="">any</option>
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
            {search.name && !names.includes(search.name) && (
              <option value={search.name}>{search.name}</option>
            )}
          </select>
        </div>
        <div className="field">
          <label htmlFor="f-corr">Correlation id</label>
          <input
            id="f-corr"
            name="correlationId"
            defaultValue={search.correlationId ?? ''}
            placeholder="exact"
          />
        </div>
        <div className="field grow">
          <label htmlFor="f-text">Free text</label>
          <input
            id="f-text"
            name="freeText"
            defaultValue={search.freeText ?? ''}
            placeholder="id, input, output, reason…"
          />
        </div>
        <div className="field">
          <label htmlFor="f-from">Started after ({zoneLabel()})</label>
          <input id="f-from" name="from" type="datetime-local" defaultValue={search.fromLocal} />
        </div>
        <div className="field">
          <label htmlFor="f-to">Started before ({zoneLabel()})</label>
          <input id="f-to" name="to" type="datetime-local" defaultValue={search.toLocal} />
        </div>
        <fieldset className="statuses">
          <legend>Status</legend>
          {STATUSES.map((s) => (
            <label key={s} className="check">
              <input type="checkbox" name="status" value={s} defaultChecked={statusSet.has(s)} />{' '}
              {s.toLowerCase().replace('_', ' ')}
            </label>
          ))}
        </fieldset>
        <div className="filter-actions">
          <button type="submit" className="btn btn-primary">
            Search
          </button>
          <button type="button" className="btn" onClick={() => navigate('/runs', { replace: true })}>
            Clear
          </button>
        </div>
      </form>

      <div className="toolbar">
        <div className="bulk" role="group" aria-label="Bulk actions">
          <span className="muted">{selected.size} selected</span>
          {BULK_ACTIONS.map((op) => (
            <button
              key={op}
              type="button"
              className={`btn btn-small${op === 'terminate' ? ' btn-danger' : ''}`}
              disabled={selected.size === 0 || bulk?.busy}
              onClick={() => void runBulk(op)}
            >
              {op}
            </button>
          ))}
        </div>
        <SortAndSize
          idPrefix="f"
          sorts={SORTS}
          sort={search.sort}
          size={search.size}
          onChange={(params) => setParams(params)}
        />
      </div>

      {bulk && !bulk.busy && (
        <div
          className={`alert ${bulk.error || Object.keys(bulk.result?.bulkErrorResults ?? {}).length ? 'alert-warn' : 'alert-ok'}`}
          role="status"
          data-testid="bulk-result"
        >
          <div className="bulk-summary">
            <span>
              <strong>{bulk.op}</strong>:{' '}
              {bulk.error ??
                `${bulk.result?.bulkSuccessfulResults.length ?? 0} done, ${Object.keys(bulk.result?.bulkErrorResults ?? {}).length} refused`}
            </span>{' '}
            <button
              type="button"
              className="btn btn-small"
              aria-label="Dismiss this result"
              onClick={() => setBulk(undefined)}
            >
              Dismiss
            </button>
          </div>
          {bulk.result && Object.keys(bulk.result.bulkErrorResults).length > 0 && (
            <ul className="bulk-errors">
              {Object.entries(bulk.result.bulkErrorResults).map(([id, message]) => (
                <li key={id}>
                  <Link to={`/runs/${enc(id)}`}>{id}</Link>: {message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {runs.error && <div className="alert alert-error">{runs.error.message}</div>}

      <div className="card table-card">
        <table className="table runs-table">
          <thead>
            <tr>
              <th className="col-check">
                <input
                  type="checkbox"
                  aria-label="Select every run on this page"
                  checked={allOnPage}
                  onChange={() => {
                    const next = new Set(selected);
                    for (const r of results) {
                      if (allOnPage) next.delete(r.workflowId);
                      else next.add(r.workflowId);
                    }
                    setSelected(next);
                  }}
                />
              </th>
              <th>Run</th>
              <th>Workflow</th>
              <th>Status</th>
              <th className="hide-sm">Correlation id</th>
              <th className="hide-sm">Started</th>
              <th className="hide-sm">Duration</th>
            </tr>
          </thead>
          <tbody>
            {results.map((r) => (
              <tr key={r.workflowId} data-run={r.workflowId}>
                <td className="col-check">
                  <input
                    type="checkbox"
                    aria-label={`Select run ${r.workflowId}`}
                    checked={selected.has(r.workflowId)}
                    onChange={() => {
                      const next = new Set(selected);
                      if (next.has(r.workflowId)) next.delete(r.workflowId);
                      else next.add(r.workflowId);
                      setSelected(next);
                    }}
                  />
                </td>
                <td className="mono">
                  <Link to={`/runs/${enc(r.workflowId)}`}>{r.workflowId}</Link>
                  {r.reasonForIncompletion && <div className="reason">{r.reasonForIncompletion}</div>}
                </td>
                <td>
                  {r.workflowType} <span className="muted">v{r.version}</span>
                </td>
                <td>
                  <StatusBadge status={r.status} />
                </td>
                <td className="hide-sm mono">{r.correlationId ?? ''}</td>
                <td className="hide-sm nowrap">{formatTime(r.startTime)}</td>
                <td className="hide-sm nowrap">
                  {r.endTime
                    ? formatDuration(r.executionTime)
                    : formatDuration(Date.now() - Date.parse(r.startTime))}
                </td>
              </tr>
            ))}
            {results.length === 0 && !runs.isPending && (
              <tr>
                <td colSpan={7} className="empty">
                  No runs match. <Link to="/workbench">Start one</Link>.
                </td>
              </tr>
            )}
            {runs.isPending && (
              <tr>
                <td colSpan={7} className="empty">
                  Loading…
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Pages">
        <span className="muted">
          {total === 0
            ? 'no runs'
            : `${search.start + 1}–${Math.min(search.start + search.size, total)} of ${total}`}
        </span>
        <button
          type="button"
          className="btn btn-small"
          disabled={search.start === 0}
          onClick={() => setParams({ start: String(Math.max(0, search.start - search.size)) }, false)}
        >
          ← Previous
        </button>
        <button
          type="button"
          className="btn btn-small"
          disabled={search.start + search.size >= total}
          onClick={() => setParams({ start: String(search.start + search.size) }, false)}
        >
          Next →
        </button>
      </nav>
    </div>
  );
}
