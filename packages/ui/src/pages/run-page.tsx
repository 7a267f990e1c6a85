import { useCallback, useMemo, useState } from 'react';

import { enc } from '../api/client';
import { useAccess } from '../auth';
import { useRun } from '../api/hooks';
import type { TaskRecord, Workflow } from '../api/types';
import { JsonView } from '../components/json';
import { StatusBadge, toneOf } from '../components/status';
import { Diagram } from '../diagram/diagram';
import { buildGraph } from '../diagram/graph';
import { formatDuration, formatTime, waitText } from '../format';
import { Link, useRouter } from '../router';
import { RunActions } from './run-actions';
import { TaskPanel } from './task-panel';

/**
 * One run. First, in words, what it waits for (or how it ended); then its diagram with each
 * box's state, its tasks, a timeline of attempts, its data, the runs it is linked to and what
 * can be done to it. Selecting a task (box or row) opens the task panel.
 */

const ROWS_SHOWN = 200;

function WaitingSummary({ run, onSelect }: { run: Workflow; onSelect: (ref: string) => void }) {
  if (run.status === 'RUNNING' || run.status === 'PAUSED') {
    const waits = run.waitingFor ?? [];
    return (
      <section
        className={`summary tone-${toneOf(run.status)}`}
        data-testid="waiting-for"
        aria-label="What this run waits for"
      >
        <h2>{run.status === 'PAUSED' ? 'Paused' : waits.length === 0 ? 'Running' : 'Waiting for'}</h2>
        {waits.length === 0 && <p>Nothing is waiting; the run is moving on.</p>}
        <ul>
          {waits.slice(0, 8).map((w, i) => (
            <li key={w.taskId ?? i}>
              {w.referenceTaskName ? (
                <button
                  type="button"
                  className="btn-link mono"
                  onClick={() => onSelect(w.referenceTaskName ?? '')}
                >
                  {w.referenceTaskName}
                </button>
              ) : null}{' '}
              {waitText(w.message.replace(/^waiting: /, ''), w.until)}
              {w.queueName && (
                <>
                  {' '}
                  — <Link to="/queues">queue {w.queueName}</Link>
                </>
              )}
              {w.childWorkflowId && (
                <>
                  {' '}
                  — <Link to={`/runs/${enc(w.childWorkflowId)}`}>open child run</Link>
                </>
              )}
            </li>
          ))}
          {waits.length > 8 && <li className="muted">…and {waits.length - 8} more open tasks</li>}
        </ul>
      </section>
    );
  }
  return (
    <section
      className={`summary tone-${toneOf(run.status)}`}
      data-testid="waiting-for"
      aria-label="How this run ended"
    >
      <h2>
        {run.status === 'COMPLETED'
          ? 'Completed'
          : run.status
              .replace('_', ' ')
              .toLowerCase()
              .replace(/^./, (c) => c.toUpperCase())}
      </h2>
      <p>
        {run.status === 'COMPLETED'
          ? 'Nothing to wait for: the run has ended'
          : (run.reasonForIncompletion ?? 'The run has ended')}
        {run.endTime > 0 &&
          ` at ${formatTime(run.endTime)}, after ${formatDuration(run.endTime - run.createTime)}`}
        .
      </p>
      {run.failedReferenceTaskNames.length > 0 && (
        <p>
          Failed task{run.failedReferenceTaskNames.length > 1 ? 's' : ''}:{' '}
          {run.failedReferenceTaskNames.map((r) => (
            <button key={r} type="button" className="btn-link mono" onClick={() => onSelect(r)}>
              {r}
            </button>
          ))}
        </p>
      )}
    </section>
  );
}

function RunLinks({ run }: { run: Workflow }) {
  const children = run.tasks
    .filter((t) => t.subWorkflowId)
    .map((t) => ({ id: t.subWorkflowId ?? '', ref: t.referenceTaskName }));
  const l = run.links;
  const items: Array<[string, string]> = [];
  if (run.parentWorkflowId) items.push(['parent', run.parentWorkflowId]);
  if (l.retry_of) items.push(['retry of', l.retry_of]);
  if (l.restart_of) items.push(['restart of', l.restart_of]);
  if (l.rerun_of) items.push(['rerun of', l.rerun_of]);
  for (const id of l.retried_by ?? []) items.push(['retried by', id]);
  for (const id of l.restarted_by ?? []) items.push(['restarted by', id]);
  for (const id of l.rerun_by ?? []) items.push(['rerun by', id]);
  for (const c of children.slice(0, 50)) items.push([`child (${c.ref})`, c.id]);
  if (items.length === 0) return null;
  return (
    <section className="card links" aria-label="Linked runs" data-testid="run-links">
      <h3>Linked runs</h3>
      <ul>
        {items.map(([what, id]) => (
          <li key={`${what}/${id}`}>
            <span className="muted">{what}</span>{' '}
            <Link to={`/runs/${enc(id)}`} className="mono">
              {id}
            </Link>
          </li>
        ))}
        {children.length > 50 && <li className="muted">…and {children.length - 50} more child runs</li>}
      </ul>
    </section>
  );
}

