import type { JsonObject, ValidationError, WorkflowTask } from '@baton/protocol';

import type { CallContext, CallHandler, CallOutcome, SystemCall } from '../call-handler.js';
import { CallInputError, failureOf, messageOf } from '../call-failure.js';
import { CallSecrets } from '../secrets/call-secrets.js';
import { type LlmClient, ProviderStatusError, resultOf } from './llm-answer.js';
import type { LlmMetrics } from './llm-metrics.js';
import { type LlmProviderRecord, type LlmProviderService, protocolOf, refusal } from './llm-providers.js';
import {
  chatRequestOf,
  checkLlmNode,
  embeddingsRequestOf,
  type LlmTaskKind,
  providerOf,
} from './llm-request.js';
import { type FindService, resolveRegistryTools } from './registry-tools.js';
import type { RunTokens } from './run-tokens.js';

/**
 * LLM_CHAT_COMPLETE, LLM_TEXT_COMPLETE and LLM_GENERATE_EMBEDDINGS on the leased executor: one
 * model call per attempt against the named provider (read at call time), the API key taken from
 * the secret store for the request only, `${workflow.secrets.X}` placeholders in prompts put in
 * for the request only, and the outcome masked of every secret value before it is stored.
 *
 * A 429 or 5xx answer does not hold the lease while waiting: the handler answers IN_PROGRESS
 * with the provider's `Retry-After`, so the task waits on a durable timer and the call is made
 * again after it (up to MAX_RATE_LIMIT_WAITS times; then the task fails and its retry rules
 * apply). Terminate, a timeout or skip abort the request through the executor's signal.
 *
 * A per-run token budget (`runTokenBudget` on the task, else BATON_LLM_RUN_TOKEN_BUDGET) is
 * checked before the call against the tokens the run's other LLM tasks used, and after it with
 * this call's usage: past it, the task fails for good with the usage in its output.
 */

const KINDS = ['LLM_CHAT_COMPLETE', 'LLM_TEXT_COMPLETE', 'LLM_GENERATE_EMBEDDINGS'] as const;
export const LLM_TASK_KINDS: readonly string[] = KINDS;
/** Rate-limit and server-error waits within one attempt before the attempt fails. */
export const MAX_RATE_LIMIT_WAITS = 10;
const MIN_WAIT_SECONDS = 1;
const MAX_WAIT_SECONDS = 300;
/** The Azure OpenAI API version when a provider's configuration names none (`api_version`). */
const AZURE_API_VERSION = '2024-10-21';
/** Public endpoints, when a provider configures none. */
const DEFAULT_BASE_URL: Record<string, string> = {
  openai: 'https://api.openai.com/v1',
  // Conductor's default for Ollama; its OpenAI-compatible API is under /v1.
  ollama: 'http://localhost:11434',
};

/**
 * The OpenAI client's base URL for an endpoint. Every server speaking the protocol (OpenAI,
 * Ollama, vLLM, LiteLLM) serves it under `/v1`; an endpoint given as a bare host (as Conductor's
 * Ollama integration is configured) gets `/v1` added, one with a path is taken as given.
 */
export function openAiBaseUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return endpoint;
  }
  if (url.pathname !== '/' && url.pathname !== '') return endpoint;
  return `${endpoint.replace(/\/+$/, '')}/v1`;
}

/** Seconds to wait from a Retry-After (seconds or an HTTP date), else a backoff by the waits so far. */
export function waitSeconds(retryAfter: string | undefined, waits: number, now: number): number {
  const header = retryAfter?.trim();
  let seconds = Number.NaN;
  if (header !== undefined && header !== '')
    seconds = /^\d+(\.\d+)?$/.test(header) ? Number(header) : (Date.parse(header) - now) / 1000;
  if (!Number.isFinite(seconds)) seconds = 2 ** Math.min(waits, 8);
  return Math.min(MAX_WAIT_SECONDS, Math.max(MIN_WAIT_SECONDS, Math.ceil(seconds)));
}

export interface LlmHandlerOptions {
  /** Server default of the per-run token budget (0: none). */
  readonly runTokenBudget: number;
}

export class LlmCallHandler implements CallHandler {
  readonly taskTypes = KINDS;

  constructor(
    private readonly providers: LlmProviderService,
    private readonly runTokens: RunTokens,
    private readonly options: LlmHandlerOptions,
    /** The service registry, for `tools` entries that name a service. */
    private readonly findService: FindService,
    private readonly metrics?: LlmMetrics,
  ) {}

  check(node: WorkflowTask, path: string): ValidationError[] {
    const kind = (KINDS as readonly string[]).includes(node.type ?? '')
      ? (node.type as LlmTaskKind)
      : 'LLM_CHAT_COMPLETE';
    return checkLlmNode(kind, node, path);
  }

