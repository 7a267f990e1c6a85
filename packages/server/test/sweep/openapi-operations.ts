/**
 * The operations of Baton's OpenAPI document, in the shape the bad-input sweep needs: method,
 * path template, path and query parameter schemas and the JSON body schema.
 */

export type Schema = Record<string, any>;

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** OpenAPI template, e.g. `/api/workflow/{workflowId}`. */
  path: string;
  pathParams: Array<{ name: string; schema: Schema }>;
  queryParams: Array<{ name: string; schema: Schema; required: boolean }>;
  /** The JSON body schema, when the operation declares one. */
  body?: Schema;
}

export function operationsOf(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      const upper = method.toUpperCase();
      if (!['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].includes(upper)) continue;
      const params: any[] = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      out.push({
        method: upper as Operation['method'],
        path,
        pathParams: params
          .filter((p) => p.in === 'path')
          .map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        queryParams: params
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, schema: p.schema ?? {}, required: p.required === true })),
        ...(op.requestBody?.content?.['application/json']?.schema && {
          body: op.requestBody.content['application/json'].schema,
        }),
      });
    }
  }
  return out;
}

/** `/api/workflow/:workflowId` → `/api/workflow/{workflowId}` (Fastify's form to OpenAPI's). */
export function toOpenApiPath(url: string): string {
  // A trailing wildcard (`/api/payloads/*`) is `{*}` in the document, as @fastify/swagger writes it.
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{*}');
}

/** The object alternative of a schema (`anyOf` of a list and an object answers the object). */
export function objectSchemaOf(schema: Schema | undefined): Schema | undefined {
  if (!schema) return undefined;
  if (schema.type === 'object') return schema;
  for (const alt of schema.anyOf ?? schema.oneOf ?? []) {
    const found = objectSchemaOf(alt);
    if (found) return found;
  }
  return undefined;
}

/** A value the schema accepts (the smallest one), used as the valid base around a bad field. */
export function validValue(schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > 4) return {};
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf ?? schema.oneOf) return validValue((schema.anyOf ?? schema.oneOf)[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return 'sweep'.padEnd(schema.minLength ?? 0, 'x');
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => validValue(schema.items, depth + 1));
    case 'object':
    default: {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = validValue(schema.properties?.[key], depth + 1);
      return out;
    }
  }
}

/** The JSON types a schema does not accept, as sample values (1.5 where only integers are). */
export function wrongTypedValues(schema: Schema): unknown[] {
  const types = new Set<string>(
    Array.isArray(schema.type)
      ? schema.type
      : schema.type
        ? [schema.type]
        : (schema.anyOf ?? schema.oneOf ?? []).map((s: Schema) => s.type).filter(Boolean),
  );
  if (types.size === 0) return [];
  const samples: Array<[string, unknown]> = [
    ['string', 'not-a-number'],
    ['number', 2.5],
    ['boolean', true],
    ['null', null],
    ['array', [1, 'two']],
    ['object', { nested: { x: 1 } }],
  ];
  const accepted = (t: string): boolean => types.has(t) || (t === 'number' && types.has('integer'));
  const out = samples.filter(([t]) => !accepted(t)).map(([, v]) => v);
  if (types.has('integer') && !types.has('number')) out.push(2.5);
  return out;
}

/** Values at the edges of what the schema accepts: the bounds themselves, the longest text. */
export function edgeValues(schema: Schema): unknown[] {
  if (schema.enum) return [...(schema.enum as unknown[])];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return [schema.minimum, schema.maximum].filter((v) => typeof v === 'number');
    case 'string': {
      const longest = Math.min(schema.maxLength ?? 2000, 70_000);
      return ['x'.repeat(longest), '\\', "'; --", '${workflow.input}', '😀'.repeat(8), ' '].filter(
        (v) => v.length >= (schema.minLength ?? 0) && v.length <= (schema.maxLength ?? Infinity),
      );
    }
    case 'boolean':
      return [true, false];
    default:
      return [];
  }
}