function TaskTable({ tasks, onSelect }: { tasks: TaskRecord[]; onSelect: (ref: string) => void }) {
  const [filter, setFilter] = useState('');
  const [shown, setShown] = useState(ROWS_SHOWN);
  const rows = tasks.filter(
    (t) =>
      filter === '' ||
      t.referenceTaskName.includes(filter) ||
      t.status.includes(filter.toUpperCase()) ||
      t.taskType.includes(filter.toUpperCase()),
  );
  return (
    <div>
      <input
        className="filter-input"
        aria-label="Filter tasks"
        placeholder="filter by ref, type or status"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
      />
      <table className="table compact" data-testid="task-table">
        <thead>
          <tr>
            <th>#</th>
            <th>Task</th>
            <th>Type</th>
            <th>Status</th>
            <th className="hide-sm">Started</th>
            <th className="hide-sm">Took</th>
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, shown).map((t) => (
            <tr key={t.taskId}>
              <td className="muted">{t.seq}</td>
              <td>
                <button
                  type="button"
                  className="btn-link mono"
                  onClick={() => onSelect(t.workflowTask.taskReferenceName)}
                >
                  {t.referenceTaskName}
                </button>
                {t.retryCount > 0 && <span className="muted"> (try {t.retryCount + 1})</span>}
              </td>
              <td>{t.taskType}</td>
              <td>
                <StatusBadge status={t.status} small />
              </td>
              <td className="hide-sm nowrap">{formatTime(t.startTime || t.scheduledTime)}</td>
              <td className="hide-sm">
                {t.endTime > 0 && t.startTime > 0 ? formatDuration(t.endTime - t.startTime) : '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > shown && (
        <button type="button" className="btn btn-small" onClick={() => setShown(shown + ROWS_SHOWN)}>
          Show {Math.min(ROWS_SHOWN, rows.length - shown)} more of {rows.length - shown}
        </button>
      )}
    </div>
  );
}

function Timeline({ run, onSelect }: { run: Workflow; onSelect: (ref: string) => void }) {
  const [shown, setShown] = useState(ROWS_SHOWN);
  const start = run.createTime;
  const now = Date.now();
  const end = Math.max(
    run.endTime > 0 ? run.endTime : now,
    ...run.tasks.map((t) => t.endTime || 0),
    start + 1,
  );
  const span = end - start;
  const tasks = run.tasks;
  return (
    <div className="timeline" data-testid="timeline">
      <div className="timeline-scale muted small">
        <span>{formatTime(start)}</span>
        <span>{formatDuration(span)}</span>
      </div>
      {tasks.slice(0, shown).map((t) => {
        const from = (t.startTime || t.scheduledTime) - start;
        const to = (t.endTime || (run.endTime > 0 ? run.endTime : now)) - start;
        const left = Math.max(0, (from / span) * 100);
        const width = Math.max(0.4, ((to - from) / span) * 100);
        return (
          <div className="timeline-row" key={t.taskId}>
            <button
              type="button"
              className="btn-link mono timeline-label"
              onClick={() => onSelect(t.workflowTask.taskReferenceName)}
              title={t.referenceTaskName}
            >
              {t.referenceTaskName}
              {t.retryCount > 0 ? ` #${t.retryCount + 1}` : ''}
            </button>
            <div className="timeline-track">
              <div
                className={`timeline-bar tone-${toneOf(t.status)}`}
                style={{ left: `${left}%`, width: `${Math.min(width, 100 - left)}%` }}
                title={`${t.status} · ${formatTime(t.startTime || t.scheduledTime)} → ${t.endTime ? formatTime(t.endTime) : 'now'}`}
              />
            </div>
          </div>
        );
      })}
      {tasks.length > shown && (
        <button type="button" className="btn btn-small" onClick={() => setShown(shown + ROWS_SHOWN)}>
          Show more ({tasks.length - shown} left)
        </button>
      )}
    </div>
  );
}

