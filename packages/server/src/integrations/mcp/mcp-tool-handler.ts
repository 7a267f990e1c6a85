import type { JsonObject, JsonValue, ValidationError, WorkflowTask } from '@baton/protocol';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

import type { CallContext, CallHandler, CallOutcome, SystemCall } from '../call-handler.js';
import { CallInputError, failureOf, messageOf } from '../call-failure.js';
import { type RegistryService, expectKind } from '../registry/registry-service.js';
import type { CallVerdict, CircuitPermit } from '../registry/circuit-breaker.js';
import { serviceHeaders } from '../registry/service-auth.js';
import { CallSecrets } from '../secrets/call-secrets.js';
import type { SecretService } from '../secrets/secret-service.js';
import type { ServiceMethod, ServiceRecord } from '../registry/service-record.js';
import { mcpFailure } from './mcp-sdk.js';
import type { McpSessions, McpTarget } from './mcp-sessions.js';

/**
 * CALL_TOOL and LIST_TOOLS over the Model Context Protocol (Streamable HTTP). Baton's form names
 * a registered service (`{service, tool, arguments}`), whose URL and credentials come from the
 * registry; Conductor's CALL_MCP_TOOL / LIST_MCP_TOOLS name the server's URL (`mcpServer`,
 * `method`, `arguments`, `headers`) and run unchanged. A cancelled task aborts the request and
 * the SDK tells the server (`notifications/cancelled`).
 */

/** A tool call may run long; the task's own timeouts and the executor's lease bound it, not the SDK's 60 s default. */
const REQUEST_TIMEOUT_MS = 6 * 60 * 60 * 1000;
/** `discover` answers an operator's request: it does not wait long. */
const DISCOVERY_TIMEOUT_MS = 15_000;

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);
const isExpression = (v: unknown): boolean => typeof v === 'string' && v.includes('${');

function usesUrl(declaredType: string, input: JsonObject): boolean {
  return (
    declaredType === 'CALL_MCP_TOOL' ||
    declaredType === 'LIST_MCP_TOOLS' ||
    (input.mcpServer !== undefined && input.service === undefined)
  );
}

export class McpToolHandler implements CallHandler {
  readonly taskTypes = ['CALL_TOOL', 'LIST_TOOLS'] as const;

  constructor(
    private readonly registry: RegistryService,
    private readonly sessions: McpSessions,
  ) {}

  check(node: WorkflowTask, path: string): ValidationError[] {
    const errors: ValidationError[] = [];
    const input = node.inputParameters ?? {};
    const type = String(node.type);
    const listing = type === 'LIST_TOOLS' || type === 'LIST_MCP_TOOLS';
    const byUrl = usesUrl(type, input);
    const need = (field: string, message: string): void => {
      const value = input[field];
      if (value === undefined || value === null || value === '') {
        errors.push({ path: `${path}.inputParameters.${field}`, message, invalidValue: value ?? null });
      } else if (typeof value !== 'string') {
        errors.push({
          path: `${path}.inputParameters.${field}`,
          message: `${field} must be a string`,
          invalidValue: value,
        });
      }
    };
    if (byUrl) {
      need('mcpServer', `${type} needs mcpServer: the MCP server's URL`);
      const url = input.mcpServer;
      if (typeof url === 'string' && !isExpression(url) && !/^https?:\/\/[^\s]+$/i.test(url)) {
        errors.push({
          path: `${path}.inputParameters.mcpServer`,
          message: 'mcpServer must be an http:// or https:// URL',
          invalidValue: url,
        });
      }
      if (!listing) need('method', `${type} needs method: the name of the tool to call`);
      const headers = input.headers;
      if (headers !== undefined && !isExpression(headers) && !isObject(headers)) {
        errors.push({
          path: `${path}.inputParameters.headers`,
          message: 'headers must be an object of header values',
          invalidValue: headers,
        });
      }
    } else {
      need('service', `${type} needs service: the name of a registered MCP service`);
      if (!listing) need('tool', `${type} needs tool: the name of the tool to call`);
    }
    const args = input.arguments;
    if (!listing && args !== undefined && args !== null && !isExpression(args) && !isObject(args)) {
      errors.push({
        path: `${path}.inputParameters.arguments`,
        message: 'arguments must be an object',
        invalidValue: args,
      });
    }
    return errors;
  }

