import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { enc, sendJson } from '../api/client';
import { useInstructions } from '../api/hooks';
import type { Instruction } from '../api/types';
import { Needs } from '../auth';
import { ErrorBox } from '../components/error';
import { formatTime } from '../format';
import { Link, useRouter } from '../router';

/**
 * Instruction texts: the named, versioned texts a HUMAN task shows (`${instructions.NAME}`).
 * A version never changes once written, so editing one saves the next version.
 */

function InstructionForm({ latest }: { latest: Instruction | undefined }) {
  const queryClient = useQueryClient();
  const { navigate } = useRouter();
  const [name, setName] = useState(latest?.name ?? '');
  const [contentType, setContentType] = useState(latest?.contentType ?? 'text/plain');
  const [text, setText] = useState(latest?.text ?? '');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="card"
      aria-label={latest ? `New version of ${latest.name}` : 'New instruction text'}
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setError(undefined);
        sendJson<Instruction>('POST', '/api/metadata/instructions', { name: name.trim(), text, contentType })
          .then(async (saved) => {
            await queryClient.invalidateQueries({ queryKey: ['instructions'] });
            navigate(`/instructions/${enc(saved.name)}`, { replace: true });
          })
          .catch((err: unknown) => setError(err))
          .finally(() => setBusy(false));
      }}
    >
      <h2>{latest ? `New version of ${latest.name}` : 'New instruction text'}</h2>
      <div className="row">
        <div className="field grow">
          <label htmlFor="instruction-name">Name (letters, digits, _ and -)</label>
          <input
            id="instruction-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            readOnly={latest !== undefined}
          />
        </div>
        <div className="field">
          <label htmlFor="instruction-type">Content type</label>
          <select id="instruction-type" value={contentType} onChange={(e) => setContentType(e.target.value)}>
            {[...new Set(['text/plain', 'text/markdown', 'text/html', contentType])].map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="field">
        <label htmlFor="instruction-text">Text</label>
        <textarea id="instruction-text" rows={10} value={text} onChange={(e) => setText(e.target.value)} />
      </div>
      <ErrorBox error={error} />
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {latest ? 'Save as new version' : 'Create'}
        </button>
        <Link to={latest ? `/instructions/${enc(latest.name)}` : '/instructions'} className="btn">
          Cancel
        </Link>
      </div>
    </form>
  );
}

function InstructionDetail({ versions }: { versions: Instruction[] }) {
  const queryClient = useQueryClient();
  const { location, navigate } = useRouter();
  const [error, setError] = useState<string>();
  const asked = Number(location.search.get('version'));
  const shown = versions.find((v) => v.version === asked) ?? versions[0];
  if (!shown) return null;
  const remove = async () => {
    if (!window.confirm(`Delete version ${shown.version} of ${shown.name}?`)) return;
    try {
      await sendJson('DELETE', `/api/metadata/instructions/${enc(shown.name)}/${shown.version}`);
      await queryClient.invalidateQueries({ queryKey: ['instructions'] });
      navigate(versions.length > 1 ? `/instructions/${enc(shown.name)}` : '/instructions', { replace: true });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <section className="card" data-testid="instruction-detail">
      <div className="page-head">
        <h2>
          {shown.name} <span className="muted">v{shown.version}</span>
        </h2>
        <Needs group="metadata">
          <div className="row">
            <Link to={`/instructions/${enc(shown.name)}?edit=1`} className="btn btn-small">
              Edit (new version)
            </Link>
            <button type="button" className="btn btn-small btn-danger" onClick={() => void remove()}>
              Delete v{shown.version}
            </button>
          </div>
        </Needs>
      </div>
      {error && <div className="alert alert-error">{error}</div>}
      <p className="muted small">
        {shown.contentType}, written {formatTime(shown.createTime)}. A HUMAN task shows it with{' '}
        <span className="mono">{`"instructions": "\${instructions.${shown.name}}"`}</span>.
      </p>
      <pre className="instruction-text" data-testid="instruction-text">
        {shown.text}
      </pre>
      <div className="row small" aria-label="Versions">
        Versions:{' '}
        {versions.map((v) => (
          <Link
            key={v.version}
            to={`/instructions/${enc(v.name)}?version=${v.version}`}
            className={v.version === shown.version ? 'chip chip-on' : 'chip'}
          >
            v{v.version}
          </Link>
        ))}
      </div>
    </section>
  );
}

export function InstructionsPage({ name }: { name?: string }) {
  const instructions = useInstructions();
  const { location } = useRouter();
  const byName = new Map<string, Instruction[]>();
  for (const i of instructions.data ?? []) byName.set(i.name, [...(byName.get(i.name) ?? []), i]);
  for (const versions of byName.values()) versions.sort((a, b) => b.version - a.version);
  const names = [...byName.keys()].sort();
  const versions = name && name !== 'new' ? byName.get(name) : undefined;
  const editing = name === 'new' || (versions !== undefined && location.search.get('edit') === '1');
  return (
    <div className="page">
      <div className="page-head">
        <h1>Instruction texts</h1>
        <Needs group="metadata">
          <Link to="/instructions/new" className="btn btn-primary">
            New instruction text
          </Link>
        </Needs>
      </div>
      {instructions.error && <div className="alert alert-error">{instructions.error.message}</div>}
      <div className={name ? 'split' : ''}>
        <div className="card table-card">
          <table className="table" data-testid="instructions-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Latest</th>
                <th className="hide-sm">Text</th>
              </tr>
            </thead>
            <tbody>
              {names.map((n) => {
                const latest = byName.get(n)?.[0];
                return (
                  <tr key={n} data-instruction={n} className={n === name ? 'row-selected' : ''}>
                    <td>
                      <Link to={`/instructions/${enc(n)}`}>{n}</Link>
                    </td>
                    <td>v{latest?.version}</td>
                    <td className="hide-sm muted small">{(latest?.text ?? '').slice(0, 80)}</td>
                  </tr>
                );
              })}
              {names.length === 0 && !instructions.isPending && (
                <tr>
                  <td colSpan={3} className="empty">
                    No instruction texts yet. They are the words a HUMAN task shows the person doing it.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        {editing && <InstructionForm key={name} latest={versions?.[0]} />}
        {!editing && versions && <InstructionDetail versions={versions} />}
        {name && name !== 'new' && !versions && !instructions.isPending && (
          <div className="alert alert-error">No instruction text named {name}</div>
        )}
      </div>
    </div>
  );
}
