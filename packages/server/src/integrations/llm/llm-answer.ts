import type { JsonObject, JsonValue } from '@baton/protocol';

import type { ChatRequest, EmbeddingsRequest, LlmToolCall } from './llm-request.js';

/**
 * What a provider client answers, in Conductor's `LLMResponse` terms (`result`, `finishReason`,
 * `tokenUsed`, `promptTokens`, `completionTokens`, `toolCalls`), and the port both clients
 * (OpenAI-compatible, Anthropic) implement.
 */

export interface ChatAnswer {
  /** The text the model answered ('' when it only asked for tools). */
  text: string;
  /** Conductor's upper-case reason: STOP, LENGTH, TOOL_CALLS, CONTENT_FILTER, … */
  finishReason: string;
  promptTokens: number;
  completionTokens: number;
  toolCalls: LlmToolCall[];
}

export interface EmbeddingsAnswer {
  vectors: number[][];
  promptTokens: number;
}

export interface ClientCall {
  readonly signal: AbortSignal;
  /** Sent as `Idempotency-Key` (the task's id): providers that honour one answer a repeat once. */
  readonly idempotencyKey: string;
}

export interface LlmClient {
  chat(request: ChatRequest, call: ClientCall): Promise<ChatAnswer>;
  embed(request: EmbeddingsRequest, call: ClientCall): Promise<EmbeddingsAnswer>;
}

/** A provider answered a status that a later attempt may not get (429, 5xx) or will (4xx). */
export class ProviderStatusError extends Error {
  override name = 'ProviderStatusError';
  constructor(
    message: string,
    readonly status: number,
    /** The `Retry-After` header as sent, if any. */
    readonly retryAfter: string | undefined,
  ) {
    super(message);
  }
}

/** The answer's text as the task's `result`: parsed JSON when the task asked for `jsonOutput`. */
export function resultOf(text: string, jsonOutput: boolean): JsonValue {
  if (!jsonOutput) return text;
  let body = text.trim();
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(body);
  if (fenced?.[1] !== undefined) body = fenced[1];
  try {
    return JSON.parse(body) as JsonValue;
  } catch {
    return text;
  }
}

/** Tool-call arguments as the model sent them (a JSON text), as an object. */
export function argumentsOf(raw: unknown): JsonObject {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) return raw as JsonObject;
  if (typeof raw !== 'string' || raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as JsonObject)
      : { value: parsed as JsonValue };
  } catch {
    return { arguments: raw };
  }
}

/**
 * A tool call as Conductor hands it back: the provider's id as `taskReferenceName`, the tool's
 * `type` from the task's `tools`, and the arguments as `inputParameters` with `method` added
 * (Conductor adds it so a CALL_MCP_TOOL can take the inputs as they are).
 */
export function toolCallOf(
  id: string,
  name: string,
  args: JsonObject,
  request: Pick<ChatRequest, 'tools'>,
): LlmToolCall {
  const spec = request.tools.find((t) => t.name === name);
  return {
    taskReferenceName: id,
    name,
    type: spec?.type ?? 'SIMPLE',
    inputParameters: { ...args, method: name },
    // The registered service that has the tool, for the task that calls it.
    ...(spec?.service !== undefined && { service: spec.service }),
  };
}

/** The arguments to send back for an earlier tool call (without the `method` added above). */
export function argumentsFor(call: LlmToolCall): JsonObject {
  const { method: _method, ...args } = call.inputParameters;
  return args;
}

/** The `Retry-After` of an SDK error's headers (a fetch `Headers`, typed loosely by the SDKs). */
export function retryAfterOf(headers: unknown): string | undefined {
  const get = (headers as { get?: unknown } | null | undefined)?.get;
  if (typeof get !== 'function') return undefined;
  const value: unknown = (get as (name: string) => unknown).call(headers, 'retry-after');
  return typeof value === 'string' ? value : undefined;
}
