import { useMemo, useState, type FormEvent } from 'react';

import { enc } from '../api/client';
import { useDefinitions, useTaskDefs, useTaskSearch, type TaskSearch } from '../api/hooks';
import type { TaskSummary } from '../api/types';
import { pageSize, SortAndSize } from '../components/sort-and-size';
import { StatusBadge } from '../components/status';
import { formatDuration, formatTime, fromInputTime, relative, zoneLabel } from '../format';
import { Link, useRouter } from '../router';

/**
 * Tasks across every run (`GET /api/tasks/search`): by type, status, worker, run name, start
 * time, how long untouched and free text; each row leads to its run with the task opened. The
 * page an operator uses to find every stuck task of one type: type + "open" + "untouched for".
 * The search lives in the address bar, so it can be shared and survives a reload.
 */

const STATUSES = [
  'SCHEDULED',
  'IN_PROGRESS',
  'COMPLETED',
  'FAILED',
  'FAILED_WITH_TERMINAL_ERROR',
  'TIMED_OUT',
  'CANCELED',
  'SKIPPED',
  'COMPLETED_WITH_ERRORS',
] as const;
const OPEN = 'SCHEDULED,IN_PROGRESS';
const SORTS = [
  ['updateTime:DESC', 'Recently updated'],
  ['updateTime:ASC', 'Longest untouched first'],
  ['scheduledTime:DESC', 'Newest first'],
  ['scheduledTime:ASC', 'Oldest first'],
  ['taskType:ASC', 'Type'],
] as const;

interface Params {
  type: string;
  status: string;
  worker: string;
  run: string;
  text: string;
  from: string;
  to: string;
  idle: string;
  sort: string;
  start: number;
  size: number;
}

function paramsOf(search: URLSearchParams): Params {
  const size = Number(search.get('size') ?? 25);
  const start = Number(search.get('start') ?? 0);
  const text = (k: string) => search.get(k) ?? '';
  return {
    type: text('type'),
    status: text('status'),
    worker: text('worker'),
    run: text('run'),
    text: text('text'),
    from: text('from'),
    to: text('to'),
    idle: text('idle'),
    sort: search.get('sort') ?? 'updateTime:DESC',
    start: Number.isInteger(start) && start >= 0 ? start : 0,
    size: pageSize(size),
  };
}

/** The API's query for these filters; `now` fixes "untouched for N min" to one moment. */
function apiSearch(p: Params, now: number): TaskSearch {
  const s: TaskSearch = { start: p.start, size: p.size, sort: p.sort };
  if (p.type) s.taskType = p.type;
  if (p.worker) s.workerId = p.worker;
  if (p.status) s.status = p.status;
  if (p.run) s.workflowType = p.run;
  if (p.text) s.freeText = p.text;
  const from = fromInputTime(p.from);
  const to = fromInputTime(p.to);
  if (from !== undefined) s.from = String(from);
  if (to !== undefined) s.to = String(to);
  const idle = Number(p.idle);
  if (p.idle && Number.isFinite(idle) && idle > 0) s.query = `updateTime < ${now - idle * 60_000}`;
  return s;
}

function TaskRow({ t }: { t: TaskSummary }) {
  const updated = Date.parse(t.updateTime);
  return (
    <tr data-task={t.taskId}>
      <td>
        <span className="mono">{t.referenceTaskName}</span>
        <div className="small muted">{t.taskType}</div>
      </td>
      <td>
        <StatusBadge status={t.status} />
        {t.retryCount > 0 && <div className="small muted">attempt {t.retryCount + 1}</div>}
      </td>
      <td className="mono">
        <Link
          to={`/runs/${enc(t.workflowId)}?task=${enc(t.referenceTaskName)}`}
          title={`Open run ${t.workflowId} at this task`}
        >
          {t.workflowId}
        </Link>
        <div className="small muted">{t.workflowType}</div>
        {t.reasonForIncompletion && <div className="reason">{t.reasonForIncompletion}</div>}
      </td>
      <td className="hide-sm mono small">{t.workerId ?? '—'}</td>
      <td className="hide-sm nowrap">{formatTime(t.scheduledTime)}</td>
      <td className="hide-sm nowrap" title={formatTime(t.updateTime)}>
        {Number.isNaN(updated) ? '—' : relative(updated)}
      </td>
      <td className="hide-sm nowrap">
        {t.executionTime > 0 ? formatDuration(t.executionTime) : t.queueWaitTime > 0 ? '—' : ''}
      </td>
    </tr>
  );
}

