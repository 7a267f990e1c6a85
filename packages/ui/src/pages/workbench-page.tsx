import { useEffect, useMemo, useState } from 'react';

import { enc, sendForText, sendJson } from '../api/client';
import { useDefinition, useDefinitions } from '../api/hooks';
import type { Workflow } from '../api/types';
import { JsonEditor, JsonView, parseObject } from '../components/json';
import { StatusBadge } from '../components/status';
import { Diagram } from '../diagram/diagram';
import { buildGraph } from '../diagram/graph';
import { useRouter } from '../router';

/**
 * Start a run from a form, or try a definition in the test workbench: the server runs it on a
 * throwaway store with mocked task results and answers the run, drawn here on the diagram with
 * the mocked boxes marked.
 */

const MOCK_HINT = '{\n  "task_ref": [{ "status": "COMPLETED", "output": { "ok": true } }]\n}';

export function WorkbenchPage() {
  const { location, navigate } = useRouter();
  const defs = useDefinitions();
  const names = useMemo(() => [...new Set((defs.data ?? []).map((d) => d.name))].sort(), [defs.data]);
  const [name, setName] = useState(location.search.get('name') ?? '');
  const versionParam = location.search.get('version');
  const [version, setVersion] = useState(versionParam ?? '');
  const def = useDefinition(name || undefined, version ? Number(version) : undefined);
  const [input, setInput] = useState('{}');
  const [correlationId, setCorrelationId] = useState('');
  // Sent as typed: a priority out of range is refused by the server, whose message is shown.
  const [priority, setPriority] = useState('0');
  const [mocks, setMocks] = useState(MOCK_HINT);
  // Shown under the button that met it: a refused start next to "Start run", not below the
  // test workbench where it reads as the test's.
  const [error, setError] = useState<{ from: 'start' | 'test'; message: string }>();
  const [busy, setBusy] = useState(false);
  const [test, setTest] = useState<Workflow>();
  useEffect(() => {
    if (!name && names[0]) setName(names[0]);
  }, [name, names]);
  useEffect(() => setTest(undefined), [name, version]);

  const inputParsed = parseObject(input);
  const mocksParsed = parseObject(mocks);
  const versions = (defs.data ?? [])
    .filter((d) => d.name === name)
    .map((d) => d.version ?? 1)
    .sort((a, b) => b - a);
  const mocked = useMemo(() => new Set(Object.keys(mocksParsed.value ?? {})), [mocksParsed.value]);
  const graph = useMemo(() => {
    if (test) return buildGraph(test.workflowDefinition, test.tasks, { mocked, runStatus: test.status });
    return def.data ? buildGraph(def.data, [], { mocked }) : undefined;
  }, [test, def.data, mocked]);

  const request = () => ({
    input: inputParsed.value ?? {},
    ...(correlationId.trim() && { correlationId: correlationId.trim() }),
    ...(priority.trim() !== '' && { priority: Number(priority) }),
  });

  const start = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const id = await sendForText('POST', '/api/workflow', {
        name,
        ...(version && { version: Number(version) }),
        ...request(),
      });
      navigate(`/runs/${enc(id)}`);
    } catch (err) {
      setError({ from: 'start', message: err instanceof Error ? err.message : String(err) });
    } finally {
      setBusy(false);
    }
  };

  const runTest = async () => {
    if (!def.data) return;
    setBusy(true);
    setError(undefined);
    try {
      const { createTime: _c, updateTime: _u, ...workflowDef } = def.data;
      const answer = await sendJson<Workflow>('POST', '/api/workflow/test', {
        workflowDef,
        ...request(),
        taskRefToMockOutput: mocksParsed.value ?? {},
      });
      setTest(answer);
    } catch (err) {
      setError({ from: 'test', message: err instanceof Error ? err.message : String(err) });
    } finally {
      setBusy(false);
    }
  };

  const inputsOk = inputParsed.error === undefined && name !== '';
  // The server names the field it refused (body.priority): the field is marked as well.
  const priorityRefused = error !== undefined && /\bpriority\b/.test(error.message);
  const errorAlert = (from: 'start' | 'test') =>
    error?.from === from && (
      <div className="alert alert-error" role="alert" data-testid="form-error">
        {error.message}
      </div>
    );
  return (
    <div className="page">
      <div className="page-head">
        <h1>Start and test</h1>
      </div>
      <div className="split">
        <section className="card">
          <div className="row">
            <div className="field grow">
              <label htmlFor="wb-name">Workflow</label>
              <select
                id="wb-name"
                value={name}
                onChange={(e) => {
                  setName(e.target.value);
                  setVersion('');
                }}
              >
                {names.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="wb-version">Version</label>
              <select id="wb-version" value={version} onChange={(e) => setVersion(e.target.value)}>
                <option value="">latest</option>
                {versions.map((v) => (
                  <option key={v} value={v}>
                    v{v}
                  </option>
                ))}
              </select>
            </div>
          </div>
          {def.data?.inputParameters && def.data.inputParameters.length > 0 && (
            <p className="muted small">Expected input: {def.data.inputParameters.join(', ')}</p>
          )}
          <JsonEditor id="wb-input" label="Input (JSON)" value={input} onChange={setInput} rows={6} />
          <div className="row">
            <div className="field grow">
              <label htmlFor="wb-corr">Correlation id</label>
              <input id="wb-corr" value={correlationId} onChange={(e) => setCorrelationId(e.target.value)} />
            </div>
            <div className="field">
              <label htmlFor="wb-priority">Priority (0–99)</label>
              <input
                id="wb-priority"
                type="number"
                min={0}
                max={99}
                value={priority}
                aria-invalid={priorityRefused || undefined}
                className={priorityRefused ? 'invalid' : undefined}
                onChange={(e) => setPriority(e.target.value)}
              />
            </div>
          </div>
          <button
            type="button"
            className="btn btn-primary"
            disabled={!inputsOk || busy}
            onClick={() => void start()}
          >
            Start run
          </button>
          {errorAlert('start')}
          <hr />
          <h2>Test workbench</h2>
          <p className="muted small">
            Runs the definition on a throwaway store with a virtual clock; tasks named here answer with the
            given results, in order (nothing reaches real workers).
          </p>
          <JsonEditor
            id="wb-mocks"
            label="Mocked results by task reference (JSON)"
            value={mocks}
            onChange={setMocks}
            rows={7}
          />
          <button
            type="button"
            className="btn"
            disabled={!inputsOk || mocksParsed.error !== undefined || busy || !def.data}
            onClick={() => void runTest()}
          >
            Run test
          </button>
          {errorAlert('test')}
        </section>
        <section className="card">
          {test && (
            <div className="test-result" data-testid="test-result">
              <StatusBadge status={test.status} /> test run ended with {test.tasks.length} task(s)
              {test.reasonForIncompletion && (
                <div className="alert alert-error">{test.reasonForIncompletion}</div>
              )}
              {(test.waitingFor ?? []).map((w, i) => (
                <div key={i} className="small">
                  {w.referenceTaskName}: {w.message}
                </div>
              ))}
            </div>
          )}
          {graph ? (
            <Diagram graph={graph} height={520} definition={!test} />
          ) : (
            <div className="muted">Choose a workflow.</div>
          )}
          {test && <JsonView label="Test run output" value={test.output} />}
        </section>
      </div>
    </div>
  );
}
