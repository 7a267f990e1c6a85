/**
 * The parser of the small language `simple-expression.ts` evaluates: its tokens, and a tree of
 * `Node`s for a script of the language, or `NotSimple` thrown for anything else (which the
 * sandbox then evaluates). Beside one expression (or an `if … else` of expressions, as Conductor's
 * loop conditions are written), a script may be the function Conductor's INLINE tasks and
 * JavaScript SWITCH cases are usually written as, called at once:
 *
 *   (function () { if ($.n > 1) { return { big: true }; } return { big: false }; })();
 *   function e() { return $.a + $.b; } e();
 *
 * whose body is only `return` and `if … else` statements; with no assignment, no call and no
 * variable there is nothing for it to do but choose a value, so it is compiled to the same tree
 * (each `if` a conditional over what follows it). Object and array literals build the answer.
 */

/** A parsed script. `object` and `array` are literals; their values are evaluated in order. */
export type Node =
  | { readonly k: 'lit'; readonly v: string | number | boolean | null | undefined }
  | { readonly k: 'input' }
  | { readonly k: 'member'; readonly of: Node; readonly key: Node }
  | { readonly k: 'unary'; readonly op: '!' | '-' | '+'; readonly x: Node }
  | { readonly k: 'binary'; readonly op: string; readonly a: Node; readonly b: Node }
  | { readonly k: 'cond'; readonly test: Node; readonly yes: Node; readonly no: Node }
  | { readonly k: 'object'; readonly entries: ReadonlyArray<readonly [string, Node]> }
  | { readonly k: 'array'; readonly items: readonly Node[] };

/** Outside the language, or a value the sandbox must decide: the sandbox evaluates it. */
export class NotSimple extends Error {}
export const notSimple = (): never => {
  throw new NotSimple();
};

/** `nl`: a line break comes before the token (after `return` it ends the statement). */
type Token =
  | { readonly t: 'num'; readonly v: number; nl?: true }
  | { readonly t: 'str'; readonly v: string; nl?: true }
  | { readonly t: 'name'; readonly v: string; nl?: true }
  | { readonly t: 'op'; readonly v: string; nl?: true };

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
  ',',
];
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t' };

