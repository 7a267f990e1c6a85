import type { WorkflowTask } from '@baton/protocol';

import type { CallContext, CallHandler, CallOutcome, SystemCall } from '../call-handler.js';
import type { EgressAgents } from './egress-agent.js';
import { exchange } from './http-exchange.js';
import { checkHttpNode, parseHttpRequest } from './http-request.js';

/**
 * The HTTP task (Conductor's `HttpTask`): reads `http_request` (or the same keys at the top of
 * the input), puts secrets in for the request going out only, and makes one exchange
 * (`http-exchange.ts`: output, failure messages, egress, Idempotency-Key).
 */

export interface HttpHandlerOptions {
  readonly agents: EgressAgents;
  /** `BATON_HTTP_MAX_RESPONSE_BYTES`: a larger body fails the task. */
  readonly maxResponseBytes: number;
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
    return exchange(spec, {
      agents: this.options.agents,
      maxResponseBytes: this.options.maxResponseBytes,
      taskId: call.taskId,
      signal: ctx.signal,
      label: 'HTTP',
    });
  }
}
