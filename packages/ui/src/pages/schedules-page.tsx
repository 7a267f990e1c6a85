import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';

import { enc, qs, sendJson } from '../api/client';
import { useDefinitions, useNextRuns, useScheduleExecutions, useSchedules } from '../api/hooks';
import type { WorkflowSchedule } from '../api/types';
import { Needs, useAccess } from '../auth';
import { DetailHead } from '../components/detail-head';
import { ErrorBox } from '../components/error';
import { JsonEditor, parseObject } from '../components/json';
import { StatusBadge } from '../components/status';
import { formatTime, relative } from '../format';
import { Link, useRouter } from '../router';

/**
 * Schedules: every schedule with its next run, paused or not and why; pause and resume; a form
 * that creates or edits one, previewing the next run times of the cron expression as it is
 * typed; and a schedule's executions (each slot: the run it started, or why none).
 */

function useInvalidateSchedules() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['schedules'] }),
      queryClient.invalidateQueries({ queryKey: ['schedule-executions'] }),
    ]);
}

function NextRuns({ cron, zone }: { cron: string; zone: string }) {
  const next = useNextRuns(cron, zone || 'UTC');
  if (cron.trim() === '') return null;
  if (next.error) return <div className="field-error">{next.error.message}</div>;
  return (
    <div className="muted small" data-testid="next-runs">
      Next runs: {(next.data ?? []).map((t) => formatTime(t)).join(' · ') || '—'}
    </div>
  );
}