  async call(call: SystemCall, ctx: CallContext): Promise<CallOutcome> {
    const secrets = new CallSecrets(ctx);
    const kind = call.taskType as LlmTaskKind;
    const providerName = providerOf(call.input) ?? '';
    const model = typeof call.input.model === 'string' ? call.input.model : '';
    try {
      const record = await this.providers.find(providerName);
      const refused = refusal(record, providerName, model);
      if (refused !== undefined || record === undefined) throw new CallInputError(refused ?? 'no provider');
      const budget = this.budgetOf(call.input);
      const usedBefore = budget > 0 ? await this.runTokens.usedBy(call.workflowId, call.taskId) : 0;
      if (budget > 0 && usedBefore >= budget) return overBudget(budget, usedBefore, 0, {});
      const input = await secrets.resolve(call.input);
      const client = await this.clientOf(record, secrets, ctx);
      const callOptions = { signal: ctx.signal, idempotencyKey: call.taskId };
      ctx.log(`${kind} ${model} on ${providerName} (attempt ${call.attempt})`);
      let output: JsonObject;
      let promptTokens: number;
      let completionTokens: number;
      if (kind === 'LLM_GENERATE_EMBEDDINGS') {
        const request = embeddingsRequestOf(input);
        const answer = await client.embed(request, callOptions);
        promptTokens = answer.promptTokens;
        completionTokens = 0;
        output = {
          result:
            answer.vectors.length === 1 && !Array.isArray(input.text)
              ? (answer.vectors[0] ?? [])
              : answer.vectors,
          tokenUsed: promptTokens,
          promptTokens,
          completionTokens: 0,
        };
      } else {
        const tools = await resolveRegistryTools(input.tools, this.findService);
        const request = chatRequestOf(kind, tools === undefined ? input : { ...input, tools });
        const answer = await client.chat(request, callOptions);
        promptTokens = answer.promptTokens;
        completionTokens = answer.completionTokens;
        output = {
          result: resultOf(answer.text, request.jsonOutput),
          finishReason: answer.finishReason,
          tokenUsed: promptTokens + completionTokens,
          promptTokens,
          completionTokens,
          toolCalls: answer.toolCalls,
        };
      }
      this.metrics?.used(providerName, model, promptTokens, completionTokens);
      this.metrics?.call(providerName, model, 'completed');
      const used = promptTokens + completionTokens;
      if (budget > 0 && usedBefore + used > budget)
        return secrets.outcome(overBudget(budget, usedBefore, used, output));
      return secrets.outcome({ status: 'COMPLETED', output });
    } catch (err) {
      return secrets.outcome(this.failure(err, call, ctx, providerName, model));
    }
  }

  private budgetOf(input: JsonObject): number {
    const value = input.runTokenBudget;
    const own =
      typeof value === 'number'
        ? value
        : typeof value === 'string' && value.trim() !== ''
          ? Number(value)
          : NaN;
    return Number.isFinite(own) && own >= 0 ? own : this.options.runTokenBudget;
  }

  private async clientOf(
    record: LlmProviderRecord,
    secrets: CallSecrets,
    ctx: CallContext,
  ): Promise<LlmClient> {
    const apiKey =
      record.apiKeySecret === undefined
        ? undefined
        : (await secrets.values([record.apiKeySecret])).get(record.apiKeySecret);
    // Each provider's SDK is loaded by the first call that needs it: together they hold about
    // 30 MB of a node's memory, which a node that never calls a model should not carry.
    if (protocolOf(record.type) === 'anthropic') {
      const { AnthropicClient } = await import('./anthropic-client.js');
      return new AnthropicClient({ baseURL: record.endpoint, apiKey, fetch: ctx.fetch });
    }
    const baseURL = record.endpoint ?? DEFAULT_BASE_URL[record.type.toLowerCase()];
    if (baseURL === undefined)
      throw new CallInputError(
        `LLM provider '${record.name}' (type ${record.type}) has no endpoint configured`,
      );
    const { OpenAiClient } = await import('./openai-client.js');
    if (protocolOf(record.type) === 'azure') {
      const version = record.configuration.api_version ?? record.configuration.apiVersion;
      return new OpenAiClient({
        baseURL,
        apiKey,
        fetch: ctx.fetch,
        azureApiVersion: typeof version === 'string' && version !== '' ? version : AZURE_API_VERSION,
      });
    }
    return new OpenAiClient({ baseURL: openAiBaseUrl(baseURL), apiKey, fetch: ctx.fetch });
  }

  private failure(
    err: unknown,
    call: SystemCall,
    ctx: CallContext,
    provider: string,
    model: string,
  ): CallOutcome {
    const label = `${call.declaredType} failed`;
    if (err instanceof ProviderStatusError) {
      const status = err.status;
      if (status === 429 || status >= 500) {
        const previous = call.previousOutput.rateLimitWaits;
        const waits = typeof previous === 'number' ? previous : 0;
        this.metrics?.call(provider, model, 'rate_limited');
        if (waits >= MAX_RATE_LIMIT_WAITS)
          return { status: 'FAILED', reason: `${label}: ${messageOf(err)} (still after ${waits} waits)` };
        const seconds = waitSeconds(err.retryAfter, waits, ctx.now());
        const nextCallAt = new Date(ctx.now() + seconds * 1000).toISOString();
        return {
          status: 'IN_PROGRESS',
          checkAfterSeconds: seconds,
          output: { rateLimitWaits: waits + 1, lastStatus: status, nextCallAt },
          waitingFor: `provider ${provider} answered ${status}; calling again at ${nextCallAt}`,
        };
      }
      this.metrics?.call(provider, model, 'failed');
      // 408 and 409 may pass on a later attempt; other 4xx answers (a bad key, an unknown model) will not.
      const terminal = status !== 408 && status !== 409;
      return {
        status: terminal ? 'FAILED_WITH_TERMINAL_ERROR' : 'FAILED',
        reason: `${label}: ${messageOf(err)}`,
      };
    }
    this.metrics?.call(provider, model, 'failed');
    return failureOf(err, label);
  }
}

function overBudget(budget: number, before: number, now: number, output: JsonObject): CallOutcome {
  const reason =
    now === 0
      ? `token budget exceeded: this run's LLM tasks used ${before} tokens of its budget of ${budget} (runTokenBudget); no call was made`
      : `token budget exceeded: this call used ${now} tokens, bringing the run to ${before + now} of its budget of ${budget} (runTokenBudget)`;
  return { status: 'FAILED_WITH_TERMINAL_ERROR', reason, output };
}
