import { lazy, Suspense } from 'react';

import type { JsonCodeEditorProps } from './json-code-editor';

/**
 * The JSON code editor, fetched when a page first shows it: CodeMirror is most of its weight,
 * and only the definition editors need it. Until it is there, a plain text area stands in.
 */
const Lazy = lazy(() => import('./json-code-editor'));

export function CodeEditor(props: JsonCodeEditorProps) {
  return (
    <Suspense
      fallback={
        <textarea
          className="code editor"
          aria-label="Loading the editor…"
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          style={{ height: props.height ?? 480 }}
          spellCheck={false}
        />
      }
    >
      <Lazy {...props} />
    </Suspense>
  );
}

export type { EditorProblem } from './json-code-editor';
