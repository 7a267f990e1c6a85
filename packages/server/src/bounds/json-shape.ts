import { MAX_JSON_DEPTH, MAX_JSON_NODES } from './ranges.js';

/**
 * Depth and size of free JSON, measured without recursion (an explicit stack), so a value
 * nested 100,000 deep is measured as safely as a flat one. Everything that walks JSON
 * recursively (expression resolution, masking, copying, schema checks) may rely on a value that
 * passed `jsonShapeProblem` being at most MAX_JSON_DEPTH deep.
 */

export interface JsonShapeLimits {
  maxDepth: number;
  maxNodes: number;
}

export const DEFAULT_JSON_LIMITS: JsonShapeLimits = { maxDepth: MAX_JSON_DEPTH, maxNodes: MAX_JSON_NODES };

export interface JsonShapeProblem {
  /** Where the limit was crossed, e.g. `body.input.a.b[3]`. */
  path: string;
  message: string;
}

function segment(parentPath: string, key: string | number): string {
  if (typeof key === 'number') return `${parentPath}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parentPath}.${key}` : `${parentPath}[${JSON.stringify(key)}]`;
}

/** NUL and unpaired surrogates: text no store can hold (PostgreSQL refuses both in text and jsonb). */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` cannot be stored, or undefined when it can. */
export function textProblem(text: string): string | undefined {
  if (!UNSTORABLE.test(text)) return undefined;
  return text.includes('\u0000') ? 'contains a NUL character' : 'contains an unpaired UTF-16 surrogate';
}

/**
 * The first place where `value` breaks the limits, or undefined when it keeps them. `root` names
 * the value in the answer (`body`, `outputData`). Depth counts containers: `{}` is depth 1,
 * `{"a": []}` depth 2; scalars add none.
 */
export function jsonShapeProblem(
  value: unknown,
  root = 'body',
  limits: JsonShapeLimits = DEFAULT_JSON_LIMITS,
): JsonShapeProblem | undefined {
  // Each entry keeps its parent and key; the path is spelled out only for the answer.
  interface Entry {
    value: unknown;
    depth: number;
    parent?: Entry;
    key?: string | number;
  }
  const pathOf = (entry: Entry): string => {
    const keys: Array<string | number> = [];
    for (let e: Entry | undefined = entry; e?.key !== undefined; e = e.parent) keys.push(e.key);
    return keys.reverse().reduce<string>((path, key) => segment(path, key), root);
  };
  const stack: Entry[] = [{ value, depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const item = stack.pop()!;
    nodes++;
    if (nodes > limits.maxNodes) {
      return { path: root, message: `has more than ${limits.maxNodes} values (the limit)` };
    }
    const v = item.value;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return { path: pathOf(item), message: problem };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    const depth = item.depth + 1;
    if (depth > limits.maxDepth) {
      return { path: pathOf(item), message: `is nested deeper than ${limits.maxDepth} levels (the limit)` };
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth, parent: item, key: i });
    } else {
      for (const [key, child] of Object.entries(v as Record<string, unknown>)) {
        const keyProblem = textProblem(key);
        if (keyProblem) return { path: pathOf(item), message: `has a key that ${keyProblem}` };
        stack.push({ value: child, depth, parent: item, key });
      }
    }
  }
  return undefined;
}

/** True when `value` is at most `maxDepth` containers deep (no path work; for engine guards). */
export function withinDepth(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    const v = item.value;
    if (v === null || typeof v !== 'object') continue;
    const depth = item.depth + 1;
    if (depth > maxDepth) return false;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth });
    }
  }
  return true;
}
