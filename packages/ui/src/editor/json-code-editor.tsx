import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import {
  bracketMatching,
  defaultHighlightStyle,
  foldGutter,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import {
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { useEffect, useMemo, useRef, useState } from 'react';

import { locateParseError, locatePath, type Located } from './json-locate';

/**
 * A JSON code editor (CodeMirror 6): highlighting, line numbers, folding, and each problem
 * marked on its line, with the list below it; a click on a problem puts the cursor there.
 * Loaded on its own (lazily) by the pages that edit definitions, so the rest of the UI does not
 * carry it.
 */

export interface EditorProblem {
  message: string;
  /** Where a validation problem is: a path into the document. */
  path?: string;
  /** A JSON parse error: its message names the position. */
  parseError?: boolean;
}

export interface JsonCodeEditorProps {
  id: string;
  label: string;
  value: string;
  onChange: (text: string) => void;
  problems: readonly EditorProblem[];
  /** Shown in place of the list when there is no problem ("✓ valid", "checking…"). */
  status?: 'valid' | 'checking' | undefined;
  height?: number;
}

const theme = EditorView.theme({
  '&': { fontSize: '13px', border: '1px solid var(--line, #d1d5db)', borderRadius: '6px' },
  '&.cm-focused': { outline: '2px solid var(--accent, #2563eb)', outlineOffset: '-1px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
  '.cm-gutters': { background: '#f8fafc', borderRight: '1px solid #e5e7eb' },
});

function locate(state: EditorState, p: EditorProblem): Located | undefined {
  if (p.parseError) return locateParseError(state, p.message);
  return p.path ? locatePath(state, p.path) : undefined;
}

export default function JsonCodeEditor(props: JsonCodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const [view, setView] = useState<EditorView>();
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;
  // The document as the editor has it, to place the problems in it after each change.
  const [doc, setDoc] = useState(props.value);

  useEffect(() => {
    if (!host.current) return undefined;
    const v = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: props.value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          foldGutter(),
          lintGutter(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          highlightActiveLine(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          json(),
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          theme,
          EditorView.contentAttributes.of({
            id: props.id,
            'aria-label': props.label,
            'aria-describedby': `${props.id}-problems`,
            spellcheck: 'false',
          }),
          EditorView.updateListener.of((u) => {
            if (!u.docChanged) return;
            const text = u.state.doc.toString();
            setDoc(text);
            onChange.current(text);
          }),
        ],
      }),
    });
    setView(v);
    return () => v.destroy();
    // Created once; later values arrive through the effect below.
  }, []);

  // A value set from outside (a loaded definition) replaces the document. Only a value that
  // changed counts: the first render after the editor is made still carries the value it was made
  // with, and text typed in between (the change not yet back in the props) must not be replaced
  // by it.
  const applied = useRef(props.value);
  useEffect(() => {
    if (!view || props.value === applied.current) return;
    applied.current = props.value;
    const current = view.state.doc.toString();
    if (current !== props.value) {
      view.dispatch({ changes: { from: 0, to: current.length, insert: props.value } });
    }
  }, [view, props.value]);

  const placed = useMemo(
    () =>
      view
        ? props.problems.map((p) => ({ problem: p, at: locate(view.state, p) }))
        : props.problems.map((p) => ({ problem: p, at: undefined })),
    // `doc` changes with every edit: the problems are placed in the current text.
    [view, props.problems, doc],
  );

  useEffect(() => {
    if (!view) return;
    const diagnostics: Diagnostic[] = placed.flatMap(({ problem, at }) =>
      at
        ? [
            {
              from: Math.min(at.from, view.state.doc.length),
              to: Math.min(at.to, view.state.doc.length),
              severity: 'error',
              message: problem.path ? `${problem.path}: ${problem.message}` : problem.message,
            },
          ]
        : [],
    );
    view.dispatch(setDiagnostics(view.state, diagnostics));
  }, [view, placed]);

  const jump = (at: Located | undefined) => {
    if (!view || !at) return;
    view.dispatch({
      selection: { anchor: at.from },
      effects: EditorView.scrollIntoView(at.from, { y: 'center' }),
    });
    view.focus();
  };

  return (
    <div className="code-editor">
      <div ref={host} className="code-editor-host" style={{ height: props.height ?? 480 }} />
      <div id={`${props.id}-problems`} className="problems" role="status" data-testid="problems">
        {placed.length === 0 && props.status === 'checking' && <span className="muted small">checking…</span>}
        {placed.length === 0 && props.status === 'valid' && <span className="ok">✓ valid</span>}
        {placed.length > 0 && (
          <ul className="problem-list" aria-label="Problems">
            {placed.map(({ problem, at }, i) => (
              <li key={i}>
                <button
                  type="button"
                  className="problem"
                  data-line={at?.line}
                  disabled={!at}
                  title={at ? `Go to line ${at.line}` : undefined}
                  onClick={() => jump(at)}
                >
                  {at && <span className="problem-line">line {at.line}</span>}{' '}
                  {problem.parseError ? (
                    <>JSON does not parse: {problem.message}</>
                  ) : (
                    <>
                      {problem.path && <span className="mono">{problem.path}</span>}
                      {problem.path && ': '}
                      {problem.message}
                    </>
                  )}
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
