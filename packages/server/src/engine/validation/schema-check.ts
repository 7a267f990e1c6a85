import type { TaskDef } from '@baton/protocol';

import { compilerFor } from './check-task-def.js';
import { isRecord, type JsonRecord } from './common.js';

/**
 * Runtime checks of a task definition's `inputSchema` / `outputSchema` (the interface: "checked
 * when set"). Each schema is compiled once and kept by its text, so a definition read afresh
 * for every decision does not compile again. Compiling is deterministic, so the cache keeps
 * the engine pure.
 */

export interface SchemaViolation {
  /** JSON Pointer into the checked data (`/items/0/id`); empty for the whole value. */
  path: string;
  message: string;
}

type Check = (data: unknown) => SchemaViolation[];

const MAX_CACHED = 512;
const cache = new Map<string, Check>();

/** The JSON Schema inside a task definition's schema field (Conductor's `{type: 'JSON', data}` unwrapped). */
function schemaBody(schema: unknown): JsonRecord | undefined {
  if (!isRecord(schema)) return undefined;
  if (schema.type === 'JSON') return isRecord(schema.data) ? schema.data : undefined;
  if (schema.type === 'AVRO' || schema.type === 'PROTOBUF') return undefined;
  return schema;
}

function compile(body: JsonRecord): Check {
  const ajv = compilerFor(typeof body.$schema === 'string' ? body.$schema : '');
  try {
    const validate = ajv.compile(body);
    return (data) => {
      if (validate(data) === true) return [];
      return (validate.errors ?? []).map((e) => ({
        path: e.instancePath,
        message: e.message ?? 'is invalid',
      }));
    };
  } finally {
    // Keep nothing in ajv's registry: two definitions may share an $id.
    ajv.removeSchema(body);
    if (typeof body.$id === 'string') ajv.removeSchema(body.$id);
  }
}

function checkFor(body: JsonRecord): Check | undefined {
  const key = JSON.stringify(body);
  const hit = cache.get(key);
  if (hit) return hit;
  let check: Check;
  try {
    check = compile(body);
  } catch {
    // Registration refuses schemas that do not compile; one that slipped in is not enforced.
    return undefined;
  }
  if (cache.size >= MAX_CACHED) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(key, check);
  return check;
}

/**
 * Problems of `data` against the definition's `field` schema; empty when it conforms, when the
 * definition has no such schema, or when the definition opts out with `enforceSchema: false`.
 */
export function schemaViolations(
  def: TaskDef | undefined,
  field: 'inputSchema' | 'outputSchema',
  data: unknown,
): SchemaViolation[] {
  if (!def || def.enforceSchema === false) return [];
  const body = schemaBody(def[field]);
  if (!body) return [];
  return checkFor(body)?.(data) ?? [];
}

/** One line for a task's reasonForIncompletion: `inputSchema: /amount must be number; / must have required property 'id'`. */
export function describeViolations(
  field: 'inputSchema' | 'outputSchema',
  violations: readonly SchemaViolation[],
): string {
  const what = field === 'inputSchema' ? 'input' : 'output';
  const details = violations.map((v) => `${v.path === '' ? '/' : v.path} ${v.message}`).join('; ');
  return `Task ${what} does not match the task definition's ${field}: ${details}`;
}
