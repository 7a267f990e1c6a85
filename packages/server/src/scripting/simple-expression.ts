import type { JsonValue } from '@baton/protocol';

import type { ScriptResult } from '../engine/index.js';
import { outputBudget, type ScriptLimits } from './limits.js';

/**
 * The JavaScript most SWITCH cases and INLINE expressions are: one expression over `$` (`$.run % 2
 * === 0 ? "even" : "odd"`, `$.status == 'ok' && $.count > 3`). Each evaluation in the sandbox
 * makes a fresh QuickJS runtime and context on a script thread and waits for its answer; an
 * expression of this small language is evaluated here, on the caller's thread, in microseconds.
 *
 * The answer must be the one the sandbox gives, so the language is what this code can evaluate
 * exactly as any ECMAScript engine does, and anything else is left to the sandbox (`undefined`):
 *
 *   - literals (decimal numbers without exponent, strings with simple escapes, `true`, `false`,
 *     `null`, `undefined`), `$`, parentheses;
 *   - member access (`.name`, `[literal or expression]`) on the input's own data only: a plain
 *     object's own field or an array's element or `length`, a string's `length` or character. A
 *     field not there reads `undefined` unless the prototype (or the sandbox's prelude) has it;
 *     a value JSON would not carry across (undefined, NaN, -0, an array hole, a class instance)
 *     and a read of null or undefined (a TypeError) go to the sandbox;
 *   - `!`, unary `-` and `+`, `* / % + -`, `< <= > >=`, `== != === !==`, `&& || ??`, `? :`, with
 *     the host's own operators, which ECMAScript defines exactly. Operands other than `===`,
 *     `!==`, `!` and the logical ones must be primitives (no object conversion), and a number
 *     joined to a string must be a safe integer (no question of how a fraction prints);
 *   - an optional `;` at the end, or an `if (…) { … } else { … }` of such expressions (Conductor's
 *     loop conditions). No calls, no assignment, no other identifiers, no comments.
 *
 * The answer goes through JSON as the sandbox's does (`undefined` → null), and one larger than
 * the output budget goes to the sandbox, which refuses it in its own words. Strings made here stop
 * at the budget too, so an expression cannot build a large string the sandbox's memory cap would
 * have stopped.
 */
export function simpleJavascript(
  script: string,
  input: JsonValue,
  limits: ScriptLimits,
): ScriptResult<JsonValue> | undefined {
  const tree = parsed(script);
  if (tree === undefined) return undefined;
  const budget = outputBudget(limits);
  try {
    const value = evaluate(tree, input, budget);
    const json = JSON.stringify(value === undefined ? null : value) as string | undefined;
    if (json === undefined || Buffer.byteLength(json) > budget) return undefined;
    return { ok: true, value: JSON.parse(json) as JsonValue };
  } catch (err) {
    if (err instanceof NotSimple) return undefined;
    throw err;
  }
}

type Node =
  | { readonly k: 'lit'; readonly v: string | number | boolean | null | undefined }
  | { readonly k: 'input' }
  | { readonly k: 'member'; readonly of: Node; readonly key: Node }
  | { readonly k: 'unary'; readonly op: '!' | '-' | '+'; readonly x: Node }
  | { readonly k: 'binary'; readonly op: string; readonly a: Node; readonly b: Node }
  | { readonly k: 'cond'; readonly test: Node; readonly yes: Node; readonly no: Node };

/** Parsed expressions by their text; `null`: not of this language. Cleared when full. */
const trees = new Map<string, Node | null>();
const MAX_TREES = 512;
/** Longer scripts are not what this is for. */
const MAX_SCRIPT_CHARS = 2_000;

function parsed(script: string): Node | undefined {
  const known = trees.get(script);
  if (known !== undefined) return known ?? undefined;
  let tree: Node | null = null;
  if (script.length <= MAX_SCRIPT_CHARS) {
    try {
      tree = new Parser(script).whole();
    } catch (err) {
      if (!(err instanceof NotSimple)) throw err;
    }
  }
  if (trees.size >= MAX_TREES) trees.clear();
  trees.set(script, tree);
  return tree ?? undefined;
}

/** Outside the language, or a value the sandbox must decide: the sandbox evaluates it. */
class NotSimple extends Error {}
const notSimple = (): never => {
  throw new NotSimple();
};

type Token =
  | { readonly t: 'num'; readonly v: number }
  | { readonly t: 'str'; readonly v: string }
  | { readonly t: 'name'; readonly v: string }
  | { readonly t: 'op'; readonly v: string };

// Longest first. `++`, `--`, `**`, `=>` and `?.` are here only to be refused: read as two
// operators of this language they would mean something else.
const OPERATORS = [
  '===',
  '++',
  '--',
  '**',
  '=>',
  '?.',
  '!==',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '!',
  '?',
  ':',
  '.',
  '[',
  ']',
  '(',
  ')',
  '{',
  '}',
  ';',
];
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t' };

