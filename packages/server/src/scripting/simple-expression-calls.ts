import { notSimple } from './simple-expression-tokens.js';

/**
 * The built-in calls the small language of `simple-expression.ts` answers: those INLINE scripts
 * and SWITCH cases use most whose answer ECMAScript defines exactly, so that any engine (the
 * sandbox's among them) gives the same one. Anything else, or a call here with arguments outside
 * what is listed, goes to the sandbox (`NotSimple`), which answers or refuses it in its own words.
 *
 *   - `Math.max`, `Math.min` over numbers; `Math.abs`, `floor`, `ceil`, `round`, `trunc`, `sign`
 *     and `sqrt` of one number (IEEE 754 rounds a square root exactly; `pow`, `exp`, `log` and the
 *     trigonometric functions are left out: engines approximate them differently). `Array.isArray`;
 *     `Object.keys` and `Object.values` of a plain object; `Number.isInteger`, `isSafeInteger`,
 *     `isFinite`, `isNaN`; `Number(x)` of a number or of a plainly written whole number; `String(x)`
 *     of a string, boolean, null, undefined or safe integer.
 *   - A string's `includes`, `startsWith`, `endsWith`, `indexOf`, `lastIndexOf`, `split` of one string;
 *     `slice`, `substring`, `charAt`, `charCodeAt` of safe integers; `replace`, `replaceAll` (of
 *     strings, no `$` in the replacement), `padStart`, `padEnd`, `repeat`, `concat` (each measured
 *     against the output budget before it is made); `toUpperCase`, `toLowerCase`, `trim`,
 *     `trimStart`, `trimEnd` of ASCII text only (engines differ in the Unicode version their case
 *     and white-space tables follow).
 *   - A list's `includes`, `indexOf`, `lastIndexOf` of one value that is not an object; `join` of
 *     strings, safe integers, booleans and null (its length within the output budget); and what
 *     the sandbox's prelude adds for scripts written for Conductor's GraalJS: `size()`, and
 *     `get(i)` of a safe integer.
 *   - A list's `map`, `filter`, `some`, `every`, `find`, `findIndex` and `reduce` with a function
 *     of the script (`x => x.id`, `(acc, x) => acc + x.qty`, `function (x) { return …; }`),
 *     written in the same language; each evaluation calls such functions at most
 *     `MAX_CALLBACK_CALLS` times (past that the sandbox, with its time cap, answers).
 *   - An object's `get(key)` (the prelude's), unless the object has a `get` of its own.
 *
 * Lists and objects of the input are read as the sandbox's JSON copy of the input holds them:
 * `read` and `carried` are the evaluator's own rules for that.
 */
/** A function the script gave a list method (`x => x.id`): its value for the given arguments. */
export class Callback {
  constructor(readonly call: (...args: unknown[]) => unknown) {}
}

export interface CallContext {
  /** The value's property as the sandbox's copy answers it (`NotSimple` where it would differ). */
  read(of: unknown, key: unknown): unknown;
  /** Whether this list or object was made by the script (a literal), not read from the input. */
  built(value: object): boolean;
  /** `v` as the sandbox's JSON copy of the input holds it, or `NotSimple`. */
  carried(v: unknown): unknown;
  /** A list made here (`map`'s answer): each element counted against the output budget. */
  made(list: unknown[]): unknown[];
  /** Takes `n` calls of the script's functions from what one evaluation may make (`NotSimple` past it). */
  spend(n: number): void;
  /** The output budget: no string made here grows past it. */
  maxChars: number;
}

