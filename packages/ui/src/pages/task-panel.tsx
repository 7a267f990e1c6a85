import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';

import { enc, getJson, sendForText, sendJson } from '../api/client';
import { Needs } from '../auth';
import { usePollData, useTaskLogs } from '../api/hooks';
import type { StoredTaskDef, TaskRecord, Workflow } from '../api/types';
import { JsonEditor, JsonView, parseObject } from '../components/json';
import { StatusBadge } from '../components/status';
import { formatDuration, formatTime, relative, waitText } from '../format';
import { Link } from '../router';
import { isLlmTask, LlmConversation } from './llm-conversation';

/**
 * One task of a run, in a side panel: why it waits, its input and output, logs, every attempt,
 * the poll data of its queue; and, for a task completed from outside (HUMAN, WAIT), the form
 * that completes it. Any open task can be skipped.
 */

const TERMINAL = new Set([
  'COMPLETED',
  'COMPLETED_WITH_ERRORS',
  'FAILED',
  'FAILED_WITH_TERMINAL_ERROR',
  'TIMED_OUT',
  'CANCELED',
  'SKIPPED',
]);

/** A loop's body task may have run a thousand times: the panel lists the latest ones. */
const EXECUTIONS_SHOWN = 100;

function instructionOf(task: TaskRecord): string | undefined {
  for (const key of ['instructions', 'instruction', 'message', 'prompt']) {
    const v = task.inputData[key];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  const description = task.workflowTask.description;
  return typeof description === 'string' && description.trim() !== '' ? description : undefined;
}

/** A JSON value of a schema's shape: each property with an empty value of its type. */
function skeletonOf(schema: unknown, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 4) return null;
  const s = schema as {
    type?: unknown;
    properties?: unknown;
    default?: unknown;
    examples?: unknown;
    enum?: unknown;
  };
  if (s.default !== undefined) return s.default;
  const first = (list: unknown): unknown => (Array.isArray(list) ? (list as unknown[])[0] : undefined);
  if (first(s.examples) !== undefined) return first(s.examples);
  if (first(s.enum) !== undefined) return first(s.enum);
  const type = Array.isArray(s.type) ? first(s.type) : s.type;
  if (type === 'object' || (type === undefined && typeof s.properties === 'object')) {
    const out: Record<string, unknown> = {};
    if (typeof s.properties === 'object' && s.properties !== null)
      for (const [k, v] of Object.entries(s.properties)) out[k] = skeletonOf(v, depth + 1);
    return out;
  }
  if (type === 'string') return '';
  if (type === 'number' || type === 'integer') return 0;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  return null;
}

/**
 * The output a task is expected to give, when its definition says: the task definition's
 * outputSchema (embedded in the workflow or registered), else its outputKeys.
 */
function useExpectedOutput(task: TaskRecord): { shape: string; source: string } | undefined {
  const embedded = task.workflowTask.taskDefinition;
  const registered = useQuery({
    queryKey: ['taskdef', task.taskDefName],
    queryFn: () => getJson<StoredTaskDef>(`/api/metadata/taskdefs/${enc(task.taskDefName)}`),
    enabled: embedded === undefined && task.taskDefName !== '',
    retry: false,
  });
  const def = embedded ?? registered.data;
  if (!def) return undefined;
  if (def.outputSchema && typeof def.outputSchema === 'object') {
    return {
      shape: JSON.stringify(skeletonOf(def.outputSchema), null, 2),
      source: `the outputSchema of task definition ${def.name}`,
    };
  }
  if (Array.isArray(def.outputKeys) && def.outputKeys.length > 0) {
    const shape = Object.fromEntries(def.outputKeys.map((k) => [k, null]));
    return { shape: JSON.stringify(shape, null, 2), source: `the outputKeys of task definition ${def.name}` };
  }
  return undefined;
}

