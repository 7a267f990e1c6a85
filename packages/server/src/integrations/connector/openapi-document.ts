import type { JsonObject, JsonValue } from '@baton/protocol';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';

import type { ServiceMethod } from '../registry/service-record.js';

/**
 * A connector's OpenAPI 3 document: checked with a maintained parser at registration (external
 * `$ref`s are never fetched, so registering a document cannot make Baton read a file or a URL),
 * and at call time the operation's parameters and body are validated against its schemas.
 */

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface OperationParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema?: JsonObject;
}

export interface Operation {
  operationId: string;
  method: string;
  path: string;
  summary?: string;
  parameters: OperationParameter[];
  body?: { required: boolean; contentType: string; schema?: JsonObject };
}

/** Problems of a document (empty when it is a valid OpenAPI 3 document). */
export async function checkOpenApiDocument(doc: JsonObject): Promise<string[]> {
  const version = doc.openapi;
  if (typeof version !== 'string' || !/^3\.\d+(\.\d+)?$/.test(version)) {
    return ['openapi must be "3.x" (an OpenAPI 3 document; Swagger 2 is not accepted)'];
  }
  const external = externalRef(doc);
  if (external !== undefined) {
    return [
      `$ref ${external.slice(0, 200)} points outside the document: a connector's document must be self-contained`,
    ];
  }
  try {
    // Loaded by the first registration that needs it, not at start. The parser dereferences
    // what it is given: give it a copy.
    const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
    await (SwaggerParser.validate as (api: unknown, options: unknown) => Promise<unknown>)(
      structuredClone(doc),
      {
        resolve: { external: false },
      },
    );
  } catch (err) {
    return [err instanceof Error ? err.message.slice(0, 2000) : String(err)];
  }
  const ops = operationsOf(doc);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const op of ops) {
    if (seen.has(op.operationId)) problems.push(`operationId ${op.operationId} is used twice`);
    seen.add(op.operationId);
  }
  if (ops.length === 0) problems.push('the document has no operation with an operationId');
  return problems;
}

/** The first `$ref` that is not local (`#/…`), if any. */
function externalRef(value: JsonValue | undefined, depth = 0): string | undefined {
  if (depth > 200 || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = externalRef(item, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value.$ref === 'string' && !value.$ref.startsWith('#')) return value.$ref;
  for (const item of Object.values(value)) {
    const found = externalRef(item, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Follows a local `$ref` (`#/components/...`); anything else is left as it is. */
function deref(doc: JsonObject, value: JsonValue | undefined, depth = 0): JsonValue | undefined {
  if (!isObject(value) || typeof value.$ref !== 'string' || depth > 20) return value;
  const ref = value.$ref;
  if (!ref.startsWith('#/')) return value;
  let current: JsonValue | undefined = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    current = isObject(current) ? current[key] : undefined;
  }
  return deref(doc, current, depth + 1);
}

/** Every operation that has an operationId, in document order. */
export function operationsOf(doc: JsonObject): Operation[] {
  const out: Operation[] = [];
  const paths = doc.paths;
  if (!isObject(paths)) return out;
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(doc, rawItem);
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op) || typeof op.operationId !== 'string') continue;
      const params = new Map<string, OperationParameter>();
      for (const raw of [...shared, ...(Array.isArray(op.parameters) ? op.parameters : [])]) {
        const p = deref(doc, raw);
        if (!isObject(p) || typeof p.name !== 'string') continue;
        const where = p.in;
        if (where !== 'path' && where !== 'query' && where !== 'header' && where !== 'cookie') continue;
        const schema = deref(doc, p.schema);
        params.set(`${where}:${p.name}`, {
          name: p.name,
          in: where,
          required: where === 'path' || p.required === true,
          ...(isObject(schema) && { schema }),
        });
      }
      let body: Operation['body'];
      const requestBody = deref(doc, op.requestBody);
      if (isObject(requestBody) && isObject(requestBody.content)) {
        const types = Object.keys(requestBody.content);
        const contentType = types.find((t) => /json/i.test(t)) ?? types[0] ?? 'application/json';
        const media = requestBody.content[contentType];
        const schema = isObject(media) ? media.schema : undefined;
        body = { required: requestBody.required === true, contentType, ...(isObject(schema) && { schema }) };
      }
      out.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        ...(typeof op.summary === 'string' && { summary: op.summary }),
        parameters: [...params.values()],
        ...(body && { body }),
      });
    }
  }
  return out;
}

