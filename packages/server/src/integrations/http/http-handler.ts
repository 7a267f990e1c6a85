import { STATUS_CODES } from 'node:http';

import type { JsonObject, JsonValue, WorkflowTask } from '@baton/protocol';
import type { Dispatcher } from 'undici';

import type { CallContext, CallHandler, CallOutcome, SystemCall } from '../call-handler.js';
import type { EgressAgents } from './egress-agent.js';
import { EgressDeniedError } from './egress-policy.js';
import { checkHttpNode, parseHttpRequest, type HttpRequestSpec } from './http-request.js';

/**
 * The HTTP task (Conductor's `HttpTask`): one request with undici over pooled, egress-checked
 * connections. 2xx completes with `{response: {statusCode, headers, body, reasonPhrase}}`
 * (the body parsed when it is JSON); any other status fails with the status and body in the
 * reason; a transport error fails with `Failed to invoke HTTP task due to: …`. Every request
 * carries `Idempotency-Key: <taskId>` (unless the task sets its own), since a call whose node
 * dies is made again: calls are at-least-once.
 */

const MAX_REDIRECTS = 5;
/** How much of a failed response's body goes into the task's reason. */
const REASON_BODY_CHARS = 1000;

export interface HttpHandlerOptions {
  readonly agents: EgressAgents;
  /** `BATON_HTTP_MAX_RESPONSE_BYTES`: a larger body fails the task. */
  readonly maxResponseBytes: number;
}

class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
}

export class HttpCallHandler implements CallHandler {
  readonly taskTypes = ['HTTP'] as const;

  constructor(private readonly options: HttpHandlerOptions) {}

  check(node: WorkflowTask, path: string) {
    return checkHttpNode(node, path);
  }

  async call(call: SystemCall, ctx: CallContext): Promise<CallOutcome> {
    const parsed = parseHttpRequest(call.input);
    if ('problem' in parsed) return { status: 'FAILED', reason: parsed.problem };
    // Secrets are put in only now, for the request going out; nothing resolved is returned.
    const spec = parseHttpRequest(await ctx.resolveSecrets(call.input));
    if ('problem' in spec) return { status: 'FAILED', reason: spec.problem };
    ctx.log(`${spec.method} ${parsed.uri} (attempt ${call.attempt})`);
    try {
      const response = await this.send(spec, call.taskId, ctx.signal);
      const output: JsonObject = { response: response.view };
      if (response.view.statusCode >= 200 && response.view.statusCode < 300)
        return { status: 'COMPLETED', output };
      const text = typeof response.text === 'string' ? response.text : '';
      return {
        status: 'FAILED',
        reason: `HTTP ${response.view.statusCode} ${response.view.reasonPhrase}${text === '' ? '' : `: ${text.slice(0, REASON_BODY_CHARS)}`}`,
        output,
      };
    } catch (error) {
      const cause = rootCause(error);
      const message = `Failed to invoke HTTP task due to: ${cause.message}`;
      // A refused destination stays refused: no further attempt.
      const status = cause instanceof EgressDeniedError ? 'FAILED_WITH_TERMINAL_ERROR' : 'FAILED';
      return { status, reason: message, output: { response: message } };
    }
  }

  /** Follows redirects itself, so each hop is a request of its own through the egress check. */
  private async send(
    spec: HttpRequestSpec,
    taskId: string,
    signal: AbortSignal,
  ): Promise<{ view: ResponseView; text: string | undefined }> {
    const dispatcher = this.options.agents.agent(spec.connectTimeoutMs);
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
      const text = method === 'HEAD' ? '' : await readCapped(response.body, this.options.maxResponseBytes);
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