function CompleteForm({ run, task }: { run: Workflow; task: TaskRecord }) {
  const queryClient = useQueryClient();
  // Starts empty: what a person submits is what they typed, never a guess made for them.
  const [output, setOutput] = useState('');
  const expected = useExpectedOutput(task);
  const [status, setStatus] = useState<'COMPLETED' | 'FAILED'>('COMPLETED');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string }>();
  const parsed = parseObject(output);
  const instruction = instructionOf(task);
  return (
    <form
      className="card complete-form"
      aria-label="Complete this task"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        sendForText(
          'POST',
          `/api/tasks/${enc(run.workflowId)}/${enc(task.referenceTaskName)}/${status}`,
          parsed.value ?? {},
        )
          .then(
            () => setResult({ ok: true, text: `Task ${status.toLowerCase()}.` }),
            (err: unknown) =>
              setResult({ ok: false, text: err instanceof Error ? err.message : String(err) }),
          )
          .finally(() => {
            setBusy(false);
            void queryClient.invalidateQueries({ queryKey: ['run', run.workflowId] });
          });
      }}
    >
      <h3>Complete this {task.taskType === 'HUMAN' ? 'human task' : 'wait'}</h3>
      {instruction && <p className="instruction">{instruction}</p>}
      {task.waitingFor?.assignee && <p className="muted">Assigned to {task.waitingFor.assignee}</p>}
      {expected && (
        <div className="expected" data-testid="expected-output">
          <div className="small muted">Expected output, from {expected.source}:</div>
          <pre className="json">{expected.shape}</pre>
          <button type="button" className="btn btn-small" onClick={() => setOutput(expected.shape)}>
            Start from this shape
          </button>
        </div>
      )}
      <JsonEditor
        id="complete-output"
        label="Output (JSON, merged into the task's output; empty for none)"
        value={output}
        onChange={setOutput}
        rows={5}
        placeholder={expected?.shape ?? '{ "field": "value" }'}
      />
      <div className="row">
        <select
          aria-label="Outcome"
          value={status}
          onChange={(e) => setStatus(e.target.value === 'FAILED' ? 'FAILED' : 'COMPLETED')}
        >
          <option value="COMPLETED">Complete</option>
          <option value="FAILED">Fail</option>
        </select>
        <button type="submit" className="btn btn-primary" disabled={busy || parsed.error !== undefined}>
          Submit
        </button>
      </div>
      {result && <div className={`alert ${result.ok ? 'alert-ok' : 'alert-error'}`}>{result.text}</div>}
    </form>
  );
}