/** The operations as Orkes's service methods (what `GET /api/registry/service/{name}` lists). */
export function methodsOf(doc: JsonObject): ServiceMethod[] {
  return operationsOf(doc).map((op) => ({
    operationName: op.operationId,
    methodName: `${op.method} ${op.path}`,
    methodType: op.method,
    ...(op.summary !== undefined && { description: op.summary }),
    requestParams: op.parameters.map((p) => ({
      name: p.name,
      type: p.in,
      required: p.required,
      ...(p.schema && { schema: p.schema }),
    })),
  }));
}

function pathOf(base: string, instancePath: string, missing?: unknown): string {
  const segments = instancePath
    .split('/')
    .filter(Boolean)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`))
    .join('');
  return `${base}${segments}${typeof missing === 'string' ? `.${missing}` : ''}`;
}

function describeError(base: string, e: ErrorObject): string {
  const missing = (e.params as { missingProperty?: unknown }).missingProperty;
  return `${pathOf(base, e.instancePath, missing)} ${e.message ?? 'is invalid'} (schema ${e.schemaPath})`;
}

/** Validators of one document's operations, compiled once (a schema's `#/components/…` refs resolve in the document). */
export class OpenApiValidators {
  private readonly ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true, logger: false });
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly operations: Map<string, Operation>;

  constructor(private readonly doc: JsonObject) {
    ajvFormats.default(this.ajv);
    this.operations = new Map(operationsOf(doc).map((op) => [op.operationId, op]));
  }

  operation(operationId: string): Operation | undefined {
    return this.operations.get(operationId);
  }

  operationIds(): string[] {
    return [...this.operations.keys()];
  }

  private validator(key: string, schema: JsonObject): ValidateFunction {
    let fn = this.cache.get(key);
    if (!fn) {
      // Wrapped so that `#/components/...` in the schema resolves against the document's components.
      const components = isObject(this.doc.components) ? this.doc.components : {};
      fn = this.ajv.compile({ components, allOf: [schema] });
      this.cache.set(key, fn);
    }
    return fn;
  }

  /** Problems of a call's parameters and body, each naming its path and schema path; empty when valid. */
  check(op: Operation, parameters: JsonObject, body: JsonValue | undefined): string[] {
    const problems: string[] = [];
    const known = new Set(op.parameters.map((p) => p.name));
    for (const name of Object.keys(parameters)) {
      if (!known.has(name))
        problems.push(`parameters.${name} is not a parameter of operation ${op.operationId}`);
    }
    for (const p of op.parameters) {
      const value = parameters[p.name];
      if (value === undefined || value === null) {
        if (p.required) problems.push(`parameters.${p.name} is required (${p.in} parameter)`);
        continue;
      }
      if (!p.schema) continue;
      const fn = this.validator(`${op.operationId}:${p.in}:${p.name}`, p.schema);
      if (!fn(value))
        for (const e of fn.errors ?? []) problems.push(describeError(`parameters.${p.name}`, e));
    }
    if (op.body) {
      if (body === undefined || body === null) {
        if (op.body.required) problems.push(`body is required by operation ${op.operationId}`);
      } else if (op.body.schema) {
        const fn = this.validator(`${op.operationId}:body`, op.body.schema);
        if (!fn(body)) for (const e of fn.errors ?? []) problems.push(describeError('body', e));
      }
    } else if (body !== undefined && body !== null) {
      problems.push(`body: operation ${op.operationId} takes no request body`);
    }
    return problems;
  }
}
