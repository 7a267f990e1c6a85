import { useEffect, useState } from 'react';

import { ApiError, sendJson, type ValidationProblem } from '../api/client';

/**
 * Checks a document against the server's validator as the user types: the JSON is parsed at
 * once, the server asked after a short pause, and only the answer to the latest text is kept.
 */
export interface Validation<T> {
  parsed?: T;
  parseError?: string;
  problems: ValidationProblem[];
  message?: string;
  checking: boolean;
  valid: boolean;
}

export function useValidation<T>(text: string, url: string, delayMs = 350): Validation<T> {
  const [state, setState] = useState<Validation<T>>({ problems: [], checking: false, valid: false });
  useEffect(() => {
    let parsed: T;
    try {
      parsed = JSON.parse(text) as T;
    } catch (err) {
      setState({
        parseError: err instanceof Error ? err.message : String(err),
        problems: [],
        checking: false,
        valid: false,
      });
      return undefined;
    }
    setState((s) => ({ problems: s.problems, valid: s.valid, parsed, checking: true }));
    let live = true;
    const timer = window.setTimeout(() => {
      sendJson('POST', url, parsed).then(
        () => live && setState({ parsed, problems: [], checking: false, valid: true }),
        (err: unknown) => {
          if (!live) return;
          const problems = err instanceof ApiError ? err.validationErrors : [];
          const message = err instanceof Error ? err.message : String(err);
          setState({ parsed, problems, message, checking: false, valid: false });
        },
      );
    }, delayMs);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [text, url, delayMs]);
  return state;
}

export function Problems({ v }: { v: Validation<unknown> }) {
  if (v.parseError) {
    return (
      <div className="problems" role="status" data-testid="problems">
        <div className="problem">JSON: {v.parseError}</div>
      </div>
    );
  }
  if (v.checking)
    return (
      <div className="problems muted small" role="status">
        checking…
      </div>
    );
  if (v.valid) {
    return (
      <div className="problems ok" role="status" data-testid="problems">
        ✓ valid
      </div>
    );
  }
  return (
    <div className="problems" role="status" data-testid="problems">
      {v.problems.length === 0 && v.message && <div className="problem">{v.message}</div>}
      {v.problems.map((p, i) => (
        <div className="problem" key={i}>
          <span className="mono">{p.path}</span>: {p.message}
        </div>
      ))}
    </div>
  );
}