function SkipForm({ run, task }: { run: Workflow; task: TaskRecord }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [output, setOutput] = useState('{}');
  const [error, setError] = useState<string>();
  const parsed = parseObject(output);
  const baseRef = task.workflowTask.taskReferenceName;
  if (!open) {
    return (
      <button type="button" className="btn btn-small" onClick={() => setOpen(true)}>
        Skip this task…
      </button>
    );
  }
  return (
    <form
      className="card"
      onSubmit={(e) => {
        e.preventDefault();
        sendJson(
          'PUT',
          `/api/workflow/${enc(run.workflowId)}/skiptask/${enc(task.referenceTaskName || baseRef)}`,
          { taskOutput: parsed.value ?? {} },
        ).then(
          () => {
            setOpen(false);
            void queryClient.invalidateQueries({ queryKey: ['run', run.workflowId] });
          },
          (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
        );
      }}
    >
      <JsonEditor
        id="skip-output"
        label="Output the skipped task gives"
        value={output}
        onChange={setOutput}
        rows={3}
      />
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={parsed.error !== undefined}>
          Skip
        </button>
        <button type="button" className="btn" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      {error && <div className="alert alert-error">{error}</div>}
    </form>
  );
}

export function TaskPanel({ run, defRef, onClose }: { run: Workflow; defRef: string; onClose: () => void }) {
  const executions = useMemo(
    () =>
      run.tasks
        .filter((t) => t.workflowTask.taskReferenceName === defRef || t.referenceTaskName === defRef)
        .sort((a, b) => b.seq - a.seq),
    [run.tasks, defRef],
  );
  const [chosenId, setChosenId] = useState<string | undefined>();
  useEffect(() => setChosenId(undefined), [defRef]);
  const task = executions.find((t) => t.taskId === chosenId) ?? executions[0];
  const logs = useTaskLogs(task?.taskId);
  const isWorker = task?.queueName !== undefined;
  const polls = usePollData(isWorker ? task?.taskType : undefined);

  return (
    <aside className="panel" aria-label={`Task ${defRef}`} data-testid="task-panel">
      <div className="panel-head">
        <div>
          <div className="muted small">task</div>
          <h2 className="mono">{defRef}</h2>
        </div>
        <button type="button" className="btn btn-small" onClick={onClose} aria-label="Close the task panel">
          ✕
        </button>
      </div>
      {!task && <p className="muted">This task has not been reached in this run.</p>}
      {task && (
        <>
          <div className="panel-status">
            <StatusBadge status={task.status} /> <span className="muted">{task.taskType}</span>
            {task.iteration > 0 && <span className="muted"> · iteration {task.iteration}</span>}
            {task.retryCount > 0 && <span className="muted"> · attempt {task.retryCount + 1}</span>}
          </div>
          {task.waitingFor && (
            <div className="alert alert-wait" data-testid="task-waiting">
              {waitText(task.waitingFor.message, task.waitingFor.until)}
            </div>
          )}
          {task.reasonForIncompletion && (
            <div className="alert alert-error">{task.reasonForIncompletion}</div>
          )}
          {task.subWorkflowId && (
            <p>
              Child run: <Link to={`/runs/${enc(task.subWorkflowId)}`}>{task.subWorkflowId}</Link>
            </p>
          )}
          {!TERMINAL.has(task.status) &&
            (task.taskType === 'HUMAN' || task.taskType === 'WAIT') &&
            task.waitingFor?.reason !== 'timer' && (
              <Needs group="task" fallback={instructionOf(task)}>
                <CompleteForm run={run} task={task} />
              </Needs>
            )}
          {!TERMINAL.has(task.status) && (run.status === 'RUNNING' || run.status === 'PAUSED') && (
            <Needs group="workflow" short>
              <SkipForm run={run} task={task} />
            </Needs>
          )}
          <dl className="facts">
            <dt>Task id</dt>
            <dd className="mono">{task.taskId}</dd>
            <dt>Scheduled</dt>
            <dd>{formatTime(task.scheduledTime)}</dd>
            <dt>Started</dt>
            <dd>{formatTime(task.startTime)}</dd>
            <dt>Ended</dt>
            <dd>{formatTime(task.endTime)}</dd>
            {task.endTime > 0 && task.startTime > 0 && (
              <>
                <dt>Took</dt>
                <dd>{formatDuration(task.endTime - task.startTime)}</dd>
              </>
            )}
            {task.workerId && (
              <>
                <dt>Worker</dt>
                <dd className="mono">{task.workerId}</dd>
              </>
            )}
            {task.queueName && (
              <>
                <dt>Queue</dt>
                <dd className="mono">{task.queueName}</dd>
              </>
            )}
            <dt>Polls</dt>
            <dd>{task.pollCount}</dd>
          </dl>
          {isLlmTask(task) && <LlmConversation task={task} />}
          <JsonView label="Input" value={task.inputData} />
          <JsonView label="Output" value={task.outputData} />
          <section>
            <h3>Logs</h3>
            {(logs.data ?? []).length === 0 ? (
              <div className="muted small">no log lines</div>
            ) : (
              <ol className="logs">
                {(logs.data ?? []).map((l, i) => (
                  <li key={i}>
                    <span className="muted">{formatTime(l.createdTime)}</span> {l.log}
                  </li>
                ))}
              </ol>
            )}
          </section>
          <section>
            <h3>Executions ({executions.length})</h3>
            <table className="table compact">
              <thead>
                <tr>
                  <th>#</th>
                  <th>Status</th>
                  <th>Started</th>
                  <th>Took</th>
                </tr>
              </thead>
              <tbody>
                {executions.slice(0, EXECUTIONS_SHOWN).map((t) => (
                  <tr key={t.taskId} className={t.taskId === task.taskId ? 'row-selected' : ''}>
                    <td>
                      <button type="button" className="btn-link" onClick={() => setChosenId(t.taskId)}>
                        {t.iteration > 0 ? `it ${t.iteration} · ` : ''}try {t.retryCount + 1}
                      </button>
                    </td>
                    <td>
                      <StatusBadge status={t.status} small />
                    </td>
                    <td className="nowrap">{formatTime(t.startTime || t.scheduledTime)}</td>
                    <td>
                      {t.endTime > 0 && t.startTime > 0 ? formatDuration(t.endTime - t.startTime) : '—'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {executions.length > EXECUTIONS_SHOWN && (
              <div className="muted small">
                the latest {EXECUTIONS_SHOWN} of {executions.length}; the Tasks tab lists them all
              </div>
            )}
          </section>
          {isWorker && (
            <section>
              <h3>Poll data ({task.taskType})</h3>
              {(polls.data ?? []).length === 0 ? (
                <div className="muted small">no worker has polled this type</div>
              ) : (
                <table className="table compact">
                  <tbody>
                    {(polls.data ?? []).map((p) => (
                      <tr key={`${p.queueName}/${p.workerId}`}>
                        <td className="mono">{p.workerId}</td>
                        <td>{relative(p.lastPollTime)}</td>
                        <td>
                          {p.active ? (
                            <span className="badge tone-ok badge-small">active</span>
                          ) : (
                            <span className="badge tone-idle badge-small">idle</span>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
          )}
        </>
      )}
    </aside>
  );
}
