import { JSONPath } from 'jsonpath-plus';
import type { JsonObject, JsonValue, RunRecord, TaskRecord, TemplateSecretRef } from '@baton/protocol';

/**
 * Conductor's `${…}` parameter expressions (docs/design/definitions.md#expressions-and-scripts),
 * without the part that reads the server's environment: nothing here can see an environment
 * variable, a system property or anything outside the document it is given.
 */

/** The document expressions are evaluated against: `{workflow: {...}, <ref>: {...}}`. */
export type ExpressionDocument = Readonly<Record<string, unknown>>;

export interface ResolveOptions {
  /** Id of the task being created: the value of `${CPEWF_TASK_ID}`. */
  readonly taskId?: string;
}

/** Where resolution is in the value: the path of the string, and the refs found so far. */
interface SecretMarks {
  readonly path: Array<string | number>;
  readonly refs: TemplateSecretRef[];
}

const TASK_ID_NAME = 'CPEWF_TASK_ID';
/**
 * `${workflow.secrets.NAME}` is never resolved here: it stays literal text in every stored
 * input and is replaced only in the copy a call is made with (integrations/secrets), so no
 * record ever holds a secret's value. `resolveTemplate` also says where the template itself
 * wrote one: a value read from the document (run input, outputs, variables) is data, and the
 * same text arriving that way is never marked, so it is never honoured.
 */
const SECRET_PATH = /^(?:\$\.)?workflow\.secrets\./;
/**
 * Loop iterations carry `__N` in their ref (`__N__M` inside nested loops); expressions see the
 * ref without it.
 */
const ITERATION_SUFFIX = /(__\d+)+$/;

/** The name a task has in the expression document: its ref without loop-iteration suffixes. */
export function documentRefOf(task: Pick<TaskRecord, 'referenceTaskName' | 'iteration'>): string {
  return task.iteration > 0 ? task.referenceTaskName.replace(ITERATION_SUFFIX, '') : task.referenceTaskName;
}

/**
 * Builds the expression document. Cheap: it makes one small object per run and per task ref
 * that points at the records' own input/output (nothing is copied); values an expression
 * yields are copied on the way out, so the records are never shared with new ones.
 */
export function buildExpressionDocument(run: RunRecord, tasks: readonly TaskRecord[]): ExpressionDocument {
  const doc: Record<string, unknown> = {};
  // Tasks come in seq order, so a later attempt (or iteration) of a ref replaces an earlier one.
  for (const task of tasks) doc[documentRefOf(task)] = taskView(task);
  doc.workflow = workflowView(run);
  return doc;
}

/** The `workflow` entry of the expression document. */
export function workflowView(run: RunRecord): Record<string, unknown> {
  return {
    input: run.input,
    output: run.output,
    status: run.status,
    workflowId: run.workflowId,
    parentWorkflowId: run.parentWorkflowId ?? null,
    parentWorkflowTaskId: run.parentWorkflowTaskId ?? null,
    workflowType: run.workflowName,
    version: run.workflowVersion,
    correlationId: run.correlationId ?? null,
    reasonForIncompletion: run.reasonForIncompletion ?? null,
    schemaVersion: run.workflowDefinition.schemaVersion ?? 2,
    variables: run.variables,
  };
}

/** The entry of one task in the expression document. */
export function taskView(task: TaskRecord): Record<string, unknown> {
  return {
    input: task.inputData,
    output: task.outputData,
    taskType: task.taskType,
    status: task.status,
    referenceTaskName: task.referenceTaskName,
    retryCount: task.retryCount,
    correlationId: task.correlationId ?? null,
    pollCount: task.pollCount,
    taskDefName: task.taskDefName,
    scheduledTime: task.scheduledTime,
    startTime: task.startTime,
    endTime: task.endTime,
    workflowInstanceId: task.workflowInstanceId,
    taskId: task.taskId,
    reasonForIncompletion: task.reasonForIncompletion ?? null,
    callbackAfterSeconds: task.callbackAfterSeconds,
    workerId: task.workerId ?? null,
    iteration: task.iteration,
  };
}

/** Resolves every expression in a parameter map (recursively). The input is not changed. */
export function resolveParameters(
  params: JsonObject,
  doc: ExpressionDocument,
  opts: ResolveOptions = {},
): JsonObject {
  return resolveObject(params, doc, opts, undefined);
}

/** Resolves every expression in one JSON value (recursively). */
export function resolveValue(
  value: JsonValue,
  doc: ExpressionDocument,
  opts: ResolveOptions = {},
): JsonValue {
  return resolveAt(value, doc, opts, undefined);
}

/**
 * `resolveParameters`, and where the template wrote a secret reference in the result: the
 * span of each `${workflow.secrets.NAME}` the template's own text produced (those a value read
 * from the document carries are not listed).
 */
