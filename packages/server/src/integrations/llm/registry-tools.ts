import type { JsonObject, JsonValue } from '@baton/protocol';

import { CallInputError } from '../call-failure.js';
import type { ServiceRecord } from '../registry/service-record.js';

/**
 * `tools` entries that name a registered service instead of spelling the tool out:
 * `{service: 'tools'}` offers every method of the service (an MCP service's tools, a connector's
 * operations) as it is registered (`POST /api/registry/service`, or `discover?create=true`);
 * `{service: 'tools', name: 'echo'}` offers that one, its `description` and `inputSchema` taken
 * from the registry when the entry has none. The tool's `type` is the task kind that calls it
 * (`CALL_MCP_TOOL`, `CONNECTOR`) and `configParams.service` names the service, so a workflow can
 * route each tool call the model asks for to a task of that kind.
 */

export type FindService = (name: string) => Promise<ServiceRecord | undefined>;

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

function serviceOf(entry: JsonObject): string | undefined {
  if (typeof entry.service === 'string' && entry.service !== '') return entry.service;
  const params = entry.configParams;
  if (isObject(params) && typeof params.service === 'string' && params.service !== '') return params.service;
  return undefined;
}

function specOf(
  record: ServiceRecord,
  method: ServiceRecord['methods'][number],
  entry: JsonObject,
): JsonObject {
  const spec: JsonObject = {
    name: method.operationName,
    type:
      typeof entry.type === 'string'
        ? entry.type
        : record.kind === 'connector'
          ? 'CONNECTOR'
          : 'CALL_MCP_TOOL',
    configParams: { ...(isObject(entry.configParams) ? entry.configParams : {}), service: record.name },
    inputSchema: isObject(entry.inputSchema)
      ? entry.inputSchema
      : isObject(method.inputSchema)
        ? method.inputSchema
        : { type: 'object', properties: {} },
  };
  const description = typeof entry.description === 'string' ? entry.description : method.description;
  if (description !== undefined) spec.description = description;
  return spec;
}

/** `tools` with every entry that names a service expanded from the registry; others as given. */
export async function resolveRegistryTools(
  tools: JsonValue | undefined,
  find: FindService,
): Promise<JsonValue | undefined> {
  if (!Array.isArray(tools) || !tools.some((t) => isObject(t) && serviceOf(t) !== undefined)) return tools;
  const out: JsonValue[] = [];
  for (const entry of tools) {
    const service = isObject(entry) ? serviceOf(entry) : undefined;
    if (!isObject(entry) || service === undefined) {
      out.push(entry);
      continue;
    }
    const record = await find(service);
    if (!record)
      throw new CallInputError(
        `tools name service '${service}', which is not registered (POST /api/registry/service)`,
      );
    if (record.kind !== 'mcp' && record.kind !== 'connector')
      throw new CallInputError(
        `tools name service '${service}', a ${record.kind} service: only MCP and connector services have tools`,
      );
    const name = typeof entry.name === 'string' && entry.name !== '' ? entry.name : undefined;
    const methods =
      name === undefined
        ? record.methods
        : record.methods.filter((m) => m.operationName === name || m.methodName === name);
    if (methods.length === 0)
      throw new CallInputError(
        name === undefined
          ? `service '${service}' has no methods registered (GET /api/registry/service/${service}/discover?create=true)`
          : `service '${service}' has no method '${name}'`,
      );
    for (const method of methods) out.push(specOf(record, method, entry));
  }
  return out;
}
