import type { ValidationError } from '@baton/protocol';

import { fail } from '../errors.js';
import type { FilterValue, SearchFilter } from '../store/store.js';
import { type QueryNode, QuerySyntaxError, parseQuery } from './query-parser.js';

/** What a searchable field holds, so values can be checked before they reach a store. */
export type FieldSpec =
  | { type: 'text' }
  | { type: 'integer' }
  /** Epoch milliseconds, or an ISO-8601 date. */
  | { type: 'time' }
  | { type: 'enum'; values: readonly string[] };

export interface SearchFields<F extends string> {
  fields: Readonly<Record<F, FieldSpec>>;
  /** Other names a query may use for a field (case-insensitive), e.g. workflowName → workflowType. */
  aliases: Readonly<Record<string, F>>;
}

function invalid(message: string, query: string): never {
  const error: ValidationError = { path: 'querystring.query', message, invalidValue: query.slice(0, 200) };
  throw fail('SEARCH_QUERY_INVALID', { problem: message }, [error]);
}

/**
 * Conductor's `query` expression as a store filter: parsed (a syntax error → 400 naming its
 * position), field names resolved against the searchable fields, values checked and typed.
 */
export function filterFromQuery<F extends string>(query: string, spec: SearchFields<F>): SearchFilter<F> {
  let tree: QueryNode;
  try {
    tree = parseQuery(query);
  } catch (err) {
    if (err instanceof QuerySyntaxError) invalid(err.message, query);
    throw err;
  }
  return convert(tree, spec, query);
}

function convert<F extends string>(node: QueryNode, spec: SearchFields<F>, query: string): SearchFilter<F> {
  if ('items' in node)
    return { kind: node.kind, items: node.items.map((item) => convert(item, spec, query)) };
  const field = resolveField(node.field, spec);
  if (field === undefined) {
    invalid(
      `unknown field '${node.field}' at position ${node.position}; searchable fields: ${Object.keys(spec.fields).join(', ')}`,
      query,
    );
  }
  const fieldSpec: FieldSpec = spec.fields[field];
  const value = (raw: string): FilterValue => typedValue(raw, fieldSpec, node.field, node.position, query);
  if (node.kind === 'in') return { kind: 'in', field, values: node.values.map(value), negate: node.negate };
  if (fieldSpec.type !== 'integer' && fieldSpec.type !== 'time' && node.op !== '=' && node.op !== '!=') {
    invalid(`field '${node.field}' at position ${node.position} only takes =, != and IN`, query);
  }
  return { kind: 'compare', field, op: node.op, value: value(node.value) };
}

function resolveField<F extends string>(name: string, spec: SearchFields<F>): F | undefined {
  const lower = name.toLowerCase();
  const direct = (Object.keys(spec.fields) as F[]).find((f) => f.toLowerCase() === lower);
  if (direct !== undefined) return direct;
  const alias = Object.entries(spec.aliases).find(([a]) => a.toLowerCase() === lower);
  return alias?.[1];
}

function typedValue(
  raw: string,
  spec: FieldSpec,
  name: string,
  position: number,
  query: string,
): FilterValue {
  switch (spec.type) {
    case 'text':
      return raw;
    case 'integer': {
      const n = Number(raw);
      if (!Number.isSafeInteger(n))
        invalid(`field '${name}' at position ${position} takes an integer, got '${raw}'`, query);
      return n;
    }
    case 'time': {
      const ms = timeValue(raw);
      if (ms === undefined) {
        invalid(
          `field '${name}' at position ${position} takes epoch milliseconds or an ISO-8601 date, got '${raw}'`,
          query,
        );
      }
      return ms;
    }
    case 'enum': {
      const match = spec.values.find((v) => v.toLowerCase() === raw.toLowerCase());
      if (match === undefined) {
        invalid(
          `field '${name}' at position ${position} takes one of ${spec.values.join(', ')}, got '${raw}'`,
          query,
        );
      }
      return match;
    }
  }
}

/** Epoch milliseconds or an ISO-8601 date, as epoch milliseconds. */
export function timeValue(raw: string): number | undefined {
  if (/^\d{1,15}$/.test(raw)) return Number(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw)) return undefined;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? undefined : ms;
}