export function resolveTemplate(
  params: JsonObject,
  doc: ExpressionDocument,
  opts: ResolveOptions = {},
): { input: JsonObject; secretRefs: TemplateSecretRef[] } {
  const marks: SecretMarks = { path: [], refs: [] };
  return { input: resolveObject(params, doc, opts, marks), secretRefs: marks.refs };
}

function resolveObject(
  params: JsonObject,
  doc: ExpressionDocument,
  opts: ResolveOptions,
  marks: SecretMarks | undefined,
): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(params))
    out[key] = resolveAt(value, doc, opts, marks && { path: [...marks.path, key], refs: marks.refs });
  return out;
}

function resolveAt(
  value: JsonValue,
  doc: ExpressionDocument,
  opts: ResolveOptions,
  marks: SecretMarks | undefined,
): JsonValue {
  if (typeof value === 'string') return resolveString(value, doc, opts, 0, marks);
  if (Array.isArray(value))
    return value.map((item, index) =>
      resolveAt(item, doc, opts, marks && { path: [...marks.path, index], refs: marks.refs }),
    );
  if (value !== null && typeof value === 'object') return resolveObject(value, doc, opts, marks);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Scanning

interface Segment {
  /** `${` position. */
  readonly start: number;
  /** Index just past the closing `}`. */
  readonly end: number;
  /** The text between `${` and `}` (may itself hold expressions). */
  readonly inner: string;
}

/**
 * Splits a string into literal text and `${…}` expressions. `$${` is an escape: it is not an
 * expression, and turns into a literal `${` when the string is interpolated. Braces nest, so
 * `${a.${b}}` is one expression whose path holds another. An unclosed `${` stays literal.
 */
function scan(text: string): Segment[] {
  const segments: Segment[] = [];
  let i = 0;
  while (i < text.length) {
    const at = text.indexOf('${', i);
    if (at < 0) break;
    if (at > 0 && text[at - 1] === '$') {
      i = at + 2; // escaped `$${`
      continue;
    }
    const close = matchingBrace(text, at + 1);
    if (close < 0) break;
    segments.push({ start: at, end: close + 1, inner: text.slice(at + 2, close) });
    i = close + 1;
  }
  return segments;
}

/** Index of the `}` closing the `{` at `open`, counting nested braces; -1 when unclosed. */
function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function unescape(text: string): string {
  return text.includes('$${') ? text.replaceAll('$${', '${') : text;
}

function resolveString(
  text: string,
  doc: ExpressionDocument,
  opts: ResolveOptions,
  depth = 0,
  marks?: SecretMarks,
): JsonValue {
  if (!text.includes('${')) return text;
  const segments = scan(text);
  if (segments.length === 0) return unescape(text);
  const values = segments.map((seg) => evaluateSegment(seg.inner, doc, opts, depth));
  const only = segments[0];
  const onlyValue = values[0];
  if (depth === 0 && segments.length === 1 && only && only.start === 0 && only.end === text.length) {
    if (marks && onlyValue?.secret === true && typeof onlyValue.value === 'string')
      marks.refs.push({ path: marks.path, start: 0, end: onlyValue.value.length });
    return onlyValue?.value ?? null;
  }
  let out = '';
  let last = 0;
  segments.forEach((seg, index) => {
    out += unescape(text.slice(last, seg.start));
    const result = values[index];
    const piece = stringify(result?.value ?? null);
    // Only a reference written in the template's own text is marked (never a nested one).
    if (marks && depth === 0 && result?.secret === true)
      marks.refs.push({ path: marks.path, start: out.length, end: out.length + piece.length });
    out += piece;
    last = seg.end;
  });
  return out + unescape(text.slice(last));
}

/** A segment's value; `secret` when it is a `${workflow.secrets.…}` reference kept as text. */
interface SegmentValue {
  readonly value: JsonValue;
  readonly secret?: true;
}

function evaluateSegment(
  inner: string,
  doc: ExpressionDocument,
  opts: ResolveOptions,
  depth: number,
): SegmentValue {
  // Nested expressions are resolved first, always as text: `${workflow.input.${workflow.input.key}}`.
  const resolved = inner.includes('${') ? resolveString(inner, doc, opts, depth + 1) : inner;
  const nested = resolved !== inner;
  const path = (typeof resolved === 'string' ? resolved : stringify(resolved)).trim();
  if (path === '') return { value: '' };
  if (path === TASK_ID_NAME) return { value: opts.taskId ?? null };
  // A reference whose name was computed from the document is data, kept as text unmarked.
  if (SECRET_PATH.test(path))
    return nested ? { value: `\${${path}}` } : { value: `\${${path}}`, secret: true };
  return { value: readPath(doc, path) };
}

function stringify(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

// ---------------------------------------------------------------------------------------------
// Path evaluation

/** `a.b[0]['c d'].e` with nothing else: walked by hand (fast, and no script evaluation). */
const SIMPLE_PATH =
  /^(?:\$\.?)?[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*|\[\d+\]|\['[^'\]]*'\]|\["[^"\]]*"\])*(?:\.length\(\))?$/;
const SIMPLE_TOKEN = /\.?([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['([^'\]]*)'\]|\["([^"\]]*)"\]/g;

/**
 * Reads a JSONPath (leading `$.` optional) from the document, as Conductor's Jayway JsonPath
 * with SUPPRESS_EXCEPTIONS: a missing definite path is `null`; an indefinite path (`..`, `*`,
 * filters, unions, slices) yields a list of matches.
 */
function readPath(doc: ExpressionDocument, rawPath: string): JsonValue {
  if (SIMPLE_PATH.test(rawPath)) return readSimplePath(doc, rawPath);
  const path = rawPath.startsWith('$') ? rawPath : rawPath.startsWith('[') ? `$${rawPath}` : `$.${rawPath}`;
  let matches: unknown;
  try {
    // eval 'safe': jsonpath-plus's own small interpreter for filters (no vm, no Function).
    matches = JSONPath({ path, json: doc as object, wrap: true, eval: 'safe', ignoreEvalErrors: true });
  } catch {
    return null;
  }
  if (!Array.isArray(matches)) return null;
  const values = matches.map((m) => toJson(m));
  if (isDefinite(path)) return values[0] ?? null;
  return values;
}

function readSimplePath(doc: ExpressionDocument, rawPath: string): JsonValue {
  let path = rawPath.startsWith('$') ? rawPath.slice(rawPath[1] === '.' ? 2 : 1) : rawPath;
  const wantsLength = path.endsWith('.length()');
  if (wantsLength) path = path.slice(0, -'.length()'.length);
  let current: unknown = doc;
  for (const match of path.matchAll(SIMPLE_TOKEN)) {
    const index = match[2];
    if (index !== undefined) {
      if (!Array.isArray(current)) return null;
      current = current[Number(index)];
    } else {
      const key = match[1] ?? match[3] ?? match[4] ?? '';
      if (current === null || typeof current !== 'object' || Array.isArray(current)) return null;
      if (!Object.hasOwn(current, key)) return null;
      current = (current as Record<string, unknown>)[key];
    }
    if (current === undefined) return null;
  }
  if (wantsLength) {
    if (Array.isArray(current) || typeof current === 'string') return current.length;
    if (current !== null && typeof current === 'object') return Object.keys(current).length;
    return null;
  }
  return toJson(current);
}

function isDefinite(path: string): boolean {
  if (path.includes('..') || path.includes('*') || path.includes('?(') || path.includes('(')) return false;
  // Unions (`[0,1]`, `['a','b']`) and slices (`[1:3]`) outside quotes make a path indefinite.
  for (const bracket of path.matchAll(/\[([^\]]*)\]/g)) {
    const body = (bracket[1] ?? '').replace(/'[^']*'|"[^"]*"/g, '');
    if (body.includes(',') || body.includes(':')) return false;
  }
  return true;
}

/** Copies a value read from the document into plain JSON (nothing shared with the records). */
function toJson(value: unknown): JsonValue {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map((item) => toJson(item));
  if (typeof value === 'object' && value !== null) {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) out[key] = toJson(item);
    }
    return out;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Static analysis (registration checks)

/**
 * The first path segment of every `${…}` in a value (nested ones included), in order of first
 * appearance: `${t1.output.x}` → `t1`, `${workflow.input}` → `workflow`. A segment that is
 * itself computed by an expression cannot be known statically and is left out.
 */
export function referencedTaskRefs(value: unknown): string[] {
  const found = new Set<string>();
  collectRefs(value, found);
  return [...found];
}

function collectRefs(value: unknown, found: Set<string>): void {
  if (typeof value === 'string') {
    for (const expression of expressionsIn(value)) {
      const first = firstSegment(expression);
      if (first !== undefined) found.add(first);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, found);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) collectRefs(item, found);
  }
}

/** The inner text of every expression of a string, nested ones included (outer first). */
export function expressionsIn(text: string): string[] {
  if (!text.includes('${')) return [];
  const out: string[] = [];
  for (const seg of scan(text)) {
    out.push(seg.inner);
    out.push(...expressionsIn(seg.inner));
  }
  return out;
}

function firstSegment(expression: string): string | undefined {
  let path = expression.trim();
  if (path.startsWith('$.')) path = path.slice(2);
  else if (path.startsWith('$[')) path = path.slice(1);
  if (path === '') return undefined;
  const bracket = /^\[\s*(['"])(.*?)\1\s*\]/.exec(path);
  if (bracket) return bracket[2];
  const head = /^[^.[]+/.exec(path)?.[0]?.trim();
  if (head === undefined || head === '' || head.includes('${') || head.includes('$')) return undefined;
  return head;
}