type Tab = 'tasks' | 'timeline' | 'data' | 'json';

/** A link to the run's trace in the configured trace viewer (tracing on, a URL template set). */
function TraceLink({ run }: { run: Workflow }) {
  const template = useAccess().session.traceUrlTemplate;
  if (template === undefined || run.trace === undefined) return null;
  return (
    <>
      {' '}
      ·{' '}
      <a
        href={template.replaceAll('{traceId}', encodeURIComponent(run.trace.traceId))}
        target="_blank"
        rel="noreferrer"
      >
        trace
      </a>
    </>
  );
}

export function RunPage({ id }: { id: string }) {
  const { location, navigate } = useRouter();
  const run = useRun(id);
  const selected = location.search.get('task') ?? undefined;
  const [tab, setTab] = useState<Tab>('tasks');
  const select = useCallback(
    (ref: string | undefined) =>
      navigate(`/runs/${enc(id)}${ref ? `?task=${enc(ref)}` : ''}`, { replace: true }),
    [id, navigate],
  );
  const openChild = useCallback((child: string) => navigate(`/runs/${enc(child)}`), [navigate]);
  const data = run.data;
  const graph = useMemo(
    () => (data ? buildGraph(data.workflowDefinition, data.tasks, { runStatus: data.status }) : undefined),
    [data],
  );

  if (run.isPending) return <div className="page">Loading run…</div>;
  if (run.error || !data || !graph) {
    return (
      <div className="page">
        <div className="alert alert-error">{run.error?.message ?? 'No such run'}</div>
        <Link to="/runs">← back to runs</Link>
      </div>
    );
  }

  return (
    <div className={`page run-page${selected ? ' with-panel' : ''}`}>
      <div className="run-main">
        <div className="page-head">
          <div>
            <div className="crumbs">
              <Link to="/runs">Runs</Link> /{' '}
              <Link to={`/definitions/${enc(data.workflowName)}?version=${data.workflowVersion}`}>
                {data.workflowName} v{data.workflowVersion}
              </Link>
            </div>
            <h1 className="run-title">
              <StatusBadge status={data.status} /> <span className="mono">{data.workflowId}</span>
            </h1>
            <div className="muted small">
              started {formatTime(data.createTime)}
              {data.correlationId && (
                <>
                  {' '}
                  · correlation <span className="mono">{data.correlationId}</span>
                </>
              )}{' '}
              · priority {data.priority}
              <TraceLink run={data} />
            </div>
          </div>
          <RunActions run={data} />
        </div>
        <WaitingSummary run={data} onSelect={select} />
        <RunLinks run={data} />
        <section className="card">
          <Diagram
            graph={graph}
            selectedRef={selected}
            onSelect={(box) => box.task && select(box.ref)}
            onOpenChild={openChild}
            height={560}
          />
        </section>
        <div className="tabs" role="tablist">
          {(['tasks', 'timeline', 'data', 'json'] as const).map((t) => (
            <button
              key={t}
              type="button"
              role="tab"
              aria-selected={tab === t}
              className={`tab${tab === t ? ' tab-on' : ''}`}
              onClick={() => setTab(t)}
            >
              {t === 'tasks'
                ? `Tasks (${data.tasks.length})`
                : t === 'data'
                  ? 'Input / output'
                  : t === 'json'
                    ? 'JSON'
                    : 'Timeline'}
            </button>
          ))}
        </div>
        <section className="card">
          {tab === 'tasks' && <TaskTable tasks={data.tasks} onSelect={select} />}
          {tab === 'timeline' && <Timeline run={data} onSelect={select} />}
          {tab === 'data' && (
            <div className="grid-3">
              <JsonView label="Input" value={data.input} />
              <JsonView label="Output" value={data.output} />
              <JsonView label="Variables" value={data.variables} />
            </div>
          )}
          {tab === 'json' && (
            <JsonView
              label="Run"
              value={{
                ...data,
                tasks:
                  data.tasks.length > 300 ? `${data.tasks.length} tasks (see the Tasks tab)` : data.tasks,
              }}
              maxHeight={600}
            />
          )}
        </section>
      </div>
      {selected && <TaskPanel run={data} defRef={selected} onClose={() => select(undefined)} />}
    </div>
  );
}
