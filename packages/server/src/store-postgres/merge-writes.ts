import { SQL, type Sql } from './sql.js';

/** A deferred write: a statement and its parameters, not yet written as text. */
export interface PendingWrite {
  readonly sql: Sql | string;
  readonly values: readonly unknown[];
}

/**
 * How each parameter of a statement that writes many rows from arrays combines when two
 * transactions' writes become one statement:
 *   - `rows`: an array with an element per row (concatenated);
 *   - `json`: the text of a JSON array of records (concatenated);
 *   - `count`: how many rows must be touched (added);
 *   - `keys`: an array of row keys a statement locks, kept sorted and unique (lock order).
 */
type Part = 'rows' | 'json' | 'count' | 'keys';

interface Merger {
  readonly parts: readonly Part[];
  /**
   * Parameters whose elements must stay unique across the merged statement, as tuples of
   * positions (e.g. the decide set's (run, name) rows, or task ids an UPDATE … FROM reads):
   * PostgreSQL refuses an ON CONFLICT or UPDATE that touches one row twice in a statement.
   */
  readonly unique: ReadonlyArray<readonly number[]>;
}

const LATEST: readonly Part[] = ['rows', 'rows', 'rows', 'rows'];

/**
 * The statements a group commit (group-commit.ts) merges across its members: those that write
 * the rows of a step from arrays, so that N members' writes are one statement, not N. Each is
 * planned and started once per batch instead of once per member, which is most of what a small
 * write costs PostgreSQL (docs/PERFORMANCE.md, "What bounds PostgreSQL now").
 */
const MERGERS: ReadonlyMap<string, Merger> = new Map([
  [SQL.insertTasks.name, { parts: ['json', ...LATEST], unique: [[1, 2]] }],
  [SQL.updateTasks.name, { parts: ['json', ...LATEST, 'count', 'rows'], unique: [[1, 2], [6]] }],
  // Twelve arrays of one element per message.
  [SQL.enqueue.name, { parts: new Array<Part>(12).fill('rows'), unique: [[0]] }],
  [SQL.removeMessages.name, { parts: ['keys'], unique: [] }],
  [SQL.updateOpenTasksExpected.name, { parts: ['json', 'rows', 'count'], unique: [[1]] }],
]);

function mergerOf(write: PendingWrite): Merger | undefined {
  return typeof write.sql === 'string' ? undefined : MERGERS.get(write.sql.name);
}

/**
 * The writes of several transactions that run as one (a group commit's members), with the same
 * mergeable statement of several members made one. Each member's writes keep their order: the
 * lists are merged along their longest common sequence of mergeable statements, and the rest is
 * interleaved around it. Members touch disjoint rows (each holds its own run), so the order
 * between two members' writes is free.
 */
export function mergeWrites(lists: ReadonlyArray<readonly PendingWrite[]>): PendingWrite[] {
  let merged: PendingWrite[] = [];
  for (const list of lists) merged = mergeTwo(merged, list);
  return merged;
}

/** The name of a mergeable statement (writes of one name may merge), or none. */
function keyOf(write: PendingWrite): string | undefined {
  return typeof write.sql !== 'string' && MERGERS.has(write.sql.name) ? write.sql.name : undefined;
}

function mergeTwo(a: readonly PendingWrite[], b: readonly PendingWrite[]): PendingWrite[] {
  if (a.length === 0) return [...b];
  if (b.length === 0) return [...a];
  const ka = a.map(keyOf);
  const kb = b.map(keyOf);
  // lcs[i][j]: the longest common sequence of mergeable statements of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    const row = lcs[i] as number[];
    const below = lcs[i + 1] as number[];
    for (let j = b.length - 1; j >= 0; j--) {
      const k = ka[i];
      row[j] =
        k !== undefined && k === kb[j]
          ? (below[j + 1] as number) + 1
          : Math.max(below[j] as number, row[j + 1] as number);
    }
  }
  const out: PendingWrite[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as PendingWrite;
    const y = b[j] as PendingWrite;
    const k = ka[i];
    if (
      k !== undefined &&
      k === kb[j] &&
      (lcs[i] as number[])[j] === ((lcs[i + 1] as number[])[j + 1] as number) + 1
    ) {
      const both = combine(x, y);
      if (both) out.push(both);
      else out.push(x, y);
      i++;
      j++;
    } else if (((lcs[i + 1] as number[])[j] as number) >= ((lcs[i] as number[])[j + 1] as number)) {
      out.push(x);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  out.push(...a.slice(i), ...b.slice(j));
  return out;
}

/** One statement doing what `x` then `y` do, or undefined when they would touch a row twice. */
export function combine(x: PendingWrite, y: PendingWrite): PendingWrite | undefined {
  const merger = mergerOf(x);
  if (
    !merger ||
    x.sql !== y.sql ||
    x.values.length !== merger.parts.length ||
    y.values.length !== merger.parts.length
  )
    return undefined;
  for (const positions of merger.unique) if (overlap(x.values, y.values, positions)) return undefined;
  const values = merger.parts.map((part, n) => joinPart(part, x.values[n], y.values[n]));
  if (values.some((v) => v === undefined)) return undefined;
  return { sql: x.sql, values };
}

function joinPart(part: Part, x: unknown, y: unknown): unknown {
  const rows = (v: unknown): readonly unknown[] | undefined =>
    Array.isArray(v) ? (v as unknown[]) : undefined;
  const xs = rows(x);
  const ys = rows(y);
  switch (part) {
    case 'rows':
      return xs && ys ? [...xs, ...ys] : undefined;
    case 'keys':
      return xs && ys ? [...new Set([...xs, ...ys].map(String))].sort() : undefined;
    case 'count':
      return typeof x === 'number' && typeof y === 'number' ? x + y : undefined;
    case 'json':
      return typeof x === 'string' && typeof y === 'string' ? joinJsonArrays(x, y) : undefined;
  }
}

/** `[a,b]` and `[c]` as `[a,b,c]`, without parsing them. */
function joinJsonArrays(x: string, y: string): string | undefined {
  const a = x.trim();
  const b = y.trim();
  if (!a.startsWith('[') || !a.endsWith(']') || !b.startsWith('[') || !b.endsWith(']')) return undefined;
  const inA = a.slice(1, -1);
  const inB = b.slice(1, -1);
  if (inA.trim() === '') return b;
  if (inB.trim() === '') return a;
  return `[${inA},${inB}]`;
}

/** Whether the rows of `x` and `y` share a tuple of the parameters at `positions`. */
function overlap(x: readonly unknown[], y: readonly unknown[], positions: readonly number[]): boolean {
  const seen = new Set(tuples(x, positions));
  return tuples(y, positions).some((t) => seen.has(t));
}

/** Each row's values at `positions`, as one string (keys hold no NUL). */
function tuples(values: readonly unknown[], positions: readonly number[]): string[] {
  const columns: unknown[][] = [];
  for (const p of positions) {
    const column = values[p];
    if (!Array.isArray(column)) return [];
    columns.push(column as unknown[]);
  }
  const first = columns[0] ?? [];
  return first.map((_, row) => columns.map((c) => String(c[row])).join('\u0000'));
}
