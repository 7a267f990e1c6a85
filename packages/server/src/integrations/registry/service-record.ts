import type { JsonObject, JsonValue } from '@baton/protocol';

import { SECRET_NAME_PATTERN } from '../secrets/secret-refs.js';

/**
 * A registered service (Orkes's `ServiceRegistry` shape, extended): an MCP action service, an
 * OpenAPI-described connector, a document-analysis service, or an Orkes gRPC service (stored so
 * Orkes's client works; no Baton task calls it). Credentials are secret names, never values.
 */
export const SERVICE_KINDS = ['mcp', 'connector', 'document-intelligence', 'grpc'] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];

/** Orkes's `type` for each kind (document intelligence is Baton's own). */
export const ORKES_TYPE_OF: Record<ServiceKind, string> = {
  mcp: 'MCP_REMOTE',
  connector: 'HTTP',
  'document-intelligence': 'DOCUMENT_INTELLIGENCE',
  grpc: 'gRPC',
};
const KIND_OF_TYPE: Record<string, ServiceKind> = {
  MCP_REMOTE: 'mcp',
  HTTP: 'connector',
  DOCUMENT_INTELLIGENCE: 'document-intelligence',
  gRPC: 'grpc',
};

export type ServiceAuth =
  | { type: 'bearer'; secret: string }
  | { type: 'apiKey'; header: string; secret: string }
  | { type: 'basic'; username?: string; usernameSecret?: string; secret: string };

/** Orkes's ServiceMethod: an MCP tool or a connector operation. */
export interface ServiceMethod {
  id?: number;
  operationName: string;
  methodName: string;
  methodType: string;
  inputType?: string;
  outputType?: string;
  requestParams?: JsonValue[];
  exampleInput?: JsonValue;
  description?: string;
  inputSchema?: JsonValue;
}

export interface CircuitBreakerState {
  state: 'OPEN' | 'CLOSED';
  transitionTimestamp: number;
  message?: string;
  /** The state before the last transition the breaker wrote (for the status answer). */
  previousState?: 'OPEN' | 'CLOSED' | 'HALF_OPEN';
  /** Who opened it: the automatic breaker half-opens after its wait; an operator's stays open. Absent: an operator. */
  openedBy?: 'operator' | 'breaker';
}

export interface ServiceRecord {
  name: string;
  kind: ServiceKind;
  url: string;
  description?: string;
  auth?: ServiceAuth;
  /** Extra headers sent on every call (no credentials: use `auth`). */
  headers?: Record<string, string>;
  /** A connector's OpenAPI 3 document. */
  openApi?: JsonObject;
  /** document-intelligence: the REST protocol version (`api-version`). */
  apiVersion?: string;
  methods: ServiceMethod[];
  circuitBreakerEnabled: boolean;
  config?: JsonObject;
  requestParams?: JsonValue[];
  circuitBreaker: CircuitBreakerState;
}

/** The body of `POST /api/registry/service`: Baton's fields or Orkes's (`type`, `serviceURI`). */
export const serviceBodySchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.-]+$' },
    kind: { type: 'string', enum: SERVICE_KINDS },
    type: { type: 'string', enum: Object.keys(KIND_OF_TYPE) },
    url: { type: 'string', minLength: 1, maxLength: 2048 },
    serviceURI: { type: 'string', minLength: 1, maxLength: 2048 },
    description: { type: 'string', maxLength: 4096 },
    auth: {
      type: 'object',
      required: ['type', 'secret'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: ['bearer', 'apiKey', 'basic'] },
        secret: { type: 'string', pattern: SECRET_NAME_PATTERN, maxLength: 128 },
        header: { type: 'string', minLength: 1, maxLength: 256, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" },
        username: { type: 'string', maxLength: 256 },
        usernameSecret: { type: 'string', pattern: SECRET_NAME_PATTERN, maxLength: 128 },
      },
    },
    headers: {
      type: 'object',
      maxProperties: 64,
      propertyNames: { maxLength: 256, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" },
      additionalProperties: { type: 'string', maxLength: 8192, pattern: '^[^\\r\\n]*$' },
    },
    openApi: { type: 'object' },
    apiVersion: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9.-]+$' },
    methods: { type: 'array', maxItems: 10_000, items: { type: 'object' } },
    circuitBreakerEnabled: { type: 'boolean' },
    config: { type: 'object' },
    requestParams: { type: 'array', maxItems: 1000 },
  },
} as const;

export interface ServiceBody {
  name: string;
  kind?: ServiceKind;
  type?: string;
  url?: string;
  serviceURI?: string;
  description?: string;
  auth?: {
    type: 'bearer' | 'apiKey' | 'basic';
    secret: string;
    header?: string;
    username?: string;
    usernameSecret?: string;
  };
  headers?: Record<string, string>;
  openApi?: JsonObject;
  apiVersion?: string;
  methods?: JsonObject[];
  circuitBreakerEnabled?: boolean;
  config?: JsonObject;
  requestParams?: JsonValue[];
}

export interface FieldProblem {
  path: string;
  message: string;
}

/** Headers a registered service may not set itself (credentials go in `auth`, framing is the client's). */
const RESERVED_HEADERS = new Set([
  'authorization',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
]);

export function kindOf(body: ServiceBody): ServiceKind | undefined {
  return body.kind ?? (body.type !== undefined ? KIND_OF_TYPE[body.type] : undefined);
}

