import type { JsonObject, StartWorkflowRequest } from '@baton/protocol';

import { fail } from '../errors.js';
import { copyWith } from '../copy-with.js';

/**
 * The fields of the start request a body of `POST /api/workflow/{name}` may carry. A body with
 * none of them is Conductor's form: the bare input map, with `version`, `correlationId` and
 * `priority` as query parameters.
 */
export const START_REQUEST_FIELDS = [
  'version',
  'input',
  'correlationId',
  'priority',
  'taskToDomain',
  'idempotencyKey',
  'idempotencyStrategy',
  'externalInputPayloadStoragePath',
] as const;

/** Conductor's query parameters of `POST /api/workflow/{name}`. */
export interface StartQuery {
  version?: number;
  correlationId?: string;
  priority?: number;
}

const QUERY_FIELDS = ['version', 'correlationId', 'priority'] as const;

const known = new Set<string>(START_REQUEST_FIELDS);

/** Fields Conductor's StartWorkflowRequest has that Baton does not take, and what to do instead. */
const REFUSED_FIELDS: Readonly<Record<string, string>> = {
  workflowDef:
    'an inline workflowDef is taken only by POST /api/workflow (the start request with name): here, register the definition and start it by name',
  createdBy: "createdBy is not taken from the body: Baton records the caller's identity from its token",
};

function refuse(keys: string[], explain: (key: string) => string): never {
  const message = keys.map(explain).join('; ');
  throw fail(
    'START_REQUEST_INVALID',
    { detail: message },
    keys.map((key) => ({ path: `body.${key}`, message: explain(key) })),
  );
}

function unknownKeyMessage(key: string, fields: string): string {
  return REFUSED_FIELDS[key] ?? `unknown start request field ${JSON.stringify(key)} (${fields})`;
}

const WITH_NAME_FIELDS = `the fields are name, ${START_REQUEST_FIELDS.join(', ')}`;
const BY_NAME_FIELDS = `the fields are ${START_REQUEST_FIELDS.join(', ')}; a body with none of them is taken as the bare input map`;

/**
 * Reads the body of `POST /api/workflow/{name}` in either form, so no field is ever dropped in
 * silence: the start request (its fields, and `name` only when it repeats the path's), or the
 * bare input map (a body with none of the start request's fields). A start request with any
 * other top-level key is refused naming the keys. Conductor's query parameters apply to both
 * forms; one given both in the body and the query with different values is refused.
 */
export function startRequestFromBody(
  name: string,
  body: JsonObject | undefined,
  query: StartQuery,
): StartWorkflowRequest {
  const raw: JsonObject = body ?? {};
  const keys = Object.keys(raw);
  const bare = !keys.some((key) => known.has(key));
  const request: StartWorkflowRequest = bare
    ? { name, input: raw }
    : copyWith<JsonObject, { name: string }>(startFields(raw, name), { name });
  for (const field of QUERY_FIELDS) {
    const fromQuery = query[field];
    if (fromQuery === undefined) continue;
    const fromBody = request[field];
    if (fromBody !== undefined && fromBody !== fromQuery) {
      const message = `${field} is given twice with different values: ${JSON.stringify(fromBody)} in the body, ${JSON.stringify(fromQuery)} in the query`;
      throw fail('START_REQUEST_INVALID', { detail: message }, [
        { path: `querystring.${field}`, message, invalidValue: fromQuery },
      ]);
    }
    Object.assign(request, { [field]: fromQuery });
  }
  return request;
}

function startFields(raw: JsonObject, name: string): JsonObject {
  const unknown = Object.keys(raw).filter((key) => !known.has(key) && !(key === 'name' && raw[key] === name));
  if (unknown.length > 0) {
    refuse(unknown, (key) =>
      key === 'name'
        ? `body.name ${JSON.stringify(raw[key])} differs from the name in the path (${JSON.stringify(name)})`
        : unknownKeyMessage(key, BY_NAME_FIELDS),
    );
  }
  const { name: _name, ...fields } = raw;
  return fields;
}

/**
 * Refuses the top-level keys of a `POST /api/workflow` body that are not start request fields,
 * so a typo (`corelationId`) is an error rather than a field dropped in silence. With
 * `inlineDefinition` (`POST /api/workflow` itself), Conductor's inline `workflowDef` is one.
 */
export function refuseUnknownStartFields(body: object, inlineDefinition = false): void {
  const unknown = Object.keys(body).filter(
    (key) => key !== 'name' && !known.has(key) && !(inlineDefinition && key === 'workflowDef'),
  );
  if (unknown.length > 0) refuse(unknown, (key) => unknownKeyMessage(key, WITH_NAME_FIELDS));
}
