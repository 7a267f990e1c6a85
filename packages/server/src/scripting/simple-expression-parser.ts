import { type Global, isMethodCall, isStaticCall } from './simple-expression-calls.js';
import { notSimple, type Token, tokens, UNDECLARABLE } from './simple-expression-tokens.js';

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
 * whose body is only `return`, `if … else` and `const` / `let` / `var` statements (each name given a
 * value once, read only after); with no assignment, and no call but of built-ins that only answer
 * (simple-expression-calls.ts), there is nothing for it to do but choose a value, so it is
 * compiled to the same tree (each `if` a conditional over what follows it, each declaration made
 * once where it stands). Object and array literals build the answer. A list method's argument may
 * be a function of the same kind (`x => x.id`, `function (x) { return …; }`), compiled to a tree
 * whose parameters take their values at each call.
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
  | { readonly k: 'array'; readonly items: readonly Node[] }
  // A built-in call (simple-expression-calls.ts): `Math.max(…)`, `Array.isArray(…)`, or a method
  // of a value (`$.name.startsWith('a')`).
  // A function given to a list's `map`, `filter`, … (only as a call's argument): its parameters
  // are given their values at each call, then `body` is its value.
  | { readonly k: 'fn'; readonly params: readonly Binding[]; readonly body: Node }
  | {
      readonly k: 'call';
      readonly on: Node | Global;
      readonly name: string;
      readonly args: readonly Node[];
    }
  // A function's `const`, `let` or `var`: its value made once where it is declared, then `body`.
  | { readonly k: 'let'; readonly bound: Binding; readonly body: Node }
  | { readonly k: 'ref'; readonly bound: Binding };

