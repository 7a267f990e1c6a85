import { type ReactNode, useState } from 'react';

import { sendJson } from '../api/client';
import { Needs } from '../auth';
import { Link, useRouter } from '../router';

/**
 * The head of a schedule's or an event handler's card: its name and, for callers with the event
 * role, Edit, the page's own toggle (`children`) and Delete, which asks first, then goes back to
 * the list once the lists are refreshed.
 */
export function DetailHead({
  name,
  kind,
  editTo,
  deletePath,
  listPath,
  invalidate,
  children,
}: {
  name: string;
  /** What is deleted, as the confirmation names it ("schedule", "event handler"). */
  kind: string;
  editTo: string;
  deletePath: string;
  listPath: string;
  invalidate: () => Promise<unknown>;
  children: ReactNode;
}) {
  const { navigate } = useRouter();
  const [error, setError] = useState<string>();
  const remove = async () => {
    if (!window.confirm(`Delete ${kind} ${name}?`)) return;
    try {
      await sendJson('DELETE', deletePath);
      await invalidate();
      navigate(listPath, { replace: true });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <>
      <div className="page-head">
        <h2>{name}</h2>
        <Needs group="event">
          <div className="row">
            <Link to={editTo} className="btn btn-small">
              Edit
            </Link>
            {children}
            <button type="button" className="btn btn-small btn-danger" onClick={() => void remove()}>
              Delete
            </button>
          </div>
        </Needs>
      </div>
      {error && <div className="alert alert-error">{error}</div>}
    </>
  );
}
