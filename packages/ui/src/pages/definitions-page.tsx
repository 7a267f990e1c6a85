import { useMemo, useState } from 'react';

import { enc } from '../api/client';
import { useDefinition, useDefinitions } from '../api/hooks';
import type { WorkflowDef } from '../api/types';
import { JsonView } from '../components/json';
import { Diagram } from '../diagram/diagram';
import { buildGraph } from '../diagram/graph';
import { formatTime } from '../format';
import { Link, useRouter } from '../router';

/** Definitions: every name with its versions; one version as a diagram and as JSON. */

export function DefinitionsPage() {
  const defs = useDefinitions();
  const [filter, setFilter] = useState('');
  const byName = useMemo(() => {
    const map = new Map<string, WorkflowDef[]>();
    for (const d of defs.data ?? []) {
      const list = map.get(d.name) ?? [];
      list.push(d);
      map.set(d.name, list);
    }
    for (const list of map.values()) list.sort((a, b) => (b.version ?? 0) - (a.version ?? 0));
    return [...map.entries()]
      .filter(([name]) => name.toLowerCase().includes(filter.toLowerCase()))
      .sort((a, b) => a[0].localeCompare(b[0]));
  }, [defs.data, filter]);
  return (
    <div className="page">
      <div className="page-head">
        <h1>Workflow definitions</h1>
        <Link to="/definitions/new" className="btn btn-primary">
          New definition
        </Link>
      </div>
      <input
        className="filter-input"
        aria-label="Filter definitions"
        placeholder="filter by name"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
      />
      {defs.error && <div className="alert alert-error">{defs.error.message}</div>}
      <div className="card table-card">
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Versions</th>
              <th className="hide-sm">Description</th>
              <th className="hide-sm">Updated</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {byName.map(([name, versions]) => {
              const latest = versions[0];
              return (
                <tr key={name}>
                  <td>
                    <Link to={`/definitions/${enc(name)}`}>{name}</Link>
                  </td>
                  <td>
                    {versions.map((v) => (
                      <Link
                        key={v.version}
                        to={`/definitions/${enc(name)}?version=${v.version ?? 1}`}
                        className="chip"
                      >
                        v{v.version}
                      </Link>
                    ))}
                  </td>
                  <td className="hide-sm muted">{latest?.description ?? ''}</td>
                  <td className="hide-sm nowrap">{formatTime(latest?.updateTime ?? latest?.createTime)}</td>
                  <td className="nowrap">
                    <Link to={`/runs?name=${enc(name)}`}>runs</Link> ·{' '}
                    <Link to={`/workbench?name=${enc(name)}`}>start</Link>
                  </td>
                </tr>
              );
            })}
            {byName.length === 0 && !defs.isPending && (
              <tr>
                <td colSpan={5} className="empty">
                  No definitions yet. <Link to="/definitions/new">Create one</Link>.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}

export function DefinitionPage({ name }: { name: string }) {
  const { location } = useRouter();
  const versionParam = location.search.get('version');
  const version = versionParam ? Number(versionParam) : undefined;
  const def = useDefinition(name, Number.isInteger(version) ? version : undefined);
  const all = useDefinitions();
  const versions = (all.data ?? [])
    .filter((d) => d.name === name)
    .map((d) => d.version ?? 1)
    .sort((a, b) => b - a);
  const graph = useMemo(() => (def.data ? buildGraph(def.data) : undefined), [def.data]);
  if (def.isPending) return <div className="page">Loading…</div>;
  if (def.error || !def.data || !graph) {
    return (
      <div className="page">
        <div className="alert alert-error">{def.error?.message ?? 'No such definition'}</div>
        <Link to="/definitions">← definitions</Link>
      </div>
    );
  }
  const v = def.data.version ?? 1;
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <div className="crumbs">
            <Link to="/definitions">Definitions</Link> / {name}
          </div>
          <h1>
            {name} <span className="muted">v{v}</span>
          </h1>
          {def.data.description && <p className="muted">{def.data.description}</p>}
          <div className="versions">
            {versions.map((n) => (
              <Link
                key={n}
                to={`/definitions/${enc(name)}?version=${n}`}
                className={`chip${n === v ? ' chip-on' : ''}`}
              >
                v{n}
              </Link>
            ))}
          </div>
        </div>
        <div className="action-buttons">
          <Link to={`/definitions/${enc(name)}/edit?version=${v}`} className="btn btn-primary">
            Edit
          </Link>
          <Link to={`/workbench?name=${enc(name)}&version=${v}`} className="btn">
            Start / test
          </Link>
          <Link to={`/runs?name=${enc(name)}`} className="btn">
            Runs
          </Link>
        </div>
      </div>
      <div className="split">
        <section className="card">
          <Diagram graph={graph} height={560} definition />
        </section>
        <section className="card">
          <JsonView label="Definition" value={def.data} maxHeight={540} />
        </section>
      </div>
    </div>
  );
}
