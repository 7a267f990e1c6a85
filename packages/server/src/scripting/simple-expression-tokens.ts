/**
 * The tokens of the small language `simple-expression.ts` evaluates (its parser is
 * simple-expression-parser.ts); anything else in a script is `NotSimple`, for the sandbox.
 */

/** Outside the language, or a value the sandbox must decide: the sandbox evaluates it. */
export class NotSimple extends Error {}
export const notSimple = (): never => {
  throw new NotSimple();
};

/** `nl`: a line break comes before the token (after `return` it ends the statement). */
export type Token =
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
  '=',
];
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t' };

export function tokens(text: string): Token[] {
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

/**
 * Names a declaration may not take: the input, the words of the language, reserved words, and
 * globals whose meaning a declaration would change under the sandbox's rules.
 */
export const UNDECLARABLE: ReadonlySet<string> = new Set(
  (
    '$ undefined NaN Infinity Math Array Object Number String arguments eval let static yield await implements interface package ' +
    'private protected public break case catch class const continue debugger default delete do ' +
    'else enum export extends false finally for function if import in instanceof new null return ' +
    'super switch this throw true try typeof var void while with async of get set'
  ).split(' '),
);
