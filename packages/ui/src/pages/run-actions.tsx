import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { enc, qs, sendForText, sendJson } from '../api/client';
import type { RerunRequest, Workflow } from '../api/types';
import { JsonEditor, parseObject } from '../components/json';
import { useRouter } from '../router';

/**
 * What can be done to a run in its state: pause and terminate while it runs, resume while
 * paused, retry / restart / rerun once it has ended. Actions that make a new run open it.
 */

type Form = 'terminate' | 'restart' | 'rerun' | undefined;

const RETRYABLE = new Set(['FAILED', 'TIMED_OUT', 'TERMINATED']);

export function RunActions({ run }: { run: Workflow }) {
  const queryClient = useQueryClient();
  const { navigate } = useRouter();
  const [form, setForm] = useState<Form>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [reason, setReason] = useState('');
  const [latest, setLatest] = useState(false);
  const [fromRef, setFromRef] = useState('');
  const [taskInput, setTaskInput] = useState('');
  const [workflowInput, setWorkflowInput] = useState('');
  const id = enc(run.workflowId);
  const open = run.status === 'RUNNING' || run.status === 'PAUSED';

  const act = async (what: () => Promise<string | void>) => {
    setBusy(true);
    setError(undefined);
    try {
      const newRun = await what();
      setForm(undefined);
      await queryClient.invalidateQueries({ queryKey: ['run', run.workflowId] });
      await queryClient.invalidateQueries({ queryKey: ['runs'] });
      if (typeof newRun === 'string' && newRun !== '') navigate(`/runs/${enc(newRun)}`);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const refs = [...new Set(run.tasks.map((t) => t.referenceTaskName))];
  const taskInputParsed = parseObject(taskInput);
  const workflowInputParsed = parseObject(workflowInput);

  return (
    <div className="actions">
      <div className="action-buttons" role="group" aria-label="Run actions">
        {run.status === 'RUNNING' && (
          <button
            type="button"
            className="btn"
            disabled={busy}
            onClick={() => void act(() => sendJson('PUT', `/api/workflow/${id}/pause`))}
          >
            Pause
          </button>
        )}
        {run.status === 'PAUSED' && (
          <button
            type="button"
            className="btn"
            disabled={busy}
            onClick={() => void act(() => sendJson('PUT', `/api/workflow/${id}/resume`))}
          >
            Resume
          </button>
        )}
        {open && (
          <button
            type="button"
            className="btn btn-danger"
            disabled={busy}
            onClick={() => setForm(form === 'terminate' ? undefined : 'terminate')}
          >
            Terminate…
          </button>
        )}
        {RETRYABLE.has(run.status) && (
          <button
            type="button"
            className="btn btn-primary"
            disabled={busy}
            onClick={() => void act(() => sendForText('POST', `/api/workflow/${id}/retry`))}
          >
            Retry
          </button>
        )}
        {!open && (
          <>
            <button
              type="button"
              className="btn"
              disabled={busy}
              onClick={() => setForm(form === 'restart' ? undefined : 'restart')}
            >
              Restart…
            </button>
            <button
              type="button"
              className="btn"
              disabled={busy}
              onClick={() => setForm(form === 'rerun' ? undefined : 'rerun')}
            >
              Rerun from task…
            </button>
          </>
        )}
      </div>
      {error && (
        <div className="alert alert-error" role="alert">
          {error}
        </div>
      )}
      {form === 'terminate' && (
        <form
          className="card action-form"
          onSubmit={(e) => {
            e.preventDefault();
            void act(() => sendJson('POST', `/api/workflow/${id}/terminate${qs({ reason })}`));
          }}
        >
          <div className="field">
            <label htmlFor="terminate-reason">Reason (kept on the run)</label>
            <input
              id="terminate-reason"
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              autoFocus
            />
          </div>
          <button type="submit" className="btn btn-danger" disabled={busy}>
            Terminate run
          </button>
        </form>
      )}
      {form === 'restart' && (
        <form
          className="card action-form"
          onSubmit={(e) => {
            e.preventDefault();
            void act(() =>
              sendForText('POST', `/api/workflow/${id}/restart${qs({ useLatestDefinitions: latest })}`),
            );
          }}
        >
          <fieldset>
            <legend>Restart with the same input, using</legend>
            <label className="check">
              <input type="radio" name="def" checked={!latest} onChange={() => setLatest(false)} /> the
              definition it ran with (v
              {run.workflowVersion})
            </label>
            <label className="check">
              <input type="radio" name="def" checked={latest} onChange={() => setLatest(true)} /> the latest
              definition
            </label>
          </fieldset>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            Restart
          </button>
        </form>
      )}
      {form === 'rerun' && (
        <form
          className="card action-form"
          onSubmit={(e) => {
            e.preventDefault();
            const body: RerunRequest = { reRunFromTaskRefName: fromRef };
            if (taskInput.trim()) body.taskInput = taskInputParsed.value;
            if (workflowInput.trim()) body.workflowInput = workflowInputParsed.value;
            void act(() => sendForText('POST', `/api/workflow/${id}/rerun`, body));
          }}
        >
          <div className="field">
            <label htmlFor="rerun-from">Rerun from task</label>
            <select id="rerun-from" value={fromRef} onChange={(e) => setFromRef(e.target.value)} required>
              <option value="">choose a task…</option>
              {refs.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </div>
          <JsonEditor
            id="rerun-task-input"
            label="New task input (optional JSON)"
            value={taskInput}
            onChange={setTaskInput}
            rows={3}
          />
          <JsonEditor
            id="rerun-wf-input"
            label="New run input (optional JSON)"
            value={workflowInput}
            onChange={setWorkflowInput}
            rows={3}
          />
          <button
            type="submit"
            className="btn btn-primary"
            disabled={
              busy ||
              fromRef === '' ||
              taskInputParsed.error !== undefined ||
              workflowInputParsed.error !== undefined
            }
          >
            Rerun
          </button>
        </form>
      )}
    </div>
  );
}