/** A name a function's body declared; the object is the key its value is kept under. */
export interface Binding {
  readonly name: string;
  readonly init: Node;
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
  /** The names in scope inside a function's body, innermost block last (none outside one). */
  private scopes: Array<Map<string, Binding>> = [];
  /** Every name the function declares anywhere (its own name too), and those declared by `var`. */
  private readonly declared = new Set<string>();
  private readonly varNames = new Set<string>();
  private functionName: string | undefined;

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
      this.declared.add(name);
      this.functionName = name;
      this.at++;
    } else if (named) {
      return notSimple();
    }
    this.expect('(');
    this.expect(')');
    const statements = this.bodyBlock();
    return { name, body: this.compiled(statements, []) };
  }

  /** `{ statements }`, whose declarations are seen only inside it. */
  private bodyBlock(): Statement[] {
    this.expect('{');
    this.scopes.push(new Map());
    const list = this.statements();
    this.scopes.pop();
    this.expect('}');
    return list;
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

  /**
   * `return [value];`, `if (test) … [else …]`, `const name = value;` (or `let`, `var`), or an
   * empty `;` (undefined). `inBlock`: a declaration may stand here (not as an `if`'s one statement).
   */
  private statement(inBlock = true): Statement | undefined {
    if (this.isOp(';')) {
      this.at++;
      return undefined;
    }
    const t = this.peek();
    if (t?.t === 'name' && (t.v === 'const' || t.v === 'let' || t.v === 'var')) {
      if (!inBlock) return notSimple();
      this.at++;
      return this.declaration(t.v);
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
      this.endOfStatement();
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

  /**
   * `name = value;` after `const`, `let` or `var`: one name, given a value, declared once in the
   * whole function and used only after it (a `var` read before, or after the block it is in,
   * reads undefined in an engine: here that name is unknown, so the script goes to the sandbox).
   */
  private declaration(kind: string): Statement {
    const t = this.peek();
    if (t?.t !== 'name' || UNDECLARABLE.has(t.v)) return notSimple();
    // No shadowing, and a `var` (which belongs to the whole function) only in the function's own
    // block and under a name nothing else there declares; `let` and `const` of sibling blocks may
    // share a name.
    if (kind === 'var' ? this.scopes.length !== 1 || this.declared.has(t.v) : this.visible(t.v))
      return notSimple();
    if (this.varNames.has(t.v)) return notSimple();
    this.at++;
    this.expect('=');
    // Its own name is not in scope yet: a declaration that reads itself is left to the sandbox.
    const init = this.conditional();
    this.endOfStatement();
    const bound: Binding = { name: t.v, init };
    this.declared.add(t.v);
    if (kind === 'var') this.varNames.add(t.v);
    (this.scopes.at(-1) ?? notSimple()).set(t.v, bound);
    return { s: 'let', bound };
  }

  /** A `;`, or the end of the block, or a line break (where one is inserted). */
  private endOfStatement(): void {
    if (this.isOp(';')) this.at++;
    else if (!this.isOp('}') && !this.peek()?.nl) notSimple();
  }

  /** An `if`'s branch: a block, or one statement (never a declaration alone). */
  private branch(): Statement[] {
    if (this.isOp('{')) return this.bodyBlock();
    const s = this.statement(false);
    return s === undefined ? [] : [s];
  }

  /** The value `statements` return, then those of `rest` when they fall through; undefined at the end. */
  private compiled(statements: readonly Statement[], rest: readonly Statement[]): Node {
    if (--this.nodesLeft < 0) return notSimple();
    const [s, ...more] = statements;
    if (s === undefined) return rest.length > 0 ? this.compiled(rest, []) : { k: 'lit', v: undefined };
    if (s.s === 'return') return s.value;
    if (s.s === 'let') return { k: 'let', bound: s.bound, body: this.compiled(more, rest) };
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
        node = this.isOp('(')
          ? { k: 'call', on: node, name: isMethodCall(name.v) ? name.v : notSimple(), args: this.args() }
          : { k: 'member', of: node, key: { k: 'lit', v: name.v } };
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
        case 'Math':
        case 'Array':
        case 'Object':
        case 'Number':
        case 'String':
          // The globals, which no declaration here can hide (each is undeclarable).
          return this.staticCall(t.v);
        default:
          return this.bound(t.v);
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
   * `.name(args)` after `Math`, `Array`, `Object` or `Number` (taken), or `String(x)`, `Number(x)`:
   * only a call of a function listed for it.
   */
  private staticCall(on: Global): Node {
    if (this.functionName === on) return notSimple();
    if ((on === 'String' || on === 'Number') && this.isOp('('))
      return { k: 'call', on, name: '', args: this.args() };
    this.expect('.');
    const name = this.peek();
    if (name?.t !== 'name' || !isStaticCall(on, name.v)) return notSimple();
    this.at++;
    if (!this.isOp('(')) return notSimple();
    return { k: 'call', on, name: name.v, args: this.args() };
  }

  /** `(a, b, …)`: a call's arguments (no spreads, no trailing comma); a method's may be functions. */
  private args(): Node[] {
    this.expect('(');
    return this.items(')', true);
  }

  /** Expressions separated by commas up to `close` (taken): no holes, spreads or trailing comma. */
  private items(close: string, functions = false): Node[] {
    const list: Node[] = [];
    if (!this.isOp(close)) {
      for (;;) {
        list.push((functions && this.callback()) || this.conditional());
        if (!this.isOp(',')) break;
        this.at++;
      }
    }
    this.expect(close);
    return list;
  }

  /**
   * A function given as an argument, if one stands here: `function (x, i) { statements }`,
   * `x => value`, `(x, i) => value` or `(x) => { statements }`, with at most two parameters (an
   * element and its index, or an accumulator and an element), none hiding a name in scope.
   * Undefined when what stands here is not a function (an expression, read by the caller).
   */
  private callback(): Node | undefined {
    let names: string[];
    if (this.isName('function')) {
      this.at++;
      if (!this.isOp('(')) return notSimple();
      names = this.parameters();
    } else if (this.peek()?.t === 'name' && this.opAt(this.at + 1, '=>')) {
      names = [(this.peek() as Token).v as string];
      this.at++;
    } else if (this.isOp('(') && this.arrowAhead()) {
      names = this.parameters();
    } else {
      return undefined;
    }
    const arrow = this.isOp('=>');
    if (arrow) this.at++;
    if (names.length > 2 || new Set(names).size < names.length) return notSimple();
    const scope = new Map<string, Binding>();
    const params = names.map((name) => {
      if (UNDECLARABLE.has(name) || this.visible(name)) return notSimple();
      const bound: Binding = { name, init: { k: 'lit', v: undefined } };
      scope.set(name, bound);
      this.declared.add(name);
      return bound;
    });
    this.scopes.push(scope);
    // A block is the body's statements; after `=>` without one, the body is one expression.
    const body = !arrow || this.isOp('{') ? this.compiled(this.bodyBlock(), []) : this.conditional();
    this.scopes.pop();
    return { k: 'fn', params, body };
  }

  /** `(name, …)` (its `(` not yet taken): a function's parameter names, only names. */
  private parameters(): string[] {
    this.expect('(');
    const names: string[] = [];
    while (!this.isOp(')')) {
      const t = this.peek();
      if (t?.t !== 'name') return notSimple();
      names.push(t.v);
      this.at++;
      if (!this.isOp(',')) break;
      this.at++;
    }
    this.expect(')');
    return names;
  }

  /** Whether the `(` here opens an arrow function's parameters: names, a `)`, then `=>`. */
  private arrowAhead(): boolean {
    let i = this.at + 1;
    if (this.list[i]?.t === 'name') {
      i++;
      while (this.opAt(i, ',') && this.list[i + 1]?.t === 'name') i += 2;
    }
    return this.opAt(i, ')') && this.opAt(i + 1, '=>');
  }

  /** Whether the token at index `i` of the script is the operator `v`. */
  private opAt(i: number, v: string): boolean {
    const t = this.list[i];
    return t?.t === 'op' && t.v === v;
  }

  /** Whether a block around the one being read (or it) has declared `name`, or it names the function. */
  private visible(name: string): boolean {
    return this.scopes.some((scope) => scope.has(name)) || name === this.functionName;
  }

  /** A name the function declared, from the innermost block out; anything else is not of the language. */
  private bound(name: string): Node {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const bound = this.scopes[i]?.get(name);
      if (bound) return { k: 'ref', bound };
    }
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
    return { k: 'array', items: this.items(']') };
  }
}

/** A function body's statements: nothing in them can do anything but choose the value. */
type Statement =
  | { readonly s: 'return'; readonly value: Node }
  | { readonly s: 'let'; readonly bound: Binding }
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