export function TasksPage() {
  const { location, navigate } = useRouter();
  const p = useMemo(() => paramsOf(location.search), [location.search]);
  const [live, setLive] = useState(true);
  // "Untouched for N min" is measured from when the search was made, not from each refresh.
  const [now, setNow] = useState(() => Date.now());
  const search = useMemo(() => apiSearch(p, now), [p, now]);
  const answer = useTaskSearch(search, live);
  const taskDefs = useTaskDefs();
  const defs = useDefinitions();
  const typeNames = useMemo(
    () => [...new Set((taskDefs.data ?? []).map((d) => d.name))].sort(),
    [taskDefs.data],
  );
  const runNames = useMemo(() => [...new Set((defs.data ?? []).map((d) => d.name))].sort(), [defs.data]);

  const setParams = (patch: Record<string, string | undefined>, resetPage = true) => {
    const next = new URLSearchParams(location.search);
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined || v === '') next.delete(k);
      else next.set(k, v);
    }
    if (resetPage) next.delete('start');
    setNow(Date.now());
    navigate(`/tasks${next.toString() ? `?${next.toString()}` : ''}`, { replace: true });
  };

  /** Searches with what the form holds, `patch` on top (a preset's status and order). */
  const apply = (el: HTMLFormElement, patch: Record<string, string> = {}) => {
    const form = new FormData(el);
    const field = (name: string): string => {
      const v = form.get(name);
      return typeof v === 'string' ? v.trim() : '';
    };
    const statuses = form.getAll('status').filter((v): v is string => typeof v === 'string');
    setParams({
      type: field('type'),
      worker: field('worker'),
      run: field('run'),
      text: field('text'),
      from: field('from'),
      to: field('to'),
      idle: field('idle'),
      status: statuses.join(','),
      ...patch,
    });
  };
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    apply(e.currentTarget);
  };

  const rows = answer.data?.results ?? [];
  const total = answer.data?.totalHits ?? 0;
  const statusSet = new Set(p.status.split(',').filter(Boolean));
  const zone = zoneLabel();

  return (
    <div className="page">
      <div className="page-head">
        <h1>Tasks</h1>
        <label className="toggle">
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} /> live updates
        </label>
      </div>
      <form
        className="card filters"
        onSubmit={onSubmit}
        key={location.search.toString()}
        aria-label="Search tasks"
      >
        <div className="field">
          <label htmlFor="t-type">Task type</label>
          <input id="t-type" name="type" list="t-types" defaultValue={p.type} placeholder="any" />
          <datalist id="t-types">
            {typeNames.map((n) => (
              <option key={n} value={n} />
            ))}
          </datalist>
        </div>
        <div className="field">
          <label htmlFor="t-worker">Worker</label>
          <input id="t-worker" name="worker" defaultValue={p.worker} placeholder="worker id" />
        </div>
        <div className="field">
          <label htmlFor="t-run">Workflow</label>
          <select id="t-run" name="run" defaultValue={p.run}>
            <option value="">any</option>
            {runNames.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
            {p.run && !runNames.includes(p.run) && <option value={p.run}>{p.run}</option>}
          </select>
        </div>
        <div className="field grow">
          <label htmlFor="t-text">Free text</label>
          <input id="t-text" name="text" defaultValue={p.text} placeholder="task id, input, output…" />
        </div>
        <div className="field">
          <label htmlFor="t-from">Started after ({zone})</label>
          <input id="t-from" name="from" type="datetime-local" defaultValue={p.from} />
        </div>
        <div className="field">
          <label htmlFor="t-to">Started before ({zone})</label>
          <input id="t-to" name="to" type="datetime-local" defaultValue={p.to} />
        </div>
        <div className="field">
          <label htmlFor="t-idle">Untouched for (min)</label>
          <input
            id="t-idle"
            name="idle"
            type="number"
            min={0}
            step="any"
            defaultValue={p.idle}
            placeholder="any"
          />
        </div>
        <fieldset className="statuses">
          <legend>Status</legend>
          {STATUSES.map((s) => (
            <label key={s} className="check">
              <input type="checkbox" name="status" value={s} defaultChecked={statusSet.has(s)} />{' '}
              {s.toLowerCase().replace(/_/g, ' ')}
            </label>
          ))}
        </fieldset>
        <div className="filter-actions wide">
          <button type="submit" className="btn btn-primary">
            Search
          </button>
          <button
            type="button"
            className="btn"
            title="Scheduled or in progress"
            onClick={(e) => {
              if (e.currentTarget.form) apply(e.currentTarget.form, { status: OPEN, sort: 'updateTime:ASC' });
            }}
          >
            Open tasks, longest untouched first
          </button>
          <button type="button" className="btn" onClick={() => navigate('/tasks', { replace: true })}>
            Clear
          </button>
        </div>
      </form>

      <div className="toolbar">
        <span className="muted" role="status" data-testid="task-count">
          {answer.isPending
            ? 'searching…'
            : total === 0
              ? 'no tasks match'
              : `${p.start + 1}–${Math.min(p.start + p.size, total)} of ${total} task${total === 1 ? '' : 's'}`}
        </span>
        <SortAndSize
          idPrefix="t"
          sorts={SORTS}
          sort={p.sort}
          size={p.size}
          onChange={(params) => setParams(params)}
        />
      </div>
      {answer.error && (
        <div className="alert alert-error" role="alert">
          {answer.error.message}
        </div>
      )}
      <div className="card table-card">
        <table className="table" data-testid="task-results">
          <thead>
            <tr>
              <th>Task</th>
              <th>Status</th>
              <th>Run</th>
              <th className="hide-sm">Worker</th>
              <th className="hide-sm">Scheduled</th>
              <th className="hide-sm">Updated</th>
              <th className="hide-sm">Ran for</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => (
              <TaskRow key={t.taskId} t={t} />
            ))}
            {rows.length === 0 && !answer.isPending && (
              <tr>
                <td colSpan={7} className="empty">
                  No tasks match.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Pages">
        <button
          type="button"
          className="btn btn-small"
          disabled={p.start === 0}
          onClick={() => setParams({ start: String(Math.max(0, p.start - p.size)) }, false)}
        >
          ← Previous
        </button>
        <button
          type="button"
          className="btn btn-small"
          disabled={p.start + p.size >= total}
          onClick={() => setParams({ start: String(p.start + p.size) }, false)}
        >
          Next →
        </button>
      </nav>
    </div>
  );
}
