import type { JsonObject, JsonValue, ValidationError, WorkflowTask } from '@baton/protocol';

/**
 * Conductor's HTTP task input (docs/integrations.md#calls-the-engine-makes-http-tasks):
 * `http_request {uri, method, headers, body, accept, contentType, connectionTimeOut, readTimeOut}`,
 * or the same keys at the top of `inputParameters`. Read here once for the registration check and
 * for the call.
 */

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Conductor's defaults (`HttpTask.HttpRequest`). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 3000;
export const DEFAULT_READ_TIMEOUT_MS = 3000;
/** Upper bound of either timeout: a call never holds a slot longer than this waiting. */
export const MAX_TIMEOUT_MS = 24 * 3600 * 1000;

export const MISSING_URI = 'Missing HTTP URI.  See documentation for HttpTask for required input parameters';
export const MISSING_METHOD = 'No HTTP method specified';

export interface HttpRequestSpec {
  readonly uri: string;
  readonly method: HttpMethod;
  readonly headers: Record<string, string>;
  readonly body: JsonValue | undefined;
  readonly accept: string;
  readonly contentType: string;
  readonly connectTimeoutMs: number;
  readonly readTimeoutMs: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object holding the request's keys: `http_request` when it is an object, else the input itself. */
export function requestObject(input: Record<string, unknown>): Record<string, unknown> {
  const nested = input.http_request;
  return isRecord(nested) ? nested : input;
}

function timeout(value: unknown, fallback: number): number | string {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0)
    return `must be a number of milliseconds, got ${JSON.stringify(value)}`;
  return Math.min(Math.floor(n), MAX_TIMEOUT_MS) || fallback;
}

/** The request a resolved input asks for, or the reason it cannot be made (the task fails with it). */
export function parseHttpRequest(input: JsonObject): HttpRequestSpec | { problem: string } {
  const req = requestObject(input);
  const uri = req.uri;
  if (typeof uri !== 'string' || uri.trim() === '') return { problem: MISSING_URI };
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { problem: `Invalid HTTP URI: ${uri}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { problem: `Unsupported HTTP URI scheme ${url.protocol} (http: or https: only)` };
  const rawMethod = req.method;
  if (typeof rawMethod !== 'string' || rawMethod.trim() === '') return { problem: MISSING_METHOD };
  const method = rawMethod.trim().toUpperCase();
  if (!(HTTP_METHODS as readonly string[]).includes(method))
    return { problem: `Unknown HTTP method ${rawMethod} (one of ${HTTP_METHODS.join(', ')})` };
  const headers: Record<string, string> = {};
  if (isRecord(req.headers)) {
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || value === null) continue;
      headers[name] = Array.isArray(value)
        ? value.map(String).join(', ')
        : typeof value === 'string'
          ? value
          : JSON.stringify(value);
    }
  } else if (req.headers !== undefined && req.headers !== null) {
    return { problem: 'http_request.headers must be an object of header names to values' };
  }
  const accept = Array.isArray(req.accept)
    ? req.accept.map(String).join(', ')
    : typeof req.accept === 'string' && req.accept !== ''
      ? req.accept
      : 'application/json';
  const contentType =
    typeof req.contentType === 'string' && req.contentType !== '' ? req.contentType : 'application/json';
  const connect = timeout(req.connectionTimeOut, DEFAULT_CONNECT_TIMEOUT_MS);
  if (typeof connect === 'string') return { problem: `connectionTimeOut ${connect}` };
  const read = timeout(req.readTimeOut, DEFAULT_READ_TIMEOUT_MS);
  if (typeof read === 'string') return { problem: `readTimeOut ${read}` };
  return {
    uri: url.toString(),
    method: method as HttpMethod,
    headers,
    body: req.body as JsonValue | undefined,
    accept,
    contentType,
    connectTimeoutMs: connect,
    readTimeoutMs: read,
  };
}

function isExpression(value: unknown): boolean {
  return typeof value === 'string' && value.includes('${');
}

/** Registration checks of an HTTP node: a uri and a known method, unless given by expressions. */
export function checkHttpNode(node: WorkflowTask, path: string): ValidationError[] {
  const params: unknown = node.inputParameters;
  if (!isRecord(params)) {
    return [{ path: `${path}.inputParameters`, message: `${MISSING_URI} (taskName: ${node.name})` }];
  }
  if (isExpression(params.http_request)) return [];
  const nested = isRecord(params.http_request);
  const req = requestObject(params);
  const at = `${path}.inputParameters${nested ? '.http_request' : ''}`;
  const errors: ValidationError[] = [];
  const uri = req.uri;
  if (typeof uri !== 'string' || uri.trim() === '') {
    errors.push({
      path: `${at}.uri`,
      message: `${MISSING_URI} (taskName: ${node.name})`,
      ...(uri !== undefined && { invalidValue: uri }),
    });
  } else if (!isExpression(uri)) {
    let scheme: string | undefined;
    try {
      scheme = new URL(uri).protocol;
    } catch {
      // Conductor registers a uri that is no URL and fails the task when it runs; on an optional
      // task that failure is what the author allowed for (Conductor's SDK suite registers exactly
      // this), so only a required task is refused here.
      if (node.optional !== true)
        errors.push({ path: `${at}.uri`, message: `Invalid HTTP URI: ${uri}`, invalidValue: uri });
    }
    if (scheme !== undefined && scheme !== 'http:' && scheme !== 'https:')
      errors.push({
        path: `${at}.uri`,
        message: `Unsupported HTTP URI scheme ${scheme} (http: or https: only)`,
        invalidValue: uri,
      });
  }
  const method = req.method;
  if (typeof method !== 'string' || method.trim() === '') {
    errors.push({
      path: `${at}.method`,
      message: `${MISSING_METHOD} (taskName: ${node.name})`,
      ...(method !== undefined && { invalidValue: method }),
    });
  } else if (
    !isExpression(method) &&
    !(HTTP_METHODS as readonly string[]).includes(method.trim().toUpperCase())
  ) {
    errors.push({
      path: `${at}.method`,
      message: `Unknown HTTP method ${method} (one of ${HTTP_METHODS.join(', ')})`,
      invalidValue: method,
    });
  }
  for (const field of ['connectionTimeOut', 'readTimeOut'] as const) {
    const value = req[field];
    if (value === undefined || value === null || isExpression(value)) continue;
    const n = typeof value === 'string' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0)
      errors.push({
        path: `${at}.${field}`,
        message: `${field} must be a number of milliseconds`,
        invalidValue: value,
      });
  }
  if (
    req.headers !== undefined &&
    req.headers !== null &&
    !isRecord(req.headers) &&
    !isExpression(req.headers)
  )
    errors.push({
      path: `${at}.headers`,
      message: 'headers must be an object of header names to values',
      invalidValue: req.headers,
    });
  return errors;
}
