import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';

import { enc, qs, sendJson } from '../api/client';
import { useDefinition } from '../api/hooks';
import type { WorkflowDef } from '../api/types';
import { Diagram } from '../diagram/diagram';
import { buildGraph, type DiagramGraph } from '../diagram/graph';
import { Link, useRouter } from '../router';
import { useValidation, ValidatedJsonEditor } from './use-validation';

/**
 * Edit or create a workflow definition as JSON. Every problem the server's validator finds is
 * listed as you type, and the diagram is redrawn from the text whenever it parses.
 */

const TEMPLATE: WorkflowDef = {
  name: 'my_workflow',
  description: 'What this workflow does',
  version: 1,
  schemaVersion: 2,
  inputParameters: ['orderId'],
  tasks: [
    {
      name: 'check',
      taskReferenceName: 'check',
      type: 'INLINE',
      inputParameters: {
        evaluatorType: 'javascript',
        expression: '$.orderId ? true : false',
        orderId: '${workflow.input.orderId}',
      },
    },
    { name: 'approve', taskReferenceName: 'approve', type: 'HUMAN' },
  ],
  outputParameters: { approved: '${approve.output.approved}' },
};

export function DefinitionEditor({ name }: { name?: string }) {
  const { location, navigate } = useRouter();
  const queryClient = useQueryClient();
  const versionParam = location.search.get('version');
  const existing = useDefinition(name, versionParam ? Number(versionParam) : undefined);
  const [text, setText] = useState<string | undefined>(name ? undefined : JSON.stringify(TEMPLATE, null, 2));
  useEffect(() => {
    if (text === undefined && existing.data) {
      const { createTime: _c, updateTime: _u, ...def } = existing.data;
      setText(JSON.stringify(def, null, 2));
    }
  }, [existing.data, text]);
  const v = useValidation<WorkflowDef>(text ?? '{}', '/api/metadata/workflow/validate');
  // The last drawable graph stays while the text does not parse, so the picture does not flicker.
  const [graph, setGraph] = useState<DiagramGraph>();
  const parsedGraph = useMemo(() => {
    const def = v.parsed;
    if (!def || typeof def !== 'object' || !Array.isArray(def.tasks)) return undefined;
    try {
      return buildGraph(def);
    } catch {
      return undefined;
    }
  }, [v.parsed]);
  useEffect(() => {
    if (parsedGraph) setGraph(parsedGraph);
  }, [parsedGraph]);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string>();

  const save = async (overwrite: boolean) => {
    if (!v.parsed) return;
    setSaving(true);
    setSaveError(undefined);
    try {
      const def = { ...v.parsed };
      if (!overwrite) delete def.version;
      await sendJson('POST', `/api/metadata/workflow${qs({ overwrite: overwrite || undefined })}`, def);
      await queryClient.invalidateQueries({ queryKey: ['definitions'] });
      await queryClient.invalidateQueries({ queryKey: ['definition', def.name] });
      navigate(`/definitions/${enc(def.name)}`);
    } catch (err) {
      setSaveError(err instanceof Error ? err.message : String(err));
    } finally {
      setSaving(false);
    }
  };

  if (name && existing.error) return <div className="page alert alert-error">{existing.error.message}</div>;
  if (text === undefined) return <div className="page">Loading…</div>;
  const canSave = v.valid && !saving;
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <div className="crumbs">
            <Link to="/definitions">Definitions</Link> /{' '}
            {name ? <Link to={`/definitions/${enc(name)}`}>{name}</Link> : 'new'}
          </div>
          <h1>{name ? `Edit ${name}` : 'New workflow definition'}</h1>
        </div>
        <div className="action-buttons">
          {/* Which version a save would overwrite is unknown until the JSON parses: the one
              button below says why nothing can be saved, not two alike. */}
          {name && !v.parseError && (
            <button type="button" className="btn" disabled={!canSave} onClick={() => void save(true)}>
              {typeof v.parsed?.version === 'number'
                ? `Save over v${v.parsed.version}`
                : 'Save over (no version given)'}
            </button>
          )}
          <button
            type="button"
            className="btn btn-primary"
            disabled={!canSave}
            onClick={() => void save(false)}
          >
            {v.parseError ? 'JSON does not parse' : name ? 'Save as new version' : 'Create'}
          </button>
        </div>
      </div>
      {saveError && <div className="alert alert-error">{saveError}</div>}
      <div className="split">
        <section className="card editor-card">
          <div className="label" aria-hidden="true">
            Definition (JSON)
          </div>
          <ValidatedJsonEditor id="def-json" label="Definition (JSON)" text={text} onChange={setText} v={v} />
        </section>
        <section className="card">
          {graph ? (
            <Diagram graph={graph} height={600} definition />
          ) : (
            <div className="muted">The diagram appears once the JSON parses.</div>
          )}
        </section>
      </div>
    </div>
  );
}
