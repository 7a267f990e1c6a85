import { ensureSyntaxTree } from '@codemirror/language';
import type { EditorState } from '@codemirror/state';
import type { SyntaxNode } from '@lezer/common';

/**
 * Where a problem sits in a JSON text: a parse error at the position the parser names, a
 * validation problem at the value its path names ("tasks[1].taskReferenceName", or a JSON
 * pointer "/tasks/1/name"). A path that goes further than the text does points at the deepest
 * part that exists (the task that lacks a field).
 */

export interface Located {
  from: number;
  to: number;
  line: number;
}

const VALUE_NODES = new Set(['Object', 'Array', 'String', 'Number', 'True', 'False', 'Null']);

/** "tasks[1].name" or "/tasks/1/name" as ["tasks", 1, "name"]; a leading "body" is the request's. */
export function pathSegments(path: string): Array<string | number> {
  const parts: Array<string | number> = [];
  if (path.startsWith('/')) {
    for (const raw of path.split('/').slice(1)) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      parts.push(/^\d+$/.test(key) ? Number(key) : key);
    }
  } else {
    for (const m of path.matchAll(/\[(\d+)\]|([^.[\]]+)/g)) {
      if (m[1] !== undefined) parts.push(Number(m[1]));
      else if (m[2] !== undefined) parts.push(m[2]);
    }
  }
  if (parts[0] === 'body' || parts[0] === 'workflowDef') parts.shift();
  return parts;
}

function valuesOf(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) if (VALUE_NODES.has(c.name)) out.push(c);
  return out;
}

function propertyValue(obj: SyntaxNode, key: string, state: EditorState): SyntaxNode | undefined {
  for (let p = obj.firstChild; p; p = p.nextSibling) {
    if (p.name !== 'Property') continue;
    const name = p.getChild('PropertyName');
    if (!name) continue;
    let text: unknown;
    try {
      text = JSON.parse(state.sliceDoc(name.from, name.to));
    } catch {
      continue;
    }
    if (text === key) return p;
  }
  return undefined;
}

function lineRange(state: EditorState, from: number, to: number): Located {
  const line = state.doc.lineAt(from);
  // One line is underlined, not a whole task: the marker says where, the list says what.
  return {
    from,
    to: Math.max(Math.min(to, line.to), Math.min(from + 1, state.doc.length)),
    line: line.number,
  };
}

/** The range a validation path names, or the nearest existing part of it. */
export function locatePath(state: EditorState, path: string): Located | undefined {
  const tree = ensureSyntaxTree(state, state.doc.length, 500);
  if (!tree) return undefined;
  let node: SyntaxNode | undefined = valuesOf(tree.topNode)[0];
  if (!node) return undefined;
  let mark: SyntaxNode = node;
  for (const seg of pathSegments(path)) {
    if (!node) break;
    if (typeof seg === 'number' && node.name === 'Array') {
      const item: SyntaxNode | undefined = valuesOf(node)[seg];
      if (!item) break;
      node = item;
      mark = item;
    } else if (node.name === 'Object') {
      const prop = propertyValue(node, String(seg), state);
      if (!prop) break;
      mark = prop;
      node = valuesOf(prop)[0];
    } else break;
  }
  return lineRange(state, mark.from, mark.to);
}

/** The position a JSON.parse message names ("at position 45", "line 3 column 5", end of input). */
export function locateParseError(state: EditorState, message: string): Located {
  const doc = state.doc;
  let pos = doc.length;
  const lc = /line (\d+) column (\d+)/.exec(message);
  const at = /position (\d+)/.exec(message);
  if (lc) {
    const line = doc.line(Math.min(Math.max(1, Number(lc[1])), doc.lines));
    pos = Math.min(line.from + Number(lc[2]) - 1, line.to);
  } else if (at) {
    pos = Math.min(Number(at[1]), doc.length);
  }
  const line = doc.lineAt(pos);
  return { from: pos, to: Math.min(pos + 1, Math.max(line.to, pos)), line: line.number };
}