function tokens(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  // A trailing `;` (and the whitespace around it) ends the statement; nothing may follow.
  const end = text.replace(/\s*;?\s*$/, '').length;
  while (i < end) {
    const c = text[i] as string;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (/[0-9]/.test(c)) {
      const m = /^(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?![0-9A-Za-z_$.])/.exec(text.slice(i, end));
      if (!m) return notSimple();
      out.push({ t: 'num', v: Number(m[0]) });
      i += m[0].length;
    } else if (c === '"' || c === "'") {
      let s = '';
      let j = i + 1;
      for (;;) {
        if (j >= end) return notSimple();
        const d = text[j] as string;
        if (d === c) break;
        if (d === '\n' || d === '\r') return notSimple();
        if (d === '\\') {
          const e = ESCAPES[text[j + 1] ?? ''];
          if (e === undefined) return notSimple();
          s += e;
          j += 2;
        } else {
          s += d;
          j++;
        }
      }
      out.push({ t: 'str', v: s });
      i = j + 1;
    } else if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(text.slice(i, end)) as RegExpExecArray;
      out.push({ t: 'name', v: m[0] });
      i += m[0].length;
    } else {
      const op = OPERATORS.find((o) => text.startsWith(o, i) && i + o.length <= end);
      if (op === undefined) return notSimple();
      out.push({ t: 'op', v: op });
      i += op.length;
    }
  }
  return out;
}

/** Binding powers of the binary operators (higher binds tighter), as ECMAScript orders them. */
const BINARY: Readonly<Record<string, number>> = {
  '??': 1,
  '||': 2,
  '&&': 3,
  '==': 4,
  '!=': 4,
  '===': 4,
  '!==': 4,
  '<': 5,
  '>': 5,
  '<=': 5,
  '>=': 5,
  '+': 6,
  '-': 6,
  '*': 7,
  '/': 7,
  '%': 7,
};

class Parser {
  private readonly list: Token[];
  private at = 0;

  constructor(text: string) {
    this.list = tokens(text);
  }

  whole(): Node {
    if (this.list.length === 0) return notSimple();
    const node = this.isName('if') ? this.ifStatement() : this.conditional();
    if (this.at !== this.list.length) return notSimple();
    return node;
  }

  private isName(v: string): boolean {
    const t = this.peek();
    return t?.t === 'name' && t.v === v;
  }

  /**
   * `if (test) { a; } else { b; }` (Conductor's loop conditions are written so), `else if` chains
   * and no `else`: the script's value is the value of the branch taken, undefined for none.
   */
  private ifStatement(): Node {
    this.at++;
    this.expect('(');
    const test = this.conditional();
    this.expect(')');
    const yes = this.block();
    let no: Node = { k: 'lit', v: undefined };
    if (this.isName('else')) {
      this.at++;
      no = this.isName('if') ? this.ifStatement() : this.block();
    }
    return { k: 'cond', test, yes, no };
  }

  /** `{ expression; }` (the `;` optional). */
  private block(): Node {
    this.expect('{');
    const value = this.conditional();
    if (this.isOp(';')) this.at++;
    this.expect('}');
    return value;
  }

  private peek(): Token | undefined {
    return this.list[this.at];
  }

  private isOp(v: string): boolean {
    const t = this.peek();
    return t?.t === 'op' && t.v === v;
  }

  private expect(v: string): void {
    if (!this.isOp(v)) notSimple();
    this.at++;
  }

  private conditional(): Node {
    const test = this.binary(1);
    if (!this.isOp('?')) return test;
    this.at++;
    const yes = this.conditional();
    this.expect(':');
    const no = this.conditional();
    return { k: 'cond', test, yes, no };
  }

  private binary(min: number): Node {
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      if (t?.t !== 'op') return left;
      const op = t.v;
      const power = BINARY[op];
      if (power === undefined || power < min) return left;
      this.at++;
      const right = this.binary(power + 1);
      // ECMAScript refuses `??` beside `&&` or `||` without parentheses (and the tree no longer
      // knows where they were): left to the sandbox either way.
      if ([left, right].some((n) => n.k === 'binary' && isLogical(n.op, op))) return notSimple();
      left = { k: 'binary', op, a: left, b: right };
    }
  }

  private unary(): Node {
    const t = this.peek();
    if (t?.t === 'op' && (t.v === '!' || t.v === '-' || t.v === '+')) {
      this.at++;
      return { k: 'unary', op: t.v, x: this.unary() };
    }
    return this.member();
  }

  private member(): Node {
    let node = this.primary();
    for (;;) {
      if (this.isOp('.')) {
        this.at++;
        const name = this.peek();
        if (name?.t !== 'name') return notSimple();
        this.at++;
        node = { k: 'member', of: node, key: { k: 'lit', v: name.v } };
      } else if (this.isOp('[')) {
        this.at++;
        const key = this.conditional();
        this.expect(']');
        node = { k: 'member', of: node, key };
      } else {
        return node;
      }
    }
  }

  private primary(): Node {
    const t = this.peek();
    if (t === undefined) return notSimple();
    this.at++;
    if (t.t === 'num' || t.t === 'str') return { k: 'lit', v: t.v };
    if (t.t === 'name') {
      switch (t.v) {
        case '$':
          return { k: 'input' };
        case 'true':
          return { k: 'lit', v: true };
        case 'false':
          return { k: 'lit', v: false };
        case 'null':
          return { k: 'lit', v: null };
        case 'undefined':
          return { k: 'lit', v: undefined };
        default:
          return notSimple();
      }
    }
    if (t.v === '(') {
      const inner = this.conditional();
      this.expect(')');
      return inner;
    }
    return notSimple();
  }
}