/** The functions of one number, and of one string on a string, each the host's own. */
const MATH_OF_ONE: Readonly<Record<string, (x: number) => number>> = {
  abs: Math.abs,
  floor: Math.floor,
  ceil: Math.ceil,
  round: Math.round,
  trunc: Math.trunc,
  sign: Math.sign,
  sqrt: Math.sqrt,
};
const MATH_OF_MANY: Readonly<Record<string, (...xs: number[]) => number>> = { max: Math.max, min: Math.min };
const STRING_SEARCH: Readonly<Record<string, (self: string, needle: string) => boolean | number>> = {
  includes: (s, n) => s.includes(n),
  startsWith: (s, n) => s.startsWith(n),
  endsWith: (s, n) => s.endsWith(n),
  indexOf: (s, n) => s.indexOf(n),
  lastIndexOf: (s, n) => s.lastIndexOf(n),
};
const STRING_PART: ReadonlySet<string> = new Set(['slice', 'substring']);
const STRING_BUILD: ReadonlySet<string> = new Set([
  'replace',
  'replaceAll',
  'padStart',
  'padEnd',
  'repeat',
  'concat',
  'charAt',
  'charCodeAt',
]);
const STRING_ASCII: Readonly<Record<string, (self: string) => string>> = {
  toUpperCase: (s) => s.toUpperCase(),
  toLowerCase: (s) => s.toLowerCase(),
  trim: (s) => s.trim(),
  trimStart: (s) => s.trimStart(),
  trimEnd: (s) => s.trimEnd(),
};
const LIST_SEARCH: ReadonlySet<string> = new Set(['includes', 'indexOf', 'lastIndexOf']);
const LIST_CALLBACK: ReadonlySet<string> = new Set([
  'map',
  'filter',
  'some',
  'every',
  'find',
  'findIndex',
  'reduce',
]);

/** How many calls of the script's own functions one evaluation here may make. */
export const MAX_CALLBACK_CALLS = 10_000;

/** The globals whose functions a script may call here. */
export type Global = 'Math' | 'Array' | 'Object' | 'Number' | 'String';

/** `Number.isInteger(x)` and its kin: a value that is not a number is simply not one. */
const NUMBER_TESTS: Readonly<Record<string, (x: unknown) => boolean>> = {
  isInteger: Number.isInteger,
  isSafeInteger: Number.isSafeInteger,
  isFinite: Number.isFinite,
  isNaN: Number.isNaN,
};

/** Whether `on.name(…)` is a call of the list (the parser refuses others before any evaluation). */
export function isStaticCall(on: Global, name: string): boolean {
  switch (on) {
    case 'Math':
      return Object.hasOwn(MATH_OF_ONE, name) || Object.hasOwn(MATH_OF_MANY, name);
    case 'Array':
      return name === 'isArray';
    case 'Object':
      return name === 'keys' || name === 'values';
    case 'Number':
      // `Number(x)` itself, called without a name, or one of its tests.
      return name === '' || Object.hasOwn(NUMBER_TESTS, name);
    case 'String':
      // `String(x)` itself, called without a name.
      return name === '';
  }
}

/** The method names a value's `.name(…)` may call (which value takes which is decided at the call). */
export function isMethodCall(name: string): boolean {
  return (
    Object.hasOwn(STRING_SEARCH, name) ||
    STRING_PART.has(name) ||
    STRING_BUILD.has(name) ||
    Object.hasOwn(STRING_ASCII, name) ||
    LIST_SEARCH.has(name) ||
    LIST_CALLBACK.has(name) ||
    name === 'split' ||
    name === 'join' ||
    name === 'size' ||
    name === 'get'
  );
}

/** `Math.name(...args)`. */
function mathCall(name: string, args: readonly unknown[]): number {
  const numbers = args.map((a) => (typeof a === 'number' ? a : notSimple()));
  const many = Object.hasOwn(MATH_OF_MANY, name) ? MATH_OF_MANY[name] : undefined;
  if (many) return many(...numbers);
  const one = Object.hasOwn(MATH_OF_ONE, name) ? MATH_OF_ONE[name] : undefined;
  const [x] = numbers;
  return one && numbers.length === 1 && x !== undefined ? one(x) : notSimple();
}

/** `Math.name(…)`, `Array.name(…)` or `Object.name(…)` of `args`. */
export function staticCall(on: Global, name: string, args: readonly unknown[], cx: CallContext): unknown {
  if (on === 'Math') return mathCall(name, args);
  const [of] = args;
  if (args.length !== 1) return notSimple();
  if (on === 'Array') return name === 'isArray' ? Array.isArray(of) : notSimple();
  if (on === 'Number') return name === '' ? wholeNumber(of) : numberTest(name, of);
  if (on === 'String') return text(of);
  // Object.keys and Object.values of a plain object: its own keys in the order every engine
  // lists them; an object of the input as its JSON copy holds it (a key JSON drops is refused).
  if (typeof of !== 'object' || of === null || Array.isArray(of)) return notSimple();
  const keys = Object.keys(of);
  const values = cx.built(of) ? Object.values(of) : keys.map((key) => cx.read(of, key));
  if (name === 'keys') return cx.made(keys);
  return name === 'values' ? values : notSimple();
}

