import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { enc, sendJson } from '../api/client';
import { useEventExecutions, useEventHandlers } from '../api/hooks';
import type { EventHandler } from '../api/types';
import { Needs, useAccess } from '../auth';
import { DetailHead } from '../components/detail-head';
import { ErrorBox } from '../components/error';
import { JsonView } from '../components/json';
import { StatusBadge } from '../components/status';
import { formatTime } from '../format';
import { Link, useRouter } from '../router';

/**
 * Event handlers: each handler with the event it listens to and what it does; turn one on or
 * off; create or edit one as JSON (the server's checks answer on save, naming the field); and
 * what a handler did with each message it took.
 */

const TEMPLATE: EventHandler = {
  name: 'on_order_created',
  event: 'baton:orders',
  condition: '$.amount > 0',
  actions: [
    { action: 'start_workflow', start_workflow: { name: 'my_workflow', input: { orderId: '${orderId}' } } },
  ],
  active: true,
  description: 'Start a run for every order message with an amount',
};

function useInvalidateHandlers() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['event-handlers'] }),
      queryClient.invalidateQueries({ queryKey: ['event-executions'] }),
    ]);
}

function HandlerEditor({ existing }: { existing: EventHandler | undefined }) {
  const { navigate } = useRouter();
  const invalidate = useInvalidateHandlers();
  const [text, setText] = useState(JSON.stringify(existing ?? TEMPLATE, null, 2));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  let parsed: EventHandler | undefined;
  let parseError: string | undefined;
  try {
    parsed = JSON.parse(text) as EventHandler;
  } catch (err) {
    parseError = err instanceof Error ? err.message : String(err);
  }
  const save = async () => {
    if (!parsed) return;
    setBusy(true);
    setError(undefined);
    try {
      await sendJson(existing ? 'PUT' : 'POST', '/api/event', parsed);
      await invalidate();
      navigate(`/events/${enc(parsed.name)}`, { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card editor-card">
      <div className="page-head">
        <h2>{existing ? `Edit ${existing.name}` : 'New event handler'}</h2>
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy || !parsed}
          onClick={() => void save()}
        >
          {existing ? 'Save' : 'Create'}
        </button>
      </div>
      <p className="muted small">
        <span className="mono">event</span> is <span className="mono">source:queue</span> (
        <span className="mono">baton:</span>, <span className="mono">amqp:</span>,{' '}
        <span className="mono">nats:</span>); actions: start_workflow, complete_task, fail_task,
        terminate_workflow, update_workflow_variables.
      </p>
      <label htmlFor="handler-json" className="label">
        Event handler (JSON)
      </label>
      <textarea
        id="handler-json"
        className={`code editor${parseError ? ' invalid' : ''}`}
        spellCheck={false}
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      {parseError && <div className="field-error">JSON: {parseError}</div>}
      <ErrorBox error={error} />
    </section>
  );
}

function ActiveToggle({ handler }: { handler: EventHandler }) {
  const invalidate = useInvalidateHandlers();
  const [error, setError] = useState<string>();
  const active = handler.active === true;
  const toggle = async () => {
    setError(undefined);
    try {
      await sendJson('PUT', '/api/event', { ...handler, active: !active });
      await invalidate();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <>
      <button
        type="button"
        className="btn btn-small"
        onClick={() => void toggle()}
        aria-label={`${active ? 'Deactivate' : 'Activate'} ${handler.name}`}
      >
        {active ? 'Deactivate' : 'Activate'}
      </button>
      {error && <span className="field-error">{error}</span>}
    </>
  );
}

function HandlerDetail({ handler }: { handler: EventHandler }) {
  const executions = useEventExecutions(handler.name);
  const invalidate = useInvalidateHandlers();
  return (
    <section className="card" data-testid="handler-detail">
      <DetailHead
        name={handler.name}
        kind="event handler"
        editTo={`/events/${enc(handler.name)}?edit=1`}
        deletePath={`/api/event/${enc(handler.name)}`}
        listPath="/events"
        invalidate={invalidate}
      >
        <ActiveToggle handler={handler} />
      </DetailHead>
      {handler.description && <p>{handler.description}</p>}
      <JsonView value={handler} label="Handler" maxHeight={240} />
      <h3>Executions</h3>
      <table className="table" data-testid="handler-executions">
        <thead>
          <tr>
            <th>When</th>
            <th>Action</th>
            <th>Status</th>
            <th>Output</th>
          </tr>
        </thead>
        <tbody>
          {(executions.data?.results ?? []).map((x) => {
            const runId = typeof x.output?.workflowId === 'string' ? x.output.workflowId : undefined;
            return (
              <tr key={x.id}>
                <td>{formatTime(x.created)}</td>
                <td className="mono small">{x.action}</td>
                <td>
                  <StatusBadge status={x.status} small />
                </td>
                <td className="small">
                  {runId ? (
                    <Link to={`/runs/${enc(runId)}`}>{runId}</Link>
                  ) : (
                    <span className="mono">{JSON.stringify(x.output ?? {})}</span>
                  )}
                </td>
              </tr>
            );
          })}
          {executions.data?.totalHits === 0 && (
            <tr>
              <td colSpan={4} className="empty">
                No message handled yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {executions.error && <div className="alert alert-error">{executions.error.message}</div>}
    </section>
  );
}

export function EventsPage({ name }: { name?: string }) {
  const handlers = useEventHandlers();
  const { location } = useRouter();
  const { can } = useAccess();
  const list = [...(handlers.data ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  const chosen = name && name !== 'new' ? list.find((h) => h.name === name) : undefined;
  const editing = name === 'new' || (chosen !== undefined && location.search.get('edit') === '1');
  return (
    <div className="page">
      <div className="page-head">
        <h1>Event handlers</h1>
        <Needs group="event">
          <Link to="/events/new" className="btn btn-primary">
            New event handler
          </Link>
        </Needs>
      </div>
      {handlers.error && <div className="alert alert-error">{handlers.error.message}</div>}
      <div className={name ? 'split' : ''}>
        <div className="card table-card">
          <table className="table" data-testid="handlers-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Event</th>
                <th className="hide-sm">Actions</th>
                <th>State</th>
                {can('event') && <th aria-label="Turn on or off" />}
              </tr>
            </thead>
            <tbody>
              {list.map((h) => (
                <tr key={h.name} data-handler={h.name} className={h.name === name ? 'row-selected' : ''}>
                  <td>
                    <Link to={`/events/${enc(h.name)}`}>{h.name}</Link>
                    {h.description && <div className="muted small">{h.description}</div>}
                  </td>
                  <td className="mono small">{h.event}</td>
                  <td className="hide-sm mono small">{h.actions.map((a) => a.action).join(', ')}</td>
                  <td>
                    <span className={`badge badge-small ${h.active ? 'tone-ok' : 'tone-skipped'}`}>
                      {h.active ? 'active' : 'inactive'}
                    </span>
                  </td>
                  {can('event') && (
                    <td>
                      <ActiveToggle handler={h} />
                    </td>
                  )}
                </tr>
              ))}
              {list.length === 0 && !handlers.isPending && (
                <tr>
                  <td colSpan={5} className="empty">
                    No event handlers yet. A handler acts on messages of an event: starts a run, completes a
                    task…
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        {editing && can('event') && <HandlerEditor key={name} existing={chosen} />}
        {!editing && chosen && <HandlerDetail handler={chosen} />}
        {name && name !== 'new' && !chosen && !handlers.isPending && (
          <div className="alert alert-error">No event handler named {name}</div>
        )}
      </div>
    </div>
  );
}
