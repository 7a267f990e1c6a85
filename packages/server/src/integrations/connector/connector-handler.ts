import type { JsonObject, JsonValue, ValidationError, WorkflowTask } from '@baton/protocol';

import type { CallContext, CallHandler, CallOutcome, SystemCall } from '../call-handler.js';
import { CallInputError, failureOf } from '../call-failure.js';
import { readAnswer, responseOutput } from '../http-answer.js';
import { type RegistryService, expectKind } from '../registry/registry-service.js';
import { serviceHeaders } from '../registry/service-auth.js';
import { CallSecrets } from '../secrets/call-secrets.js';
import type { Operation } from './openapi-document.js';

/**
 * CONNECTOR: one operation (by operationId) of a registered connector, an external system
 * described by an OpenAPI 3 document. Parameters and body are checked against the operation's
 * schemas before anything goes out (a mismatch ends the task, naming the path and the schema
 * path); the request carries `Idempotency-Key: <taskId>` so the target can drop a repeat; the
 * output has HTTP's shape.
 */

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

function text(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The URL of an operation: base URL + path with its path parameters, then the query. */
export function operationUrl(base: string, op: Operation, parameters: JsonObject): URL {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = parameters[name];
    return encodeURIComponent(value === undefined || value === null ? '' : text(value));
  });
  const url = new URL(base.replace(/\/+$/, '') + path);
  for (const p of op.parameters) {
    if (p.in !== 'query') continue;
    const value = parameters[p.name];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(p.name, text(item));
    else url.searchParams.append(p.name, text(value));
  }
  return url;
}

export class ConnectorHandler implements CallHandler {
  readonly taskTypes = ['CONNECTOR'] as const;

  constructor(private readonly registry: RegistryService) {}

  check(node: WorkflowTask, path: string): ValidationError[] {
    const errors: ValidationError[] = [];
    const input = node.inputParameters ?? {};
    for (const [field, what] of [
      ['connector', 'the name of a registered connector'],
      ['operation', "the operationId of one of the connector's operations"],
    ] as const) {
      const value = input[field];
      if (typeof value !== 'string' || value === '') {
        errors.push({
          path: `${path}.inputParameters.${field}`,
          message: `CONNECTOR needs ${field}: ${what}`,
          invalidValue: value ?? null,
        });
      }
    }
    const params = input.parameters;
    if (
      params !== undefined &&
      params !== null &&
      !(typeof params === 'string' && params.includes('${')) &&
      !isObject(params)
    ) {
      errors.push({
        path: `${path}.inputParameters.parameters`,
        message: 'parameters must be an object',
        invalidValue: params,
      });
    }
    return errors;
  }

  async call(call: SystemCall, ctx: CallContext): Promise<CallOutcome> {
    const secrets = new CallSecrets(ctx);
    try {
      return secrets.outcome(await this.run(call, ctx, secrets));
    } catch (err) {
      return secrets.outcome(failureOf(err, 'Connector call failed'));
    }
  }

  private async run(call: SystemCall, ctx: CallContext, secrets: CallSecrets): Promise<CallOutcome> {
    const input = call.input;
    const name = input.connector;
    const operationId = input.operation;
    if (typeof name !== 'string' || typeof operationId !== 'string') {
      throw new CallInputError('connector and operation are required');
    }
    const found = await this.registry.connector(name);
    const record = expectKind(found?.record, name, 'connector');
    const validators = found?.validators;
    const op = validators?.operation(operationId);
    if (!validators || !op) {
      throw new CallInputError(`connector '${name}' has no operation '${operationId}'`);
    }
    const rawParams = input.parameters ?? {};
    if (!isObject(rawParams)) throw new CallInputError('parameters must be an object');
    const parameters = await secrets.resolve(rawParams);
    const body =
      input.body === undefined || input.body === null
        ? undefined
        : (await secrets.resolve({ body: input.body })).body;
    const problems = validators.check(op, parameters, body);
    if (problems.length > 0) {
      throw new CallInputError(
        `input of operation ${operationId} does not match its schema: ${problems.slice(0, 10).join('; ')}`,
      );
    }

    const headers: Record<string, string> = {
      accept: 'application/json, */*;q=0.5',
      ...(await serviceHeaders(record, secrets)),
      'idempotency-key': call.taskId,
    };
    const cookies: string[] = [];
    for (const p of op.parameters) {
      const value = parameters[p.name];
      if (value === undefined || value === null) continue;
      if (p.in === 'header') headers[p.name.toLowerCase()] = text(value);
      if (p.in === 'cookie') cookies.push(`${p.name}=${encodeURIComponent(text(value))}`);
    }
    if (cookies.length > 0) headers.cookie = cookies.join('; ');
    let payload: string | undefined;
    if (body !== undefined) {
      const contentType = op.body?.contentType ?? 'application/json';
      headers['content-type'] = contentType;
      payload = /json/i.test(contentType) || typeof body !== 'string' ? JSON.stringify(body) : body;
    }
    const url = operationUrl(record.url, op, parameters);
    // Admitted once the input is known to be good: a refused input says nothing about the service.
    const permit = this.registry.breakers.admit(record, () => ctx.now());
    ctx.log(`${op.method} ${url.origin}${url.pathname} (operation ${operationId}, attempt ${call.attempt})`);
    let answer: Awaited<ReturnType<typeof readAnswer>>;
    try {
      const res = await permit.watch(ctx.fetch, ctx.signal)(url, {
        method: op.method,
        headers,
        ...(payload !== undefined && { body: payload }),
        signal: ctx.signal,
        redirect: 'manual',
      });
      answer = await readAnswer(res);
    } finally {
      await permit.end(undefined);
    }
    const output = responseOutput(answer);
    if (answer.statusCode >= 200 && answer.statusCode < 300) return { status: 'COMPLETED', output };
    const excerpt = answer.text.length > 1000 ? `${answer.text.slice(0, 1000)}…` : answer.text;
    return {
      status: 'FAILED',
      reason: `Connector call failed: ${op.method} ${operationId} answered ${answer.statusCode} ${answer.reasonPhrase}${excerpt ? `: ${excerpt}` : ''}`,
      output,
    };
  }
}
