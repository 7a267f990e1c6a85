import { ApiError } from '../api/client';

/** The server's answer to a refused change: its message and every field it names (a 400's problems). */
export function ErrorBox({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const message =
    error instanceof Error ? error.message : typeof error === 'string' ? error : JSON.stringify(error);
  const problems = error instanceof ApiError ? error.validationErrors : [];
  return (
    <div className="alert alert-error" role="alert" data-testid="form-error">
      <div>{message}</div>
      {problems.length > 1 && (
        <ul className="small">
          {problems.map((p, i) => (
            <li key={i}>
              <span className="mono">{p.path}</span>: {p.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