function tokens(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  // A trailing `;` (and the whitespace around it) ends the statement; nothing may follow.
  const end = text.replace(/\s*;?\s*$/, '').length;
  let nl = false;
  const push = (token: Token): void => {
    if (nl) token.nl = true;
    nl = false;
    out.push(token);
  };
  while (i < end) {
    const c = text[i] as string;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (c === '\n' || c === '\r') nl = true;
      i++;
    } else if (/[0-9]/.test(c)) {
      const m = /^(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?![0-9A-Za-z_$.])/.exec(text.slice(i, end));
      if (!m) return notSimple();
      push({ t: 'num', v: Number(m[0]) });
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
      push({ t: 'str', v: s });
      i = j + 1;
    } else if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(text.slice(i, end)) as RegExpExecArray;
      push({ t: 'name', v: m[0] });
      i += m[0].length;
    } else {
      const op = OPERATORS.find((o) => text.startsWith(o, i) && i + o.length <= end);
      if (op === undefined) return notSimple();
      push({ t: 'op', v: op });
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

export class Parser {
  private readonly list: Token[];
  private at = 0;
  /** Where the statement being read begins: a `{` there opens a block, not an object. */
  private statementStart = 0;
  /** Nodes a function's body may still compile to (its `if`s copy what follows them). */
  private nodesLeft = MAX_FUNCTION_NODES;

  constructor(text: string) {
    this.list = tokens(text);
  }

  whole(): Node {
    if (this.list.length === 0) return notSimple();
    let node: Node;
    if (this.isOp('(') && this.isName('function', 1)) node = this.calledExpression();
    else if (this.isName('function')) node = this.calledDeclaration();
    else node = this.isName('if') ? this.ifStatement() : this.conditional();
    if (this.at !== this.list.length) return notSimple();
    return node;
  }

  /** `(function () { … })()` or `(function () { … }())`. */
  private calledExpression(): Node {
    this.expect('(');
    const { body } = this.functionBody(false);
    if (this.isOp(')')) {
      this.at++;
      this.expect('(');
      this.expect(')');
    } else {
      this.expect('(');
      this.expect(')');
      this.expect(')');
    }
    return body;
  }

  /** `function name() { … } name()`: the script's value is the call's. */
  private calledDeclaration(): Node {
    const { name, body } = this.functionBody(true);
    if (this.isOp(';')) this.at++;
    const call = this.peek();
    if (call?.t !== 'name' || call.v !== name) return notSimple();
    this.at++;
    this.expect('(');
    this.expect(')');
    return body;
  }

  /**
   * `function [name]() { statements }`, compiled. A name of `$` would hide the input inside
   * the body, so it is not of the language.
   */
  private functionBody(named: boolean): { name: string | undefined; body: Node } {
    this.at++;
    let name: string | undefined;
    const t = this.peek();
    if (t?.t === 'name') {
      if (t.v === '$') return notSimple();
      name = t.v;
      this.at++;
    } else if (named) {
      return notSimple();
    }
    this.expect('(');
    this.expect(')');
    this.expect('{');
    const statements = this.statements();
    this.expect('}');
    return { name, body: this.compiled(statements, []) };
  }

  /** Statements up to the `}` that ends their block (not taken). */
  private statements(): Statement[] {
    const list: Statement[] = [];
    while (!this.isOp('}')) {
      if (this.peek() === undefined) return notSimple();
      const s = this.statement();
      if (s !== undefined) list.push(s);
    }
    return list;
  }

  /** `return [value];`, `if (test) … [else …]`, or an empty `;` (undefined). */
  private statement(): Statement | undefined {
    if (this.isOp(';')) {
      this.at++;
      return undefined;
    }
    if (this.isName('return')) {
      this.at++;
      const next = this.peek();
      // A line break after `return` ends the statement (automatic semicolon insertion).
      if (next?.nl) return notSimple();
      if (this.isOp(';') || this.isOp('}')) {
        if (this.isOp(';')) this.at++;
        return { s: 'return', value: { k: 'lit', v: undefined } };
      }
      const value = this.conditional();
      if (this.isOp(';')) this.at++;
      else if (!this.isOp('}') && !this.peek()?.nl) return notSimple();
      return { s: 'return', value };
    }
    if (this.isName('if')) {
      this.at++;
      this.expect('(');
      const test = this.conditional();
      this.expect(')');
      const yes = this.branch();
      let no: Statement[] = [];
      if (this.isName('else')) {
        this.at++;
        no = this.branch();
      }
      return { s: 'if', test, yes, no };
    }
    return notSimple();
  }

  /** An `if`'s branch: a block, or one statement. */
  private branch(): Statement[] {
    if (this.isOp('{')) {
      this.at++;
      const list = this.statements();
      this.expect('}');
      return list;
    }
    const s = this.statement();
    return s === undefined ? [] : [s];
  }

  /** The value `statements` return, then those of `rest` when they fall through; undefined at the end. */
  private compiled(statements: readonly Statement[], rest: readonly Statement[]): Node {
    if (--this.nodesLeft < 0) return notSimple();
    const [s, ...more] = statements;
    if (s === undefined) return rest.length > 0 ? this.compiled(rest, []) : { k: 'lit', v: undefined };
    if (s.s === 'return') return s.value;
    const after = [...more, ...rest];
    return { k: 'cond', test: s.test, yes: this.compiled(s.yes, after), no: this.compiled(s.no, after) };
  }

  private isName(v: string, ahead = 0): boolean {
    const t = this.list[this.at + ahead];
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
    this.statementStart = this.at;
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
    // At a statement's start `{` opens a block (`{ $.run }` is not an object).
    if (t.v === '{' && this.at - 1 !== this.statementStart) return this.objectLiteral();
    if (t.v === '[') return this.arrayLiteral();
    return notSimple();
  }

  /**
   * `{ key: value, … }` (its `{` taken), keys names or strings. A key that is an array index
   * (ordered before the others in any engine, but left to the sandbox all the same) or
   * `__proto__` (which sets the prototype) is not of the language; nor are computed keys,
   * shorthand, methods or spreads.
   */
  private objectLiteral(): Node {
    const entries: Array<readonly [string, Node]> = [];
    while (!this.isOp('}')) {
      const key = this.peek();
      if (key?.t !== 'name' && key?.t !== 'str') return notSimple();
      if (key.v === '__proto__' || /^(?:0|[1-9][0-9]*)$/.test(key.v)) return notSimple();
      this.at++;
      this.expect(':');
      entries.push([key.v, this.conditional()]);
      if (!this.isOp(',')) break;
      this.at++;
    }
    this.expect('}');
    return { k: 'object', entries };
  }

  /** `[a, b, …]` (its `[` taken); no holes and no trailing comma. */
  private arrayLiteral(): Node {
    const items: Node[] = [];
    if (!this.isOp(']')) {
      for (;;) {
        items.push(this.conditional());
        if (!this.isOp(',')) break;
        this.at++;
      }
    }
    this.expect(']');
    return { k: 'array', items };
  }
}

/** A function body's statements: nothing in them can do anything but choose the value. */
type Statement =
  | { readonly s: 'return'; readonly value: Node }
  | {
      readonly s: 'if';
      readonly test: Node;
      readonly yes: readonly Statement[];
      readonly no: readonly Statement[];
    };

/** The most nodes a function body compiles to; each `if` copies the statements after it. */
const MAX_FUNCTION_NODES = 256;

/** `??` beside `&&` or `||` (either side) is a SyntaxError without parentheses. */
function isLogical(inner: string, outer: string): boolean {
  const mixed = (a: string, b: string): boolean => a === '??' && (b === '&&' || b === '||');
  return mixed(inner, outer) || mixed(outer, inner);
}