  async call(call: SystemCall, ctx: CallContext): Promise<CallOutcome> {
    const secrets = new CallSecrets(ctx);
    const listing = call.taskType === 'LIST_TOOLS';
    let permit: CircuitPermit | undefined;
    try {
      const prepared = await this.prepare(call, secrets, ctx);
      const { target, tool, args } = prepared;
      permit = prepared.permit;
      const options = { signal: ctx.signal, timeout: REQUEST_TIMEOUT_MS, resetTimeoutOnProgress: true };
      if (listing) {
        ctx.log(`listing tools at ${target.url}`);
        const result = await this.sessions.use(
          target,
          ctx.fetch as unknown as FetchLike,
          ctx.signal,
          (client) => client.listTools(undefined, options),
        );
        await permit?.end('success');
        const tools = result.tools.map((t) => ({
          name: t.name,
          description: t.description ?? '',
          inputSchema: t.inputSchema as JsonValue,
        }));
        return secrets.outcome({ status: 'COMPLETED', output: { tools } });
      }
      ctx.log(`calling tool ${tool} at ${target.url}`);
      const result = await this.sessions.use(
        target,
        ctx.fetch as unknown as FetchLike,
        ctx.signal,
        (client) => client.callTool({ name: tool, arguments: args }, undefined, options),
      );
      // A tool's own error (isError) is an answer: the service works.
      await permit?.end('success');
      const output: JsonObject = {
        content: (result.content ?? []) as JsonValue,
        structuredContent: (result.structuredContent ?? null) as JsonValue,
        isError: result.isError === true,
      };
      if (result.isError === true) {
        return secrets.outcome({
          status: 'FAILED',
          reason: `Tool ${tool} answered an error: ${textOf(result.content)}`,
          output,
        });
      }
      return secrets.outcome({ status: 'COMPLETED', output });
    } catch (err) {
      await permit?.end(serviceVerdict(err, ctx.signal));
      const what = listing ? 'Listing tools failed' : 'Tool call failed';
      if (mcpFailure(err) !== undefined)
        return secrets.outcome({ status: 'FAILED', reason: `${what}: ${messageOf(err)}` });
      return secrets.outcome(failureOf(err, what));
    } finally {
      await permit?.end(undefined);
    }
  }

  private async prepare(
    call: SystemCall,
    secrets: CallSecrets,
    ctx: CallContext,
  ): Promise<{ target: McpTarget; tool: string; args: Record<string, unknown>; permit?: CircuitPermit }> {
    const input = call.input;
    const rawArgs = input.arguments ?? {};
    if (!isObject(rawArgs)) throw new CallInputError('arguments must be an object');
    const args = await secrets.resolve(rawArgs);
    if (usesUrl(call.declaredType, input)) {
      const url = input.mcpServer;
      if (typeof url !== 'string' || !/^https?:\/\//i.test(url))
        throw new CallInputError('mcpServer must be an http:// or https:// URL');
      const rawHeaders = input.headers ?? {};
      if (!isObject(rawHeaders)) throw new CallInputError('headers must be an object');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(await secrets.resolve(rawHeaders)))
        headers[k] = typeof v === 'string' ? v : JSON.stringify(v);
      const resolvedUrl = (await secrets.resolve({ url })).url;
      return {
        target: { url: resolvedUrl, headers },
        tool: typeof input.method === 'string' ? input.method : '',
        args,
      };
    }
    const name = input.service;
    if (typeof name !== 'string' || name === '')
      throw new CallInputError('service is required: the name of a registered MCP service');
    const record = expectKind(await this.registry.find(name), name, 'mcp');
    const headers = await serviceHeaders(record, secrets);
    return {
      target: { url: record.url, headers },
      tool: typeof input.tool === 'string' ? input.tool : '',
      args,
      permit: this.registry.breakers.admit(record, () => ctx.now()),
    };
  }
}

/**
 * What a failed tool call says about the service, for its circuit breaker: no answer (a
 * transport error, a request timeout, a closed connection) is a failure; a protocol error the
 * server answered (an unknown tool, bad arguments) is not; a cancelled call counts for nothing.
 */
function serviceVerdict(err: unknown, signal: AbortSignal): CallVerdict | undefined {
  if (signal.aborted || err instanceof CallInputError) return undefined;
  const failure = mcpFailure(err);
  return failure === 'answered' ? 'success' : 'failure';
}

/** The text parts of a tool's answer, for a failure reason. */
function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '(no content)';
  const texts = content
    .filter(
      (c): c is { type: 'text'; text: string } =>
        isObject(c) && c.type === 'text' && typeof c.text === 'string',
    )
    .map((c) => c.text);
  const text = texts.join(' ');
  return text === '' ? '(no text content)' : text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

/** The tools of a registered MCP service as service methods (`GET …/discover`); its credentials come from secrets. */
export async function discoverTools(
  record: ServiceRecord,
  sessions: McpSessions,
  fetch: FetchLike,
  secrets: Pick<SecretService, 'values'>,
): Promise<ServiceMethod[]> {
  const headers = await serviceHeaders(
    record,
    new CallSecrets({
      resolveSecrets: (value) => Promise.resolve(value),
      secretValues: (names) => secrets.values(names),
    }),
  );
  const signal = AbortSignal.timeout(DISCOVERY_TIMEOUT_MS);
  const result = await sessions.use({ url: record.url, headers }, fetch, signal, (client) =>
    client.listTools(undefined, { signal, timeout: DISCOVERY_TIMEOUT_MS }),
  );
  return result.tools.map((tool) => ({
    operationName: tool.name,
    methodName: tool.name,
    methodType: 'TOOL',
    ...(tool.description !== undefined && { description: tool.description }),
    inputSchema: tool.inputSchema as JsonValue,
  }));
}