function ScheduleForm({ existing }: { existing: WorkflowSchedule | undefined }) {
  const { navigate } = useRouter();
  const invalidate = useInvalidateSchedules();
  const defs = useDefinitions();
  const workflows = useMemo(() => [...new Set((defs.data ?? []).map((d) => d.name))].sort(), [defs.data]);
  const start = existing?.startWorkflowRequest;
  const [name, setName] = useState(existing?.name ?? '');
  const [cron, setCron] = useState(existing?.cronExpression ?? '0 0 * * * *');
  const [zone, setZone] = useState(existing?.zoneId ?? 'UTC');
  const [workflow, setWorkflow] = useState(start?.name ?? '');
  const [version, setVersion] = useState(start?.version === undefined ? '' : String(start.version));
  const [input, setInput] = useState(JSON.stringify(start?.input ?? {}, null, 2));
  const [correlationId, setCorrelationId] = useState(start?.correlationId ?? '');
  const [description, setDescription] = useState(existing?.description ?? '');
  const [catchUp, setCatchUp] = useState(existing?.runCatchupScheduleInstances === true);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const inputParsed = parseObject(input);

  const save = async () => {
    setBusy(true);
    setError(undefined);
    const {
      nextRunTime: _n,
      createTime: _c,
      updatedTime: _u,
      ...kept
    } = existing ?? ({} as WorkflowSchedule);
    const body: WorkflowSchedule = {
      ...kept,
      name: name.trim(),
      cronExpression: cron.trim(),
      zoneId: zone.trim() || 'UTC',
      startWorkflowRequest: {
        ...start,
        name: workflow,
        input: inputParsed.value ?? {},
        ...(version.trim() !== '' && { version: Number(version) }),
        ...(correlationId.trim() !== '' && { correlationId: correlationId.trim() }),
      },
      runCatchupScheduleInstances: catchUp,
      ...(description.trim() !== '' && { description: description.trim() }),
    };
    if (version.trim() === '') delete body.startWorkflowRequest.version;
    try {
      await sendJson(existing ? 'PUT' : 'POST', '/api/schedule', body);
      await invalidate();
      navigate(`/schedules/${enc(body.name)}`, { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="card"
      aria-label={existing ? `Edit schedule ${existing.name}` : 'New schedule'}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2>{existing ? `Edit ${existing.name}` : 'New schedule'}</h2>
      <div className="field">
        <label htmlFor="schedule-name">Name</label>
        <input
          id="schedule-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          readOnly={existing !== undefined}
        />
      </div>
      <div className="row">
        <div className="field grow">
          <label htmlFor="schedule-cron">Cron expression (second minute hour day month weekday)</label>
          <input id="schedule-cron" className="mono" value={cron} onChange={(e) => setCron(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="schedule-zone">Time zone</label>
          <input id="schedule-zone" value={zone} onChange={(e) => setZone(e.target.value)} />
        </div>
      </div>
      <NextRuns cron={cron} zone={zone} />
      <div className="row">
        <div className="field grow">
          <label htmlFor="schedule-workflow">Workflow to start</label>
          <input
            id="schedule-workflow"
            list="schedule-workflows"
            value={workflow}
            onChange={(e) => setWorkflow(e.target.value)}
          />
          <datalist id="schedule-workflows">
            {workflows.map((w) => (
              <option key={w} value={w} />
            ))}
          </datalist>
        </div>
        <div className="field">
          <label htmlFor="schedule-version">Version (empty: latest)</label>
          <input
            id="schedule-version"
            inputMode="numeric"
            value={version}
            onChange={(e) => setVersion(e.target.value)}
          />
        </div>
      </div>
      <JsonEditor id="schedule-input" label="Input (JSON)" value={input} onChange={setInput} rows={4} />
      <div className="field">
        <label htmlFor="schedule-correlation">Correlation id (optional)</label>
        <input
          id="schedule-correlation"
          value={correlationId}
          onChange={(e) => setCorrelationId(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="schedule-description">Description</label>
        <input
          id="schedule-description"
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
      </div>
      <label className="check">
        <input type="checkbox" checked={catchUp} onChange={(e) => setCatchUp(e.target.checked)} /> start the
        slots missed while no node ran (catch-up)
      </label>
      <ErrorBox error={error} />
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={busy || inputParsed.error !== undefined}>
          {existing ? 'Save' : 'Create'}
        </button>
        <Link to={existing ? `/schedules/${enc(existing.name)}` : '/schedules'} className="btn">
          Cancel
        </Link>
      </div>
    </form>
  );
}

function PauseButton({ schedule }: { schedule: WorkflowSchedule }) {
  const invalidate = useInvalidateSchedules();
  const [error, setError] = useState<string>();
  const paused = schedule.paused === true;
  const toggle = async () => {
    setError(undefined);
    try {
      const reason = paused ? undefined : 'paused from the web UI';
      await sendJson(
        'PUT',
        `/api/schedule/${enc(schedule.name)}/${paused ? 'resume' : 'pause'}${qs({ reason })}`,
      );
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
        aria-label={`${paused ? 'Resume' : 'Pause'} ${schedule.name}`}
      >
        {paused ? 'Resume' : 'Pause'}
      </button>
      {error && <span className="field-error">{error}</span>}
    </>
  );
}

function ScheduleDetail({ schedule }: { schedule: WorkflowSchedule }) {
  const executions = useScheduleExecutions(schedule.name);
  const { can } = useAccess();
  const invalidate = useInvalidateSchedules();
  return (
    <section className="card" data-testid="schedule-detail">
      <DetailHead
        name={schedule.name}
        kind="schedule"
        editTo={`/schedules/${enc(schedule.name)}?edit=1`}
        deletePath={`/api/schedule/${enc(schedule.name)}`}
        listPath="/schedules"
        invalidate={invalidate}
      >
        <PauseButton schedule={schedule} />
      </DetailHead>
      {schedule.description && <p>{schedule.description}</p>}
      <p>
        Starts{' '}
        <Link to={`/definitions/${enc(schedule.startWorkflowRequest.name)}`}>
          {schedule.startWorkflowRequest.name}
        </Link>
        {schedule.startWorkflowRequest.version !== undefined &&
          ` version ${schedule.startWorkflowRequest.version}`}{' '}
        at <span className="mono">{schedule.cronExpression}</span> ({schedule.zoneId ?? 'UTC'}).{' '}
        {schedule.paused ? (
          <strong>Paused{schedule.pausedReason ? `: ${schedule.pausedReason}` : ''}.</strong>
        ) : (
          <>
            Next run{' '}
            {schedule.nextRunTime
              ? `${formatTime(schedule.nextRunTime)} (${relative(schedule.nextRunTime)})`
              : 'never'}
            .
          </>
        )}
      </p>
      {!schedule.paused && <NextRuns cron={schedule.cronExpression} zone={schedule.zoneId ?? 'UTC'} />}
      <h3>Executions</h3>
      <table className="table" data-testid="schedule-executions">
        <thead>
          <tr>
            <th>Slot</th>
            <th>Started</th>
            <th>State</th>
            <th>Run</th>
          </tr>
        </thead>
        <tbody>
          {(executions.data?.results ?? []).map((x) => (
            <tr key={x.executionId}>
              <td>{formatTime(x.scheduledTime)}</td>
              <td>{formatTime(x.executionTime)}</td>
              <td>
                <StatusBadge status={x.state} small />
              </td>
              <td>
                {x.workflowId ? (
                  <Link to={`/runs/${enc(x.workflowId)}`}>{x.workflowId}</Link>
                ) : (
                  (x.reason ?? '—')
                )}
              </td>
            </tr>
          ))}
          {executions.data?.totalHits === 0 && (
            <tr>
              <td colSpan={4} className="empty">
                No slot has come yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {executions.error && <div className="alert alert-error">{executions.error.message}</div>}
      {!can('workflow') && <p className="muted small">Opening a run needs the workflow role.</p>}
    </section>
  );
}

export function SchedulesPage({ name }: { name?: string }) {
  const schedules = useSchedules();
  const { location } = useRouter();
  const { can } = useAccess();
  const list = [...(schedules.data ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  const chosen = name && name !== 'new' ? list.find((s) => s.name === name) : undefined;
  const editing = name === 'new' || (chosen !== undefined && location.search.get('edit') === '1');
  return (
    <div className="page">
      <div className="page-head">
        <h1>Schedules</h1>
        <Needs group="event">
          <Link to="/schedules/new" className="btn btn-primary">
            New schedule
          </Link>
        </Needs>
      </div>
      {schedules.error && <div className="alert alert-error">{schedules.error.message}</div>}
      <div className={name ? 'split' : ''}>
        <div className="card table-card">
          <table className="table" data-testid="schedules-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Workflow</th>
                <th className="hide-sm">Cron</th>
                <th>Next run</th>
                {can('event') && <th aria-label="Actions" />}
              </tr>
            </thead>
            <tbody>
              {list.map((s) => (
                <tr key={s.name} data-schedule={s.name} className={s.name === name ? 'row-selected' : ''}>
                  <td>
                    <Link to={`/schedules/${enc(s.name)}`}>{s.name}</Link>
                    {s.description && <div className="muted small">{s.description}</div>}
                  </td>
                  <td>{s.startWorkflowRequest.name}</td>
                  <td className="hide-sm mono small">
                    {s.cronExpression} <span className="muted">{s.zoneId ?? 'UTC'}</span>
                  </td>
                  <td>
                    {s.paused ? (
                      <span title={s.pausedReason}>
                        <StatusBadge status="PAUSED" small />
                      </span>
                    ) : s.nextRunTime ? (
                      <span title={formatTime(s.nextRunTime)}>{relative(s.nextRunTime)}</span>
                    ) : (
                      '—'
                    )}
                  </td>
                  {can('event') && (
                    <td>
                      <PauseButton schedule={s} />
                    </td>
                  )}
                </tr>
              ))}
              {list.length === 0 && !schedules.isPending && (
                <tr>
                  <td colSpan={5} className="empty">
                    No schedules yet. A schedule starts a workflow at the times of a cron expression.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        {editing && can('event') && <ScheduleForm key={name} existing={chosen} />}
        {!editing && chosen && <ScheduleDetail schedule={chosen} />}
        {name && name !== 'new' && !chosen && !schedules.isPending && (
          <div className="alert alert-error">No schedule named {name}</div>
        )}
      </div>
    </div>
  );
}
