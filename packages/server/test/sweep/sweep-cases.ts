import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';

import {
  type Operation,
  type Schema,
  objectSchemaOf,
  validValue,
  wrongTypedValues,
} from './openapi-operations.js';

/**
 * The bad inputs the sweep sends to one operation. Each case says what must come back:
 * `reject` (a 4xx: the input is invalid whatever the store holds) or `any` (anything but a
 * 5xx: the input may be valid, so it is sent only where it can change nothing, i.e. with path
 * ids that name nothing or on reads).
 */
export interface SweepCase {
  label: string;
  method: Operation['method'] | 'OPTIONS';
  url: string;
  headers?: Record<string, string>;
  payload?: string;
  expect: 'reject' | 'any';
}

/** Ids that name nothing, as they appear in a URL (some deliberately raw). */
const ODD_IDS = [
  '..',
  '.',
  '%2e%2e',
  '%00',
  'a%00b',
  '%2F',
  '%25',
  encodeURIComponent('名前-😀'),
  encodeURIComponent("' OR 1=1 --"),
  encodeURIComponent('<script>alert(1)</script>'),
  '%ED%A0%80',
  '%C0%AE',
  '%FF',
  'null',
  '-1',
  '0',
  '2147483648',
  '9007199254740993',
  '1e308',
  'NaN',
  '__proto__',
  'constructor',
  'x'.repeat(4000),
];

/** Numbers no bounded integer field should take (or at least not all of them). */
const ABSURD_NUMBERS = [-1, 0, 2 ** 31, 2 ** 53 + 1, 1e308, -1e308, 2 ** 31 - 1];
/** The same as query text. */
const ABSURD_NUMBER_TEXT = [
  '-1',
  '0',
  '2147483648',
  '9007199254740993',
  '1e308',
  '1.5',
  'abc',
  '',
  'NaN',
  'Infinity',
  '9'.repeat(40),
  '-9'.repeat(20),
  '0x10',
  '1e3',
  '-0',
  '2026-13-45',
  '9999-12-31T23:59:59Z',
  '+275760-09-13T00:00:00Z',
];

/** Text that means something to SQL LIKE, regular expressions, JSONPath or templates. */
const SPECIAL_TEXT = [
  '\\',
  '%',
  '_',
  "'",
  '"',
  '[a-',
  '.*',
  '${',
  '$.a[?(@)]',
  '|',
  ':DESC',
  '\\%',
  '😀',
  'ÿ',
];

const MALFORMED_JSON = [
  '{',
  '{"a":}',
  '[1,]',
  "{'a': 1}",
  'nul',
  '{"a":1}}',
  '\u0000',
  '{"a":"\\ud800"',
  '"unterminated',
];
const FOREIGN_TYPES = [
  'application/xml',
  'text/html',
  'multipart/form-data; boundary=sweep',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'application/jsonx',
  'text/json',
  '*/*',
  'application/json-patch+json',
];

/** JSON bodies with odd but parseable headers: any answer but a 5xx (a malformed body is sent). */
const ODD_JSON_HEADERS: Array<Record<string, string>> = [
  { 'content-type': 'APPLICATION/JSON' },
  { 'content-type': 'application/json; charset=latin1' },
  { 'content-type': 'application/json; charset=utf-16' },
  { 'content-type': 'application/json;;;' },
  { 'content-type': 'application/json', 'content-encoding': 'gzip' },
  { 'content-type': 'application/json', 'content-encoding': 'br, x-unknown' },
];

/** Methods the document shows on no path: a 404 or 405 with the error body. */
const OTHER_METHODS = ['PATCH', 'OPTIONS'] as const;

export function deepArray(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}
export function deepObject(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

const ajv = new Ajv({ strict: false, allErrors: false, coerceTypes: false });
const textAjv = new Ajv({ strict: false, allErrors: false, coerceTypes: 'array' });
const compiled = { body: new Map<Schema, ValidateFunction>(), text: new Map<Schema, ValidateFunction>() };
/** Whether the schema accepts the value: JSON bodies strictly, query text coerced as the server does. */
function validates(schema: Schema, value: unknown, text = false): boolean {
  const cache = text ? compiled.text : compiled.body;
  let fn = cache.get(schema);
  if (!fn) {
    fn = (text ? textAjv : ajv).compile(schema);
    cache.set(schema, fn);
  }
  return fn(value);
}

export interface SweepContext {
  /** Real values for path parameters, by parameter name (ids of seeded runs, names, …). */
  pathValues: Record<string, string>;
  /** The server's body limit in bytes. */
  bodyLimit: number;
  /** fast-check seed: the random part of the sweep is the same on every run. */
  seed: number;
}

function fill(op: Operation, values: Record<string, string>): string {
  return op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => values[name] ?? 'sweep-missing');
}

