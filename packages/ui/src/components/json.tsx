import type { JsonObject } from '@baton/protocol';
import { useState } from 'react';

import { pretty } from '../format';

/** Read-only JSON, collapsible when long, with a copy button. */
export function JsonView({
  value,
  label,
  maxHeight = 320,
}: {
  value: unknown;
  label?: string;
  maxHeight?: number;
}) {
  const text = pretty(value);
  const empty =
    value === undefined || value === null || (typeof value === 'object' && Object.keys(value).length === 0);
  const [copied, setCopied] = useState(false);
  return (
    <div className="json-block">
      {label && (
        <div className="json-head">
          <span>{label}</span>
          {!empty && (
            <button
              type="button"
              className="btn-link"
              onClick={() => {
                void navigator.clipboard?.writeText(text).then(() => setCopied(true));
                window.setTimeout(() => setCopied(false), 1200);
              }}
            >
              {copied ? 'copied' : 'copy'}
            </button>
          )}
        </div>
      )}
      {empty ? (
        <div className="muted small">empty</div>
      ) : (
        <pre className="json" style={{ maxHeight }} tabIndex={0}>
          {text}
        </pre>
      )}
    </div>
  );
}

/** Parses an editor's text as a JSON object; the error says where it is wrong. */
export function parseObject(text: string): { value?: JsonObject; error?: string } {
  if (text.trim() === '') return { value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { error: 'must be a JSON object ({ … })' };
    }
    return { value: value as JsonObject };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** A JSON text area that says at once whether its text parses. */
export function JsonEditor(props: {
  id: string;
  label: string;
  value: string;
  onChange: (text: string) => void;
  rows?: number;
  error?: string | undefined;
  placeholder?: string;
}) {
  const parsed = parseObject(props.value);
  const error = props.error ?? parsed.error;
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      <textarea
        id={props.id}
        className={`code${error ? ' invalid' : ''}`}
        rows={props.rows ?? 6}
        spellCheck={false}
        value={props.value}
        placeholder={props.placeholder}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
      />
      {error && <div className="field-error">{error}</div>}
    </div>
  );
}
