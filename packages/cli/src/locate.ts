import { readFileSync } from 'node:fs';

import { isMap, isSeq, LineCounter, parseAllDocuments, type Node } from 'yaml';

/** A place in a file, 1-based, as editors count. */
export interface Place {
  line: number;
  column: number;
}

/** Line and column of a character offset in `text`. */
export function placeOf(text: string, offset: number): Place {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
}

/**
 * Where a JSON parse error is: V8 says `at position N` (and newer versions `(line L column C)`);
 * answers undefined when the message says neither.
 */
export function jsonErrorPlace(text: string, message: string): Place | undefined {
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const position = /at position (\d+)/.exec(message);
  if (position) return placeOf(text, Number(position[1]));
  // "Unexpected end of JSON input": the end of the text.
  if (/end of JSON input/.test(message)) return placeOf(text, text.length);
  return undefined;
}

/** `tasks[1].inputParameters.id` → `['tasks', 1, 'inputParameters', 'id']`. */
export function pathSegments(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (match[2] !== undefined) out.push(Number(match[2]));
    else if (match[1] !== undefined) out.push(match[1]);
  }
  return out;
}

/**
 * Where the value at `path` is in a JSON or YAML file (JSON read as YAML, which keeps each
 * node's position). `docIndex` picks the item of a file holding a list. The deepest node the
 * path reaches is answered, so a field that is missing points at the object that lacks it.
 */
export function locateInFile(file: string, path: string, docIndex?: number): Place | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const counter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: counter });
  if (!Array.isArray(docs) || docs.length === 0) return undefined;
  let node: unknown = docs[0]?.contents;
  const segments = [...(docIndex !== undefined ? [docIndex] : []), ...pathSegments(path)];
  let found = node as Node | undefined;
  for (const segment of segments) {
    let next: unknown;
    if (isSeq(node) && typeof segment === 'number') next = node.items[segment];
    else if (isMap(node)) next = node.get(String(segment), true);
    if (next === undefined || next === null) break;
    node = next;
    found = next as Node;
  }
  const start = found?.range?.[0];
  if (start === undefined) return undefined;
  const { line, col } = counter.linePos(start);
  return { line, column: col };
}