/** `Number.name(x)`: one of its tests. */
function numberTest(name: string, x: unknown): boolean {
  const test = Object.hasOwn(NUMBER_TESTS, name) ? NUMBER_TESTS[name] : undefined;
  return test ? test(x) : notSimple();
}

/**
 * `Number(x)` of a number (itself), or of text that is a whole number written plainly (an optional
 * `-`, no leading zero, at most fifteen digits): the one reading every engine gives. Other text
 * (spaces, fractions, exponents, hex, empty) goes to the sandbox.
 */
function wholeNumber(x: unknown): number {
  if (typeof x === 'number') return x;
  if (typeof x === 'string' && /^-?(?:0|[1-9][0-9]{0,14})$/.test(x)) return Number(x);
  return notSimple();
}

/** `String(x)` where no engine could write it otherwise: never a fraction's digits, never an object. */
function text(x: unknown): string {
  if (typeof x === 'string') return x;
  if (typeof x === 'boolean' || x === null || x === undefined) return String(x);
  if (typeof x === 'number' && Number.isSafeInteger(x)) return String(x);
  return notSimple();
}

/** `self.name(...args)`. */
export function methodCall(self: unknown, name: string, args: readonly unknown[], cx: CallContext): unknown {
  if (typeof self === 'string') return stringMethod(self, name, args, cx);
  if (Array.isArray(self)) return listMethod(self, name, args, cx);
  if (typeof self === 'object' && self !== null && name === 'get' && args.length === 1) {
    // The prelude's `get` is on Object.prototype: an object's own `get` (a value of the input,
    // never a function) would be called instead, a TypeError the sandbox reports.
    if (Object.hasOwn(self, 'get')) return notSimple();
    const [key] = args;
    return typeof key === 'string' ? cx.read(self, key) : notSimple();
  }
  return notSimple();
}

function stringMethod(self: string, name: string, args: readonly unknown[], cx: CallContext): unknown {
  if (name === 'split') {
    const [separator] = args;
    if (args.length !== 1 || typeof separator !== 'string') return notSimple();
    // Its pieces are no longer than the text: a text within the budget is split, then counted.
    return self.length > cx.maxChars ? notSimple() : cx.made(self.split(separator));
  }
  if (STRING_BUILD.has(name)) return builtText(self, name, args, cx.maxChars);
  const search = Object.hasOwn(STRING_SEARCH, name) ? STRING_SEARCH[name] : undefined;
  if (search) {
    const [needle] = args;
    return args.length === 1 && typeof needle === 'string' ? search(self, needle) : notSimple();
  }
  if (STRING_PART.has(name)) {
    if (args.length < 1 || args.length > 2) return notSimple();
    const [from = 0, to] = args.map((a) =>
      typeof a === 'number' && Number.isSafeInteger(a) ? a : notSimple(),
    );
    return name === 'slice' ? self.slice(from, to) : self.substring(from, to);
  }
  const ascii = Object.hasOwn(STRING_ASCII, name) ? STRING_ASCII[name] : undefined;
  if (ascii) return args.length === 0 && isAscii(self) ? ascii(self) : notSimple();
  return notSimple();
}

function listMethod(
  self: readonly unknown[],
  name: string,
  args: readonly unknown[],
  cx: CallContext,
): unknown {
  if (name === 'size' && args.length === 0) return self.length;
  if (name === 'get' && args.length === 1) {
    const [i] = args;
    return typeof i === 'number' && Number.isSafeInteger(i) && i >= 0 ? cx.read(self, i) : notSimple();
  }
  // The rest look at every element: those of a list of the input as its JSON copy holds them.
  const items = cx.built(self) ? self : carriedList(self, cx);
  if (LIST_SEARCH.has(name)) {
    const [value] = args;
    if (args.length !== 1 || (typeof value === 'object' && value !== null)) return notSimple();
    switch (name) {
      case 'includes':
        return items.includes(value);
      case 'indexOf':
        return items.indexOf(value);
      default:
        return items.lastIndexOf(value);
    }
  }
  if (LIST_CALLBACK.has(name)) return listCallback(items, name, args, cx);
  if (name === 'join' && args.length <= 1) {
    const [separator = ','] = args;
    if (typeof separator !== 'string') return notSimple();
    const parts = items.map(joinedText);
    // Measured before it is built: a long separator between many elements is a long string.
    const length = parts.reduce((n, p) => n + p.length, 0) + separator.length * Math.max(0, parts.length - 1);
    return length > cx.maxChars ? notSimple() : parts.join(separator);
  }
  return notSimple();
}