/** Checks the fields a JSON schema cannot (kind and type agree, the URL, auth); answers the problems. */
export function checkServiceBody(body: ServiceBody): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const kind = kindOf(body);
  if (!kind)
    problems.push({
      path: 'body.kind',
      message: `kind (or Orkes's type) is required: one of ${SERVICE_KINDS.join(', ')}`,
    });
  if (body.kind && body.type && KIND_OF_TYPE[body.type] !== body.kind) {
    problems.push({ path: 'body.type', message: `type ${body.type} does not match kind ${body.kind}` });
  }
  const url = body.url ?? body.serviceURI;
  if (url === undefined) problems.push({ path: 'body.url', message: 'url (or serviceURI) is required' });
  else if (kind !== 'grpc') {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      problems.push({ path: 'body.url', message: 'must be an absolute http:// or https:// URL' });
    } else if (parsed.username !== '' || parsed.password !== '') {
      problems.push({
        path: 'body.url',
        message: 'must not carry credentials: register them as secrets and reference them in auth',
      });
    }
  }
  const auth = body.auth;
  if (auth?.type === 'apiKey' && auth.header === undefined) {
    problems.push({ path: 'body.auth.header', message: 'an apiKey auth names its header (e.g. X-Api-Key)' });
  }
  if (auth?.type === 'basic' && auth.username === undefined && auth.usernameSecret === undefined) {
    problems.push({ path: 'body.auth.username', message: 'a basic auth has a username or a usernameSecret' });
  }
  for (const name of Object.keys(body.headers ?? {})) {
    if (RESERVED_HEADERS.has(name.toLowerCase())) {
      problems.push({
        path: `body.headers.${name}`,
        message: 'this header cannot be set here (credentials go in auth, as secret names)',
      });
    }
  }
  if (kind === 'connector' && body.openApi === undefined) {
    problems.push({ path: 'body.openApi', message: 'a connector carries its OpenAPI 3 document' });
  }
  if (kind !== 'connector' && body.openApi !== undefined) {
    problems.push({ path: 'body.openApi', message: 'only a connector carries an OpenAPI document' });
  }
  return problems;
}

function authOf(body: ServiceBody): ServiceAuth | undefined {
  const a = body.auth;
  if (!a) return undefined;
  if (a.type === 'bearer') return { type: 'bearer', secret: a.secret };
  if (a.type === 'apiKey') return { type: 'apiKey', header: a.header ?? '', secret: a.secret };
  return {
    type: 'basic',
    secret: a.secret,
    ...(a.username !== undefined && { username: a.username }),
    ...(a.usernameSecret !== undefined && { usernameSecret: a.usernameSecret }),
  };
}

function methodOf(raw: JsonObject): ServiceMethod {
  const text = (v: JsonValue | undefined): string | undefined =>
    typeof v === 'string' ? v.slice(0, 1024) : undefined;
  const operationName = text(raw.operationName) ?? text(raw.methodName) ?? '';
  return {
    ...(typeof raw.id === 'number' && Number.isInteger(raw.id) && { id: raw.id }),
    operationName,
    methodName: text(raw.methodName) ?? operationName,
    methodType: text(raw.methodType) ?? 'TOOL',
    ...(text(raw.inputType) !== undefined && { inputType: text(raw.inputType) }),
    ...(text(raw.outputType) !== undefined && { outputType: text(raw.outputType) }),
    ...(Array.isArray(raw.requestParams) && { requestParams: raw.requestParams }),
    ...(raw.exampleInput !== undefined && { exampleInput: raw.exampleInput }),
    ...(text(raw.description) !== undefined && { description: text(raw.description) }),
    ...(raw.inputSchema !== undefined && { inputSchema: raw.inputSchema }),
  };
}

/** The record to store (the body checked by `checkServiceBody` first). */
export function recordOf(body: ServiceBody, previous: ServiceRecord | undefined, now: number): ServiceRecord {
  const auth = authOf(body);
  return {
    name: body.name,
    kind: kindOf(body) ?? 'mcp',
    url: body.url ?? body.serviceURI ?? '',
    ...(body.description !== undefined && { description: body.description }),
    ...(auth && { auth }),
    ...(body.headers !== undefined && { headers: body.headers }),
    ...(body.openApi !== undefined && { openApi: body.openApi }),
    ...(body.apiVersion !== undefined && { apiVersion: body.apiVersion }),
    methods: body.methods?.map(methodOf).filter((m) => m.operationName !== '') ?? previous?.methods ?? [],
    circuitBreakerEnabled: body.circuitBreakerEnabled ?? false,
    ...(body.config !== undefined && { config: body.config }),
    ...(body.requestParams !== undefined && { requestParams: body.requestParams }),
    circuitBreaker: previous?.circuitBreaker ?? { state: 'CLOSED', transitionTimestamp: now },
  };
}

/** The answer for a record: Baton's fields and Orkes's (`type`, `serviceURI`) side by side. */
export function answerOf(
  record: ServiceRecord,
  times: { createTime: number; updateTime: number },
): JsonObject {
  return {
    ...(record as unknown as JsonObject),
    type: ORKES_TYPE_OF[record.kind],
    serviceURI: record.url,
    createTime: times.createTime,
    updateTime: times.updateTime,
  };
}
