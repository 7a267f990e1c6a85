import type { JsonValue } from '@baton/protocol';

import type { ScriptResult } from '../engine/index.js';
import { outputBudget, type ScriptLimits } from './limits.js';
import {
  type CallContext,
  Callback,
  MAX_CALLBACK_CALLS,
  methodCall,
  staticCall,
} from './simple-expression-calls.js';
import { type Binding, type Node, Parser } from './simple-expression-parser.js';
import { NotSimple, notSimple } from './simple-expression-tokens.js';

/**
 * The JavaScript most SWITCH cases and INLINE expressions are: one expression over `$` (`$.run % 2
 * === 0 ? "even" : "odd"`, `$.status == 'ok' && $.count > 3`), or a function that returns one. Each evaluation in the sandbox
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
 *   - object literals with name or string keys and array literals without holes, holding values
 *     made here (never an object of the input, which could be large and repeated: the sandbox
 *     copies and bounds it), their contents counted against the output budget as they are built;
 *   - an optional `;` at the end, or an `if (…) { … } else { … }` of such expressions (Conductor's
 *     loop conditions), or a function of `return`, `if … else` and `const` / `let` / `var`
 *     statements called at once (`(function () { … })()`, `function e() { … } e();`: how
 *     Conductor's INLINE tasks are usually written; simple-expression-parser.ts);
 *   - the built-in calls whose answers ECMAScript defines exactly (`Math.max`, `Array.isArray`, a
 *     string's `startsWith` or `toUpperCase`, a list's `includes`, `join`, `map`, `filter` or
 *     `reduce` with a function of the script, and the prelude's `size()` and `get(…)`), with the
 *     arguments simple-expression-calls.ts lists. No other calls,
 *     no assignment, no other identifiers, no comments.
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
  // What the literals hold, counted as it is built: an answer can never grow past the budget
  // (a literal may not hold the input's objects, which could be large and repeated).
  let literalChars = 0;
  // Each literal built, with what it holds: placed again (a name read twice), it counts again.
  const built = new Map<object, number>();
  const values = new Map<Binding, unknown>();
  const element = (v: unknown): unknown => {
    if (typeof v === 'object' && v !== null) {
      const size = built.get(v);
      if (size === undefined) return notSimple();
      literalChars += size;
      if (literalChars > maxChars) notSimple();
    } else {
      literalChars += typeof v === 'string' ? v.length + 2 : 8;
      if (literalChars > maxChars) notSimple();
    }
    return v;
  };
  const ev = (n: Node): unknown => {
    switch (n.k) {
      case 'object': {
        const from = literalChars;
        const out: Record<string, unknown> = {};
        for (const [key, value] of n.entries) {
          literalChars += key.length + 4;
          out[key] = element(ev(value));
        }
        built.set(out, literalChars - from);
        return out;
      }
      case 'array': {
        const from = literalChars;
        const out = n.items.map((item) => element(ev(item)));
        built.set(out, literalChars - from + 2);
        return out;
      }
      case 'let':
        values.set(n.bound, ev(n.bound.init));
        return ev(n.body);
      case 'ref':
        return values.has(n.bound) ? values.get(n.bound) : notSimple();
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
      case 'call': {
        if (typeof n.on === 'string') return staticCall(n.on, n.name, n.args.map(ev), calls);
        const self = ev(n.on);
        return methodCall(self, n.name, n.args.map(argument), calls);
      }
      case 'fn':
        // A function is only ever a method's argument (`argument`).
        return notSimple();
    }
  };
  // A function of the script, called by a list method: its parameters take the call's values.
  const argument = (n: Node): unknown => {
    if (n.k !== 'fn') return ev(n);
    return new Callback((...args) => {
      n.params.forEach((p, i) => values.set(p, args[i]));
      return ev(n.body);
    });
  };
  let callbackCalls = 0;
  const calls: CallContext = {
    read,
    built: (v) => built.has(v),
    carried,
    made: (list) => {
      const from = literalChars;
      const out = list.map(element);
      built.set(out, literalChars - from + 2);
      return out;
    },
    spend: (n) => {
      callbackCalls += n;
      if (callbackCalls > MAX_CALLBACK_CALLS) notSimple();
    },
    maxChars,
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
