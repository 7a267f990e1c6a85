import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { enc, sendJson } from '../api/client';
import { useAllPollData, useQueueSizes, useTaskDefs } from '../api/hooks';
import type { PollData, RequeueAnswer } from '../api/types';
import { Needs } from '../auth';
import { formatTime, relative } from '../format';
import { Link } from '../router';

/**
 * Queues and workers: each worker queue's counts, who polls it and when it last did, a warning
 * where work waits and no worker is there, and the way to send dead letters again.
 */

/** The task type a queue serves: `{type}`, `{domain}-{type}`, each with an optional `-high`. */
function typeOf(queue: string, types: readonly string[]): string {
  const base = queue.endsWith('-high') ? queue.slice(0, -'-high'.length) : queue;
  if (types.includes(base)) return base;
  const byDomain = types.filter((t) => base.endsWith(`-${t}`)).sort((a, b) => b.length - a.length)[0];
  return byDomain ?? base;
}

export function QueuesPage() {
  const sizes = useQueueSizes();
  const polls = useAllPollData();
  const taskDefs = useTaskDefs();
  const queryClient = useQueryClient();
  const [requeue, setRequeue] = useState<{ type: string; answer?: RequeueAnswer; error?: string }>();
  const types = (taskDefs.data ?? []).map((d) => d.name);
  const rows = Object.entries(sizes.data ?? {}).sort((a, b) => a[0].localeCompare(b[0]));
  const workersOf = (queue: string): PollData[] =>
    (polls.data ?? []).filter((p) => p.queueName === queue || `${p.queueName}-high` === queue);
  const starving = rows.filter(([, c]) => c.waiting > 0 && c.activeWorkers === 0);
  const [showIdle, setShowIdle] = useState(true);

  const doRequeue = async (type: string) => {
    setRequeue({ type });
    try {
      const answer = await sendJson<RequeueAnswer>('POST', `/api/admin/requeue/${enc(type)}`);
      setRequeue({ type, answer });
      await queryClient.invalidateQueries({ queryKey: ['queues'] });
    } catch (err) {
      setRequeue({ type, error: err instanceof Error ? err.message : String(err) });
    }
  };

  return (
    <div className="page">
      <div className="page-head">
        <h1>Queues and workers</h1>
        <label className="toggle">
          <input type="checkbox" checked={showIdle} onChange={(e) => setShowIdle(e.target.checked)} /> show
          empty queues
        </label>
      </div>
      {starving.length > 0 && (
        <div className="alert alert-warn" role="alert" data-testid="no-worker-warning">
          <strong>No worker:</strong> work waits on {starving.map(([q]) => q).join(', ')} and no worker has
          polled {starving.length > 1 ? 'them' : 'it'} in the last 10 s. Start a worker for{' '}
          {[...new Set(starving.map(([q]) => typeOf(q, types)))].join(', ')}.
        </div>
      )}
      {requeue?.answer && (
        <div className="alert alert-ok" role="status" data-testid="requeue-result">
          {requeue.type}: {requeue.answer.requeued.length} dead letter(s) requeued
          {requeue.answer.skipped.length > 0 &&
            `, ${requeue.answer.skipped.length} skipped (${requeue.answer.skipped.map((s) => s.reason).join('; ')})`}
          .
          {requeue.answer.requeued.slice(0, 10).map((r) => (
            <div key={r.taskId} className="small">
              run <Link to={`/runs/${enc(r.workflowId)}`}>{r.workflowId}</Link> —{' '}
              {typeof r.taskRef === 'string' ? r.taskRef : r.taskId}
            </div>
          ))}
        </div>
      )}
      {requeue?.error && <div className="alert alert-error">{requeue.error}</div>}
      {sizes.error && <div className="alert alert-error">{sizes.error.message}</div>}
      <div className="card table-card">
        <table className="table" data-testid="queues-table">
          <thead>
            <tr>
              <th>Queue</th>
              <th className="num">Waiting</th>
              <th className="num">Scheduled</th>
              <th className="num">In flight</th>
              <th className="num">Dead letters</th>
              <th>Workers</th>
              <th className="hide-sm">Last poll</th>
            </tr>
          </thead>
          <tbody>
            {rows
              .filter(
                ([, c]) =>
                  showIdle ||
                  c.waiting + c.scheduled + c.inFlight + c.deadLettered > 0 ||
                  c.activeWorkers > 0,
              )
              .map(([queue, c]) => {
                const workers = workersOf(queue);
                const noWorker = c.waiting > 0 && c.activeWorkers === 0;
                return (
                  <tr key={queue} data-queue={queue} className={noWorker ? 'row-warn' : ''}>
                    <td className="mono">{queue}</td>
                    <td className="num">{c.waiting}</td>
                    <td className="num">{c.scheduled}</td>
                    <td className="num">{c.inFlight}</td>
                    <td className="num">
                      {c.deadLettered > 0 ? (
                        <>
                          <span className="badge tone-failed badge-small">{c.deadLettered}</span>{' '}
                          <Needs group="admin" short>
                            <button
                              type="button"
                              className="btn btn-small"
                              onClick={() => void doRequeue(typeOf(queue, types))}
                            >
                              Requeue
                            </button>
                          </Needs>
                        </>
                      ) : (
                        0
                      )}
                    </td>
                    <td>
                      {c.activeWorkers > 0 ? (
                        <span className="badge tone-ok badge-small">{c.activeWorkers} live</span>
                      ) : (
                        <span className={`badge badge-small ${noWorker ? 'tone-warn' : 'tone-idle'}`}>
                          {noWorker ? 'no worker' : 'none live'}
                        </span>
                      )}
                      {workers.length > 0 && (
                        <div className="small muted">
                          {workers.slice(0, 4).map((w) => (
                            <div key={w.workerId} title={formatTime(w.lastPollTime)}>
                              <span className="mono">{w.workerId}</span> {relative(w.lastPollTime)}
                            </div>
                          ))}
                          {workers.length > 4 && <div>…{workers.length - 4} more</div>}
                        </div>
                      )}
                    </td>
                    <td className="hide-sm nowrap">
                      {c.lastPollTime ? relative(c.lastPollTime) : 'never'}
                      {c.noActiveWorkerSince !== undefined && (
                        <div className="small muted">none live since {formatTime(c.noActiveWorkerSince)}</div>
                      )}
                    </td>
                  </tr>
                );
              })}
            {rows.length === 0 && !sizes.isPending && (
              <tr>
                <td colSpan={7} className="empty">
                  No worker queues yet: register a task definition to make one.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}