/**
 * `map`, `filter`, `some`, `every`, `find`, `findIndex` and `reduce` with a function of the script
 * (at most two parameters: an element and its index, or the accumulator and an element). Every
 * element the function is called for counts against the evaluation's calls; `map`'s list is made
 * here and counted against the output budget, `filter`'s holds the list's own elements.
 */
function listCallback(
  items: readonly unknown[],
  name: string,
  args: readonly unknown[],
  cx: CallContext,
): unknown {
  const [fn, initial] = args;
  if (!(fn instanceof Callback)) return notSimple();
  if (name === 'reduce') {
    if (args.length === 2) {
      cx.spend(items.length);
      return items.reduce((acc, x) => fn.call(acc, x), initial);
    }
    // Without a first value an empty list is a TypeError, which the sandbox reports.
    if (args.length !== 1 || items.length === 0) return notSimple();
    cx.spend(items.length);
    return items.reduce((acc, x) => fn.call(acc, x));
  }
  if (args.length !== 1) return notSimple();
  cx.spend(items.length);
  const test = (x: unknown, i: number): boolean => Boolean(fn.call(x, i));
  switch (name) {
    case 'map':
      return cx.made(items.map((x, i) => fn.call(x, i)));
    case 'filter':
      return items.filter(test);
    case 'some':
      return items.some(test);
    case 'every':
      return items.every(test);
    case 'find':
      return items.find(test);
    default:
      return items.findIndex(test);
  }
}

/**
 * The string methods that make text: `replace` and `replaceAll` of a string by a string without `$`
 * (which would name a part of the match), `padStart`, `padEnd`, `repeat` and `concat`, each
 * measured before it is made against the output budget; `charAt` and `charCodeAt` of a safe integer.
 */
function builtText(self: string, name: string, args: readonly unknown[], maxChars: number): unknown {
  const within = (length: number): void => {
    if (length > maxChars) notSimple();
  };
  const integer = (v: unknown): number =>
    typeof v === 'number' && Number.isSafeInteger(v) ? v : notSimple();
  const string = (v: unknown): string => (typeof v === 'string' ? v : notSimple());
  switch (name) {
    case 'replace':
    case 'replaceAll': {
      if (args.length !== 2) return notSimple();
      const [pattern, replacement] = [string(args[0]), string(args[1])];
      if (replacement.includes('$')) return notSimple();
      // An empty pattern matches before every character and at the end.
      const times =
        name === 'replace' ? 1 : pattern === '' ? self.length + 1 : self.split(pattern).length - 1;
      within(self.length + times * replacement.length);
      return name === 'replace' ? self.replace(pattern, replacement) : self.replaceAll(pattern, replacement);
    }
    case 'padStart':
    case 'padEnd': {
      if (args.length < 1 || args.length > 2) return notSimple();
      const length = integer(args[0]);
      const filler = args.length === 2 ? string(args[1]) : ' ';
      within(length);
      return name === 'padStart' ? self.padStart(length, filler) : self.padEnd(length, filler);
    }
    case 'repeat': {
      const count = integer(args[0]);
      if (args.length !== 1 || count < 0) return notSimple();
      within(self.length * count);
      return self.repeat(count);
    }
    case 'concat': {
      const parts = args.map(string);
      within(parts.reduce((n, p) => n + p.length, self.length));
      return self.concat(...parts);
    }
    case 'charAt':
      return args.length === 1 ? self.charAt(integer(args[0])) : notSimple();
    default:
      return args.length === 1 ? self.charCodeAt(integer(args[0])) : notSimple();
  }
}

/** A list of the input as its JSON copy holds it, element by element (a hole goes to the sandbox). */
function carriedList(list: readonly unknown[], cx: CallContext): unknown[] {
  const out: unknown[] = [];
  // A loop, not `map`, which would skip a hole and keep it.
  for (let i = 0; i < list.length; i++) out.push(Object.hasOwn(list, i) ? cx.carried(list[i]) : notSimple());
  return out;
}

/** An element as `join` writes it, where that is not a question of how a number prints. */
function joinedText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  return notSimple();
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}
