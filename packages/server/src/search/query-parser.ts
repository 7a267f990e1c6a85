/**
 * Conductor's search `query` expression (its SDK and UI send it):
 *
 *   taskType IN (a,b) AND status IN (COMPLETED) AND startTime > 1700000000000
 *
 * parsed into a tree; nothing here knows SQL. Grammar (keywords in any case):
 *
 *   expr       := and ( OR and )*
 *   and        := term ( AND term )*
 *   term       := '(' expr ')' | condition
 *   condition  := field [NOT] IN '(' value ( ',' value )* ')'
 *               | field op value                op: = == != <> > >= < <= :
 *   value      := word | 'quoted' | "quoted"
 *
 * A syntax error says at which character (1-based) it is and what was expected there.
 */

export type CompareOp = '=' | '!=' | '>' | '>=' | '<' | '<=';

export type QueryNode =
  | { kind: 'and' | 'or'; items: QueryNode[] }
  | { kind: 'in'; field: string; values: string[]; negate: boolean; position: number }
  | { kind: 'compare'; field: string; op: CompareOp; value: string; position: number };

export class QuerySyntaxError extends Error {
  override name = 'QuerySyntaxError';
  constructor(
    readonly position: number,
    readonly detail: string,
  ) {
    super(`syntax error at position ${position}: ${detail}`);
  }
}

type TokenKind = 'word' | 'string' | 'op' | '(' | ')' | ',' | 'end';
interface Token {
  kind: TokenKind;
  text: string;
  /** 1-based character position of the token's start. */
  position: number;
}

const OPERATORS = ['>=', '<=', '!=', '<>', '==', '=', '>', '<', ':'] as const;
const OP_OF: Readonly<Record<string, CompareOp>> = {
  '=': '=',
  '==': '=',
  ':': '=',
  '!=': '!=',
  '<>': '!=',
  '>': '>',
  '>=': '>=',
  '<': '<',
  '<=': '<=',
};
export const MAX_QUERY_LENGTH = 4096;
const MAX_DEPTH = 32;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    if (/\s/.test(c)) {
      i += 1;
      continue;
    }
    const position = i + 1;
    if (c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: c, text: c, position });
      i += 1;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (op !== undefined) {
      tokens.push({ kind: 'op', text: op, position });
      i += op.length;
      continue;
    }
    if (c === '"' || c === "'") {
      let value = '';
      let j = i + 1;
      for (;;) {
        if (j >= text.length) throw new QuerySyntaxError(position, `unterminated ${c}quoted${c} value`);
        const d = text.charAt(j);
        if (d === '\\' && j + 1 < text.length) {
          value += text.charAt(j + 1);
          j += 2;
          continue;
        }
        if (d === c) break;
        value += d;
        j += 1;
      }
      tokens.push({ kind: 'string', text: value, position });
      i = j + 1;
      continue;
    }
    let j = i;
    while (j < text.length && !/[\s(),=!<>:"']/.test(text.charAt(j))) j += 1;
    if (j === i) throw new QuerySyntaxError(position, `unexpected character '${c}'`);
    tokens.push({ kind: 'word', text: text.slice(i, j), position });
    i = j;
  }
  tokens.push({ kind: 'end', text: '', position: text.length + 1 });
  return tokens;
}

function describe(token: Token): string {
  return token.kind === 'end' ? 'the end of the query' : `'${token.text}'`;
}

function isKeyword(token: Token, keyword: string): boolean {
  return token.kind === 'word' && token.text.toUpperCase() === keyword;
}

class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.at] ?? { kind: 'end', text: '', position: 0 };
  }

  private next(): Token {
    const token = this.peek();
    if (this.at < this.tokens.length - 1) this.at += 1;
    return token;
  }

  private expect(kind: TokenKind, what: string): Token {
    const token = this.next();
    if (token.kind !== kind)
      throw new QuerySyntaxError(token.position, `expected ${what}, found ${describe(token)}`);
    return token;
  }

  parse(): QueryNode {
    const node = this.orExpr(0);
    const rest = this.peek();
    if (rest.kind !== 'end') {
      throw new QuerySyntaxError(
        rest.position,
        `expected AND, OR or the end of the query, found ${describe(rest)}`,
      );
    }
    return node;
  }

  private orExpr(depth: number): QueryNode {
    const items = [this.andExpr(depth)];
    while (isKeyword(this.peek(), 'OR')) {
      this.next();
      items.push(this.andExpr(depth));
    }
    return items.length === 1 && items[0] ? items[0] : { kind: 'or', items };
  }

  private andExpr(depth: number): QueryNode {
    const items = [this.term(depth)];
    while (isKeyword(this.peek(), 'AND')) {
      this.next();
      items.push(this.term(depth));
    }
    return items.length === 1 && items[0] ? items[0] : { kind: 'and', items };
  }

  private term(depth: number): QueryNode {
    const token = this.peek();
    if (token.kind === '(') {
      if (depth >= MAX_DEPTH)
        throw new QuerySyntaxError(token.position, `nested deeper than ${MAX_DEPTH} levels`);
      this.next();
      const inner = this.orExpr(depth + 1);
      this.expect(')', "')'");
      return inner;
    }
    return this.condition();
  }

  private condition(): QueryNode {
    const field = this.next();
    if (field.kind !== 'word' || isKeyword(field, 'AND') || isKeyword(field, 'OR')) {
      throw new QuerySyntaxError(field.position, `expected a field name or '(', found ${describe(field)}`);
    }
    let negate = false;
    if (isKeyword(this.peek(), 'NOT')) {
      this.next();
      negate = true;
      if (!isKeyword(this.peek(), 'IN')) {
        const t = this.peek();
        throw new QuerySyntaxError(t.position, `expected IN after NOT, found ${describe(t)}`);
      }
    }
    if (isKeyword(this.peek(), 'IN')) {
      this.next();
      this.expect('(', "'(' after IN");
      const values = [this.value()];
      while (this.peek().kind === ',') {
        this.next();
        values.push(this.value());
      }
      this.expect(')', "',' or ')'");
      return { kind: 'in', field: field.text, values, negate, position: field.position };
    }
    const op = this.next();
    const compare = op.kind === 'op' ? OP_OF[op.text] : undefined;
    if (compare === undefined) {
      throw new QuerySyntaxError(
        op.position,
        `expected an operator (=, !=, >, >=, <, <=, IN) after ${field.text}, found ${describe(op)}`,
      );
    }
    return { kind: 'compare', field: field.text, op: compare, value: this.value(), position: field.position };
  }

  private value(): string {
    const token = this.next();
    if (token.kind === 'word' || token.kind === 'string') return token.text;
    throw new QuerySyntaxError(token.position, `expected a value, found ${describe(token)}`);
  }
}

/** Parses a query expression; throws QuerySyntaxError naming the position of the problem. */
export function parseQuery(text: string): QueryNode {
  if (text.length > MAX_QUERY_LENGTH)
    throw new QuerySyntaxError(MAX_QUERY_LENGTH + 1, `longer than ${MAX_QUERY_LENGTH} characters`);
  if (text.trim() === '') throw new QuerySyntaxError(1, 'the query is empty');
  return new Parser(tokenize(text)).parse();
}
