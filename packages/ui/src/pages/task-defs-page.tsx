import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

import { enc, sendJson } from '../api/client';
import { useTaskDefs } from '../api/hooks';
import type { TaskDef } from '../api/types';
import { Link, useRouter } from '../router';
import { useValidation, ValidatedJsonEditor } from './use-validation';

/** Task definitions: the list, and an editor that validates as you type. */

const TEMPLATE: TaskDef = {
  name: 'my_task',
  description: 'What the worker does',
  retryCount: 3,
  retryLogic: 'FIXED',
  retryDelaySeconds: 10,
  timeoutSeconds: 300,
  responseTimeoutSeconds: 60,
  timeoutPolicy: 'TIME_OUT_WF',
};

function TaskDefEditor({ name, existing }: { name: string | undefined; existing: TaskDef | undefined }) {
  const queryClient = useQueryClient();
  const { navigate } = useRouter();
  const initial = (): string => {
    if (!existing) return JSON.stringify(TEMPLATE, null, 2);
    const { createTime: _c, updateTime: _u, ...def } = existing;
    return JSON.stringify(def, null, 2);
  };
  const [text, setText] = useState(initial);
  // A different definition chosen: start from its text.
  useEffect(() => setText(initial()), [name, existing === undefined]);
  const v = useValidation<TaskDef>(text, '/api/metadata/taskdefs/validate');
  const [error, setError] = useState<string>();
  const save = async () => {
    if (!v.parsed) return;
    setError(undefined);
    try {
      if (existing && existing.name === v.parsed.name)
        await sendJson('PUT', '/api/metadata/taskdefs', v.parsed);
      else await sendJson('POST', '/api/metadata/taskdefs', [v.parsed]);
      await queryClient.invalidateQueries({ queryKey: ['taskdefs'] });
      navigate(`/taskdefs/${enc(v.parsed.name)}`, { replace: true });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <section className="card editor-card">
      <div className="page-head">
        <h2>{existing ? existing.name : 'New task definition'}</h2>
        <button type="button" className="btn btn-primary" disabled={!v.valid} onClick={() => void save()}>
          {existing ? 'Save' : 'Create'}
        </button>
      </div>
      {error && <div className="alert alert-error">{error}</div>}
      <div className="label" aria-hidden="true">
        Task definition (JSON)
      </div>
      <ValidatedJsonEditor
        id="taskdef-json"
        label="Task definition (JSON)"
        text={text}
        onChange={setText}
        v={v}
        height={360}
      />
    </section>
  );
}

export function TaskDefsPage({ name }: { name?: string }) {
  const defs = useTaskDefs();
  const list = [...(defs.data ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  const existing = name && name !== 'new' ? list.find((d) => d.name === name) : undefined;
  return (
    <div className="page">
      <div className="page-head">
        <h1>Task definitions</h1>
        <Link to="/taskdefs/new" className="btn btn-primary">
          New task definition
        </Link>
      </div>
      <div className={name ? 'split' : ''}>
        <div className="card table-card">
          <table className="table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Retries</th>
                <th className="hide-sm">Timeout</th>
                <th className="hide-sm">Response timeout</th>
                <th className="hide-sm">Limits</th>
              </tr>
            </thead>
            <tbody>
              {list.map((d) => (
                <tr key={d.name} className={d.name === name ? 'row-selected' : ''}>
                  <td>
                    <Link to={`/taskdefs/${enc(d.name)}`}>{d.name}</Link>
                    {d.description && <div className="muted small">{d.description}</div>}
                  </td>
                  <td>
                    {d.retryCount ?? 0}{' '}
                    <span className="muted small">
                      {(d.retryLogic ?? 'FIXED').toLowerCase().replace(/_/g, ' ')}
                    </span>
                  </td>
                  <td className="hide-sm">{d.timeoutSeconds ? `${d.timeoutSeconds} s` : '—'}</td>
                  <td className="hide-sm">
                    {d.responseTimeoutSeconds ? `${d.responseTimeoutSeconds} s` : '—'}
                  </td>
                  <td className="hide-sm muted small">
                    {d.concurrentExecLimit ? `${d.concurrentExecLimit} at once` : ''}
                    {d.rateLimitPerFrequency
                      ? ` ${d.rateLimitPerFrequency}/${d.rateLimitFrequencyInSeconds ?? 1}s`
                      : ''}
                  </td>
                </tr>
              ))}
              {list.length === 0 && !defs.isPending && (
                <tr>
                  <td colSpan={5} className="empty">
                    No task definitions yet.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        {name && (name === 'new' || existing) && <TaskDefEditor key={name} name={name} existing={existing} />}
        {name && name !== 'new' && !existing && !defs.isPending && (
          <div className="alert alert-error">No task definition named {name}</div>
        )}
      </div>
    </div>
  );
}
