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
 *
 * Members are aligned one at a time against slots that gather the writes to merge, and each
 * slot's statement is built once at the end: joining as it went copied every array and JSON text
 * gathered so far again for each member, and rebuilt the set of rows already written for each
 * check, so a batch's merge grew with the square of its members (64 members took 2 ms on the
 * batch's serial path; docs/PERFORMANCE.md, "Built: a batch's writes merged in one pass").
 */
export function mergeWrites(lists: ReadonlyArray<readonly PendingWrite[]>): PendingWrite[] {
  let slots: Slot[] = [];
  for (const list of lists) slots = alignInto(slots, list);
  return slots.map(statementOf);
}

/**
 * One statement doing what `x` then `y` do, or undefined when they would touch a row twice (or
 * are not the same mergeable statement).
 */
export function combine(x: PendingWrite, y: PendingWrite): PendingWrite | undefined {
  const slot = slotOf(x);
  return join(slot, y) ? statementOf(slot) : undefined;
}

/**
 * Writes that will be one statement: the first one's statement, and the writes gathered into it.
 * `seen` holds, for each of the merger's `unique` tuples of positions, the rows written so far
 * (made when a second write joins, so a write that stays alone costs nothing).
 */
interface Slot {
  readonly key: string | undefined;
  readonly writes: PendingWrite[];
  seen?: Array<Set<string>>;
}

function slotOf(write: PendingWrite): Slot {
  return { key: keyOf(write), writes: [write] };
}

/** The name of a mergeable statement (writes of one name may merge), or none. */
function keyOf(write: PendingWrite): string | undefined {
  return typeof write.sql !== 'string' && MERGERS.has(write.sql.name) ? write.sql.name : undefined;
}

/** `b`'s writes aligned with the slots along their longest common sequence of mergeable statements. */
function alignInto(a: readonly Slot[], b: readonly PendingWrite[]): Slot[] {
  if (a.length === 0) return b.map(slotOf);
  if (b.length === 0) return [...a];
  const kb = b.map(keyOf);
  // lcs[i][j]: the longest common sequence of mergeable statements of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    const row = lcs[i] as number[];
    const below = lcs[i + 1] as number[];
    const k = (a[i] as Slot).key;
    for (let j = b.length - 1; j >= 0; j--) {
      row[j] =
        k !== undefined && k === kb[j]
          ? (below[j + 1] as number) + 1
          : Math.max(below[j] as number, row[j + 1] as number);
    }
  }
  const out: Slot[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as Slot;
    const y = b[j] as PendingWrite;
    if (
      x.key !== undefined &&
      x.key === kb[j] &&
      (lcs[i] as number[])[j] === ((lcs[i + 1] as number[])[j + 1] as number) + 1
    ) {
      if (join(x, y)) out.push(x);
      else out.push(x, slotOf(y));
      i++;
      j++;
    } else if (((lcs[i + 1] as number[])[j] as number) >= ((lcs[i] as number[])[j + 1] as number)) {
      out.push(x);
      i++;
    } else {
      out.push(slotOf(y));
      j++;
    }
  }
  out.push(...a.slice(i), ...b.slice(j).map(slotOf));
  return out;
}

/**
 * Gathers `y` into the slot when one statement can do both: the same mergeable statement, every
 * parameter of the kind its merger joins, and no row written twice.
 */
function join(slot: Slot, y: PendingWrite): boolean {
  const first = slot.writes[0] as PendingWrite;
  const merger = mergerOf(first);
  if (!merger || first.sql !== y.sql || !joinable(merger, y)) return false;
  if (slot.seen === undefined) {
    if (!joinable(merger, first)) return false;
    slot.seen = merger.unique.map((positions) => new Set(tuples(first.values, positions)));
  }
  const seen = slot.seen;
  const added = merger.unique.map((positions) => tuples(y.values, positions));
  if (added.some((rows, u) => rows.some((t) => seen[u]?.has(t)))) return false;
  added.forEach((rows, u) => {
    for (const t of rows) seen[u]?.add(t);
  });
  slot.writes.push(y);
  return true;
}

/** Whether each of the write's parameters is of the kind its part joins. */
function joinable(merger: Merger, write: PendingWrite): boolean {
  const { values } = write;
  if (values.length !== merger.parts.length) return false;
  return merger.parts.every((part, n) => {
    const v = values[n];
    switch (part) {
      case 'rows':
      case 'keys':
        return Array.isArray(v);
      case 'count':
        return typeof v === 'number';
      case 'json':
        return typeof v === 'string' && jsonArrayInside(v) !== undefined;
    }
  });
}

/** The slot's one statement: its only write as it is, or the writes' parameters joined. */
function statementOf(slot: Slot): PendingWrite {
  const { writes } = slot;
  const first = writes[0] as PendingWrite;
  const merger = mergerOf(first);
  if (writes.length === 1 || !merger) return first;
  const values = merger.parts.map((part, n) => {
    const column = writes.map((w) => w.values[n]);
    switch (part) {
      case 'rows':
        return concat(column as unknown[][]);
      case 'keys':
        return [...new Set(concat(column as unknown[][]).map(String))].sort();
      case 'count':
        return (column as number[]).reduce((sum, c) => sum + c, 0);
      case 'json': {
        const inside = (column as string[])
          .map(jsonArrayInside)
          .filter((t) => t !== undefined && t.trim() !== '');
        return `[${inside.join(',')}]`;
      }
    }
  });
  return { sql: first.sql, values };
}

/** The arrays one after another (`Array.prototype.flat` is several times slower at this). */
function concat(arrays: readonly unknown[][]): unknown[] {
  const out: unknown[] = [];
  for (const array of arrays) for (const v of array) out.push(v);
  return out;
}

/** What is inside the brackets of a JSON array's text, without parsing it; undefined for other text. */
function jsonArrayInside(text: string): string | undefined {
  const t = text.trim();
  return t.startsWith('[') && t.endsWith(']') ? t.slice(1, -1) : undefined;
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