/** `??` beside `&&` or `||` (either side) is a SyntaxError without parentheses. */
function isLogical(inner: string, outer: string): boolean {
  const mixed = (a: string, b: string): boolean => a === '??' && (b === '&&' || b === '||');
  return mixed(inner, outer) || mixed(outer, inner);
}

type Primitive = string | number | boolean | null | undefined;

function isPrimitive(v: unknown): v is Primitive {
  return v === null || (typeof v !== 'object' && typeof v !== 'function');
}

function primitive(v: unknown): Primitive {
  return isPrimitive(v) ? v : notSimple();
}

/** Keys a value may have through its prototype (here or in the sandbox's prelude): left to the sandbox. */
const INHERITED = new Set<string>([
  ...Object.getOwnPropertyNames(Object.prototype),
  ...Object.getOwnPropertyNames(Array.prototype),
  ...Object.getOwnPropertyNames(String.prototype),
  'get',
  'size',
]);

function evaluate(node: Node, input: JsonValue, maxChars: number): unknown {
  const ev = (n: Node): unknown => {
    switch (n.k) {
      case 'lit':
        return n.v;
      case 'input':
        return carried(input);
      case 'member':
        return read(ev(n.of), ev(n.key));
      case 'unary': {
        const x = ev(n.x);
        if (n.op === '!') return !x;
        return n.op === '-' ? -(primitive(x) as number) : +(primitive(x) as number);
      }
      case 'cond':
        return ev(n.test) ? ev(n.yes) : ev(n.no);
      case 'binary':
        return binary(n.op, n.a, n.b);
    }
  };
  const binary = (op: string, an: Node, bn: Node): unknown => {
    const a = ev(an);
    switch (op) {
      case '&&':
        return a ? ev(bn) : a;
      case '||':
        return a ? a : ev(bn);
      case '??':
        return a ?? ev(bn);
    }
    const b = ev(bn);
    if (op === '===') return a === b;
    if (op === '!==') return a !== b;
    const x = primitive(a) as number;
    const y = primitive(b) as number;
    switch (op) {
      case '==':
        return x == y;
      case '!=':
        return x != y;
      case '<':
        return x < y;
      case '>':
        return x > y;
      case '<=':
        return x <= y;
      case '>=':
        return x >= y;
      case '-':
        return x - y;
      case '*':
        return x * y;
      case '/':
        return x / y;
      case '%':
        return x % y;
      case '+': {
        if (typeof x === 'string' || typeof y === 'string') {
          for (const v of [x, y]) if (typeof v === 'number' && !Number.isSafeInteger(v)) notSimple();
          // What `+` does when either side is a string: both to strings, joined.
          const s = String(x) + String(y);
          return s.length > maxChars ? notSimple() : s;
        }
        return x + y;
      }
    }
    return notSimple();
  };
  return ev(node);
}

/** A property of a value of the input, as the sandbox's JSON copy of the input would answer it. */
function read(of: unknown, rawKey: unknown): unknown {
  let key: string;
  if (typeof rawKey === 'string') key = rawKey;
  else if (typeof rawKey === 'number' && Number.isSafeInteger(rawKey) && rawKey >= 0) key = String(rawKey);
  else return notSimple();
  if (typeof of === 'string') {
    if (key === 'length') return of.length;
    const i = index(key);
    return i !== undefined && i < of.length ? of[i] : notSimple();
  }
  if (typeof of !== 'object' || of === null) return notSimple();
  if (Array.isArray(of)) {
    if (key === 'length') return of.length;
    const i = index(key);
    if (i !== undefined) {
      if (i >= of.length) return undefined;
      return Object.hasOwn(of, key) ? carried(of[i]) : notSimple();
    }
    return INHERITED.has(key) || key.startsWith('__') ? notSimple() : undefined;
  }
  if (Object.hasOwn(of, key)) return carried((of as Record<string, unknown>)[key]);
  return INHERITED.has(key) || key.startsWith('__') ? notSimple() : undefined;
}

/** An array index in canonical form ("0", "12"; not "01" or "1.0"). */
function index(key: string): number | undefined {
  if (!/^(?:0|[1-9][0-9]{0,8})$/.test(key)) return undefined;
  return Number(key);
}

/** A value read from the input, if JSON carries it across unchanged; else the sandbox decides. */
function carried(v: unknown): unknown {
  if (v === undefined) return notSimple();
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) ? v : notSimple();
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return notSimple();
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return notSimple();
  }
  if (typeof v === 'bigint' || typeof v === 'symbol' || typeof v === 'function') return notSimple();
  return v;
}