function realValues(op: Operation, ctx: SweepContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of op.pathParams) {
    out[p.name] = ctx.pathValues[p.name] ?? String(validValue(p.schema));
  }
  return out;
}

/** Path ids that name nothing: where a valid body or query may be sent without changing anything. */
function missingValues(op: Operation): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of op.pathParams)
    out[p.name] = p.schema.enum ? String(p.schema.enum[0]) : 'sweep-no-such-thing';
  return out;
}

const json = (v: unknown): string => JSON.stringify(v);

export function casesFor(op: Operation, ctx: SweepContext): SweepCase[] {
  const cases: SweepCase[] = [];
  const real = realValues(op, ctx);
  const realUrl = fill(op, real);
  const mutating = op.method !== 'GET';
  const canMiss = op.pathParams.some((p) => !p.schema.enum);
  const missUrl = fill(op, missingValues(op));
  // Where input that may be valid goes: ids naming nothing, or (with no id to miss) a read.
  // Some reads have effects (a poll hands out tasks), so ids naming nothing come first.
  const safeUrl = canMiss ? missUrl : mutating ? undefined : realUrl;

  // Path ids: odd ones one parameter at a time, the others real on reads and naming nothing on
  // writes (so an odd id that happens to be valid, such as version 0 = latest, changes nothing).
  const randomIds = fc.sample(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), {
    seed: ctx.seed,
    numRuns: 6,
  });
  for (const p of op.pathParams) {
    for (const odd of [...ODD_IDS, ...randomIds.map(encodeURIComponent)]) {
      const others = mutating ? missingValues(op) : real;
      const url = fill(op, { ...others, [p.name]: odd });
      cases.push({ label: `path ${p.name}=${odd.slice(0, 30)}`, method: op.method, url, expect: 'any' });
    }
  }

  // Query parameters: wrong, absurd and odd values.
  for (const q of op.queryParams) {
    const values = [
      ...ABSURD_NUMBER_TEXT,
      ...SPECIAL_TEXT,
      'NOT_A_VALUE',
      '%00',
      'x'.repeat(70_000),
      '__proto__',
    ];
    for (const value of values) {
      const decoded = (() => {
        try {
          return decodeURIComponent(value);
        } catch {
          return value;
        }
      })();
      const invalid = !validates(q.schema, decoded, true) || decoded.includes('\u0000');
      const target = invalid ? realUrl : safeUrl;
      if (!target) continue;
      const encoded = value === '%00' ? value : encodeURIComponent(value);
      cases.push({
        label: `query ${q.name}=${value.slice(0, 20)}`,
        method: op.method,
        url: `${target}?${q.name}=${encoded}`,
        expect: invalid ? 'reject' : 'any',
      });
    }
    if (safeUrl) {
      cases.push({
        label: `query ${q.name} repeated`,
        method: op.method,
        url: `${safeUrl}?${q.name}=1&${q.name}=2`,
        expect: 'any',
      });
    }
  }
  if (safeUrl) {
    cases.push({
      label: 'query proto keys',
      method: op.method,
      url: `${safeUrl}?__proto__=x&constructor=y&__proto__%5Bpolluted%5D=1`,
      expect: 'any',
    });
  }

  for (const method of OTHER_METHODS) {
    cases.push({ label: `method ${method}`, method, url: safeUrl ?? missUrl, expect: 'any' });
  }

  if (!mutating) return cases;

  // Bodies the parser must refuse, whatever the route.
  for (const headers of ODD_JSON_HEADERS) {
    cases.push({
      label: `odd headers ${JSON.stringify(headers)}`,
      method: op.method,
      url: realUrl,
      headers,
      payload: '{"broken": ',
      expect: 'reject',
    });
  }
  const jsonHeaders = { 'content-type': 'application/json' };
  for (const payload of MALFORMED_JSON) {
    cases.push({
      label: `malformed ${json(payload)}`,
      method: op.method,
      url: realUrl,
      headers: jsonHeaders,
      payload,
      expect: 'reject',
    });
  }
  for (const type of FOREIGN_TYPES) {
    cases.push({
      label: `content-type ${type}`,
      method: op.method,
      url: realUrl,
      headers: { 'content-type': type },
      payload: 'a=1',
      expect: 'reject',
    });
  }
  cases.push({
    label: 'deep array 10000',
    method: op.method,
    url: realUrl,
    headers: jsonHeaders,
    payload: deepArray(10_000),
    expect: 'reject',
  });
  cases.push({
    label: 'deep object 10000',
    method: op.method,
    url: realUrl,
    headers: jsonHeaders,
    payload: deepObject(10_000),
    expect: 'reject',
  });
  cases.push({
    label: 'proto key',
    method: op.method,
    url: realUrl,
    headers: jsonHeaders,
    payload: '{"__proto__":{"polluted":1}}',
    expect: 'reject',
  });
  cases.push({
    label: 'constructor.prototype key',
    method: op.method,
    url: realUrl,
    headers: jsonHeaders,
    payload: '{"constructor":{"prototype":{"polluted":1}}}',
    expect: 'reject',
  });
  cases.push({
    label: 'body over the limit',
    method: op.method,
    url: realUrl,
    headers: jsonHeaders,
    payload: json({ big: 'x'.repeat(ctx.bodyLimit + 10) }),
    expect: 'reject',
  });

  if (!op.body) return cases;
  const body = op.body;
  const send = (label: string, value: unknown): void => {
    const valid = validates(body, value);
    const url = valid ? (canMiss ? missUrl : undefined) : realUrl;
    if (url === undefined) return;
    cases.push({
      label,
      method: op.method,
      url,
      headers: jsonHeaders,
      payload: json(value),
      expect: valid ? 'any' : 'reject',
    });
  };

  // Whole bodies of the wrong JSON type.
  for (const value of [null, 1, 'text', true, [], {}, [{}]]) send(`body ${json(value)}`, value);

  // Each field (and each field of objects in arrays) with each wrong type and absurd values.
  const fieldCases = (
    schema: Schema | undefined,
    wrap: (v: unknown) => unknown,
    path: string,
    level: number,
  ): void => {
    const obj = objectSchemaOf(schema);
    if (!obj) return;
    const base = validValue(obj) as Record<string, unknown>;
    for (const [key, field] of Object.entries<Schema>(obj.properties ?? {})) {
      const at = (v: unknown): unknown => wrap({ ...base, [key]: v });
      const fieldPath = `${path}.${key}`;
      for (const v of wrongTypedValues(field)) send(`${fieldPath} = ${json(v)}`, at(v));
      if (field.type === 'integer' || field.type === 'number') {
        for (const n of ABSURD_NUMBERS) send(`${fieldPath} = ${n}`, at(n));
      }
      if (field.enum) {
        send(`${fieldPath} unknown enum`, at('NOT_A_VALUE'));
        send(`${fieldPath} lower-case enum`, at(String(field.enum[0]).toLowerCase() + '_'));
      }
      if (field.type === 'string') {
        if (field.maxLength !== undefined) send(`${fieldPath} too long`, at('x'.repeat(field.maxLength + 1)));
        cases.push({
          label: `${fieldPath} with NUL`,
          method: op.method,
          url: realUrl,
          headers: jsonHeaders,
          payload: json(at('a\u0000b')),
          expect: 'reject',
        });
        cases.push({
          label: `${fieldPath} lone surrogate`,
          method: op.method,
          url: realUrl,
          headers: jsonHeaders,
          payload: json(at('x')).replace('"x"', '"\\ud800"'),
          expect: 'reject',
        });
      }
      const free = field.type === 'object' && !field.properties;
      if (free || field.additionalProperties === true) {
        cases.push({
          label: `${fieldPath} nested 10000`,
          method: op.method,
          url: realUrl,
          headers: jsonHeaders,
          payload: json(at({})).replace(`"${key}":{}`, `"${key}":${deepObject(10_000)}`),
          expect: 'reject',
        });
        cases.push({
          label: `${fieldPath} proto key`,
          method: op.method,
          url: realUrl,
          headers: jsonHeaders,
          payload: json(at({})).replace(`"${key}":{}`, `"${key}":{"__proto__":{"polluted":1}}`),
          expect: 'reject',
        });
      }
      if (level < 2 && field.type === 'array' && objectSchemaOf(field.items)) {
        fieldCases(field.items, (item) => at([item]), `${fieldPath}[0]`, level + 1);
      }
      if (level < 2 && field.type === 'object' && field.properties) {
        fieldCases(field, (inner) => at(inner), fieldPath, level + 1);
      }
    }
  };
  fieldCases(body, (v) => (body.type === 'array' ? [v] : v), 'body', 0);
  if (body.type === 'array' || body.anyOf) {
    const arr = body.type === 'array' ? body : (body.anyOf as Schema[]).find((s) => s.type === 'array');
    if (arr) fieldCases(arr.items, (v) => [v], 'body[0]', 0);
  }

  // Random free JSON (fixed seed) where it cannot change anything.
  if (canMiss) {
    for (const value of fc.sample(fc.jsonValue({ maxDepth: 5 }), { seed: ctx.seed + 1, numRuns: 8 })) {
      cases.push({
        label: `random ${json(value).slice(0, 40)}`,
        method: op.method,
        url: missUrl,
        headers: jsonHeaders,
        payload: json(value),
        expect: 'any',
      });
    }
  }
  return cases;
}
