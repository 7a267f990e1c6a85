import { useEffect, useState } from 'react';

import { ApiError, sendJson, type ValidationProblem } from '../api/client';
import { CodeEditor, type EditorProblem } from '../editor/code-editor';

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
    let timer = 0;
    // A check the server could not answer (unreachable, overloaded, restarting) says nothing about
    // the document: it is asked again, later each time, rather than leaving that failure shown as
    // the document's problem until the next keystroke.
    const check = (attempt: number) => {
      sendJson('POST', url, parsed).then(
        () => live && setState({ parsed, problems: [], checking: false, valid: true }),
        (err: unknown) => {
          if (!live) return;
          const message = err instanceof Error ? err.message : String(err);
          if (!judged(err)) {
            setState({ parsed, problems: [], message, checking: true, valid: false });
            timer = window.setTimeout(() => check(attempt + 1), retryDelayMs(attempt));
            return;
          }
          const problems = err instanceof ApiError ? err.validationErrors : [];
          setState({ parsed, problems, message, checking: false, valid: false });
        },
      );
    };
    timer = window.setTimeout(() => check(1), delayMs);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [text, url, delayMs]);
  return state;
}

/**
 * Whether a failed check is the server's verdict on the document (a 4xx other than 408 and 429),
 * as opposed to a failure to check it at all.
 */
function judged(err: unknown): boolean {
  return (
    err instanceof ApiError &&
    err.status >= 400 &&
    err.status < 500 &&
    err.status !== 408 &&
    err.status !== 429
  );
}

/** 0.5 s, 1 s, 2 s, then every 4 s. */
function retryDelayMs(attempt: number): number {
  return Math.min(4_000, 500 * 2 ** (attempt - 1));
}

/** The problems of a validation as the code editor marks them. */
export function editorProblems(v: Validation<unknown>): EditorProblem[] {
  if (v.parseError) return [{ message: v.parseError, parseError: true }];
  if (v.checking || v.valid) return [];
  if (v.problems.length === 0) return v.message ? [{ message: v.message }] : [];
  return v.problems.map((p) => ({ message: p.message, ...(p.path && { path: p.path }) }));
}

/** A JSON document edited in the code editor, its validation problems marked on their lines. */
export function ValidatedJsonEditor(props: {
  id: string;
  label: string;
  text: string;
  onChange: (text: string) => void;
  v: Validation<unknown>;
  height?: number;
}) {
  const { v } = props;
  return (
    <CodeEditor
      id={props.id}
      label={props.label}
      value={props.text}
      onChange={props.onChange}
      problems={editorProblems(v)}
      status={v.parseError ? undefined : v.checking ? 'checking' : v.valid ? 'valid' : undefined}
      {...(props.height !== undefined && { height: props.height })}
    />
  );
}
