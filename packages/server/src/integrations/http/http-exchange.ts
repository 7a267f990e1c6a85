import { STATUS_CODES } from 'node:http';

import type { JsonObject, JsonValue } from '@baton/protocol';
import type { Dispatcher } from 'undici';

import type { CallOutcome } from '../call-handler.js';
import type { EgressAgents } from './egress-agent.js';
import { EgressDeniedError } from './egress-policy.js';
import type { HttpRequestSpec } from './http-request.js';

/**
 * One HTTP exchange as a call outcome, shared by the kinds whose output has the HTTP task's
 * shape (HTTP, CONNECTOR): undici over the pooled, egress-checked agents, redirects followed
 * hop by hop (each through the egress check), the response body capped and parsed when JSON.
 * 2xx completes with `{response: {statusCode, headers, body, reasonPhrase}}`; any other status
 * fails with the status and body in the reason; a transport error fails with
 * `Failed to invoke <label> task due to: …` (a refused destination for good). Every request
 * carries `Idempotency-Key: <taskId>` unless the spec sets its own: calls are at-least-once.
 */

const MAX_REDIRECTS = 5;
/** How much of a failed response's body goes into the task's reason. */
const REASON_BODY_CHARS = 1000;

export interface ExchangeOptions {
  readonly agents: EgressAgents;
  /** `BATON_HTTP_MAX_RESPONSE_BYTES`: a larger body fails the task. */
  readonly maxResponseBytes: number;
  /** The attempt's task id: the Idempotency-Key. */
  readonly taskId: string;
  readonly signal: AbortSignal;
  /** The kind named in transport failures (`HTTP`, `CONNECTOR`). */
  readonly label: string;
}

class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
}

export async function exchange(spec: HttpRequestSpec, options: ExchangeOptions): Promise<CallOutcome> {
  try {
    const response = await send(spec, options);
    const output: JsonObject = { response: response.view };
    if (response.view.statusCode >= 200 && response.view.statusCode < 300)
      return { status: 'COMPLETED', output };
    const text = response.text;
    return {
      status: 'FAILED',
      reason: `HTTP ${response.view.statusCode} ${response.view.reasonPhrase}${text === '' ? '' : `: ${text.slice(0, REASON_BODY_CHARS)}`}`,
      output,
    };
  } catch (error) {
    const cause = rootCause(error);
    const message = `Failed to invoke ${options.label} task due to: ${cause.message}`;
    // A refused destination stays refused: no further attempt.
    const status = cause instanceof EgressDeniedError ? 'FAILED_WITH_TERMINAL_ERROR' : 'FAILED';
    return { status, reason: message, output: { response: message } };
  }
}

/** Follows redirects itself, so each hop is a request of its own through the egress check. */
async function send(
  spec: HttpRequestSpec,
  options: ExchangeOptions,
): Promise<{ view: ResponseView; text: string }> {
  const { taskId, signal } = options;
  const dispatcher = options.agents.agent(spec.connectTimeoutMs);
  let url = new URL(spec.uri);
  let method: Dispatcher.HttpMethod = spec.method;
  let body = requestBody(spec);
  for (let hop = 0; ; hop++) {
    const headers = requestHeaders(spec, taskId, body !== undefined);
    const response = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method,
      headers,
      body: body ?? null,
      signal,
      headersTimeout: spec.readTimeoutMs,
      bodyTimeout: spec.readTimeoutMs,
    });
    const location = response.headers.location;
    if (hop < MAX_REDIRECTS && isRedirect(response.statusCode) && typeof location === 'string') {
      await response.body.dump().catch(() => {});
      url = new URL(location, url);
      if (
        response.statusCode === 303 ||
        ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST')
      ) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    let text = '';
    if (method === 'HEAD') await response.body.dump().catch(() => {});
    else text = await readCapped(response.body, options.maxResponseBytes);
    return {
      view: {
        statusCode: response.statusCode,
        headers: headerLists(response.headers),
        body: parseBody(text, response.headers['content-type']),
        reasonPhrase: STATUS_CODES[response.statusCode] ?? '',
      },
      text,
    };
  }
}

interface ResponseView extends JsonObject {
  statusCode: number;
  headers: Record<string, string[]>;
  body: JsonValue;
  reasonPhrase: string;
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function requestBody(spec: HttpRequestSpec): string | undefined {
  if (spec.method === 'GET' || spec.method === 'HEAD') return undefined;
  const body = spec.body;
  if (body === undefined || body === null) return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

function requestHeaders(spec: HttpRequestSpec, taskId: string, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: spec.accept };
  if (hasBody) headers['content-type'] = spec.contentType;
  for (const [name, value] of Object.entries(spec.headers)) headers[name.toLowerCase()] = value;
  // The target can drop a repeat of the same attempt (a call is made again after a node dies).
  headers['idempotency-key'] ??= taskId;
  return headers;
}

async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  max: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy();
      throw new ResponseTooLargeError(
        `response body larger than BATON_HTTP_MAX_RESPONSE_BYTES (${max} bytes)`,
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** JSON when it parses as JSON (Conductor tries regardless of the content type), else the text. */
function parseBody(text: string, contentType: string | string[] | undefined): JsonValue {
  if (text === '') return null;
  const type = Array.isArray(contentType) ? contentType.join(',') : (contentType ?? '');
  const trimmed = text.trimStart();
  if (type.includes('json') || trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(text) as JsonValue;
    } catch {
      return text;
    }
  }
  return text;
}

function headerLists(headers: Record<string, string | string[] | undefined>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value : [value];
  }
  return out;
}

/** undici wraps connect errors (ours included) as `cause`; the innermost says what happened. */
function rootCause(error: unknown): Error {
  let current: unknown = error;
  for (let depth = 0; depth < 5; depth++) {
    if (current instanceof EgressDeniedError) return current;
    const cause: unknown = current instanceof Error ? current.cause : undefined;
    if (cause === undefined) break;
    current = cause;
  }
  return current instanceof Error ? current : new Error(String(current));
}
