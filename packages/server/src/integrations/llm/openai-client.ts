import OpenAI, { AzureOpenAI } from 'openai';

import type { CallFetch } from '../call-handler.js';
import {
  argumentsFor,
  argumentsOf,
  type ChatAnswer,
  type ClientCall,
  type EmbeddingsAnswer,
  type LlmClient,
  ProviderStatusError,
  retryAfterOf,
  toolCallOf,
} from './llm-answer.js';
import type { ChatRequest, EmbeddingsRequest } from './llm-request.js';
import { gatherChatStream } from './openai-stream.js';

/**
 * The OpenAI Chat Completions and Embeddings protocol through the official `openai` client,
 * at the provider's configured endpoint (OpenAI, Azure OpenAI's v1 endpoint, Ollama, vLLM,
 * LiteLLM all speak it). The client's own retries are off: a 429 or 5xx goes back to the
 * handler, which waits on a durable timer instead of inside the call. Requests go through
 * the executor's egress-checked fetch and stop when the task's signal aborts.
 */

const FINISH: Record<string, string> = {
  stop: 'STOP',
  length: 'LENGTH',
  tool_calls: 'TOOL_CALLS',
  function_call: 'TOOL_CALLS',
  content_filter: 'CONTENT_FILTER',
};

/** An answer's content: text, or (as some servers send it) a list of text parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      const text = (part as { text?: unknown } | null)?.text;
      return typeof text === 'string' ? text : '';
    })
    .join('');
}

export class OpenAiClient implements LlmClient {
  private readonly client: OpenAI;

  constructor(options: {
    baseURL: string;
    apiKey: string | undefined;
    fetch: CallFetch;
    /** Azure OpenAI: `{endpoint}/openai/deployments/{model}/…?api-version=…` with an `api-key` header. */
    azureApiVersion?: string;
  }) {
    const common = {
      // Local servers (Ollama, vLLM) take no key; the client insists on one, so it gets a
      // placeholder and the header that would carry it is cleared: a proxy in front of such a
      // server may refuse any Authorization it cannot check, and a placeholder is not a key.
      apiKey: options.apiKey ?? 'none',
      ...(options.apiKey === undefined && { defaultHeaders: { Authorization: null, 'api-key': null } }),
      fetch: options.fetch as unknown as typeof globalThis.fetch,
      maxRetries: 0,
      timeout: 10 * 60 * 1000,
    };
    this.client =
      options.azureApiVersion === undefined
        ? new OpenAI({ ...common, baseURL: options.baseURL })
        : new AzureOpenAI({ ...common, endpoint: options.baseURL, apiVersion: options.azureApiVersion });
  }

  async chat(request: ChatRequest, call: ClientCall): Promise<ChatAnswer> {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = request.turns.map((turn) => {
      switch (turn.role) {
        case 'system':
          return { role: 'system', content: turn.message };
        case 'user':
          return { role: 'user', content: turn.message };
        case 'assistant':
        case 'tool_call':
          return {
            role: 'assistant',
            content: turn.message === '' ? null : turn.message,
            ...(turn.toolCalls &&
              turn.toolCalls.length > 0 && {
                tool_calls: turn.toolCalls.map((c) => ({
                  id: c.taskReferenceName,
                  type: 'function' as const,
                  function: { name: c.name, arguments: JSON.stringify(argumentsFor(c)) },
                })),
              }),
          };
        case 'tool':
          return { role: 'tool', tool_call_id: turn.toolCallId ?? '', content: turn.message };
      }
    });
    const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
      model: request.model,
      messages,
      ...(request.temperature !== undefined && { temperature: request.temperature }),
      ...(request.topP !== undefined && { top_p: request.topP }),
      ...(request.maxTokens !== undefined && { max_tokens: request.maxTokens }),
      ...(request.frequencyPenalty !== undefined && { frequency_penalty: request.frequencyPenalty }),
      ...(request.presencePenalty !== undefined && { presence_penalty: request.presencePenalty }),
      ...(request.stop !== undefined && { stop: request.stop }),
      ...(request.jsonOutput && { response_format: { type: 'json_object' as const } }),
      ...(request.tools.length > 0 && {
        tools: request.tools.map((t) => ({
          type: 'function' as const,
          function: {
            name: t.name,
            parameters: t.inputSchema,
            ...(t.description !== undefined && { description: t.description }),
          },
        })),
      }),
    };
    const options = { signal: call.signal, headers: { 'Idempotency-Key': call.idempotencyKey } };
    // Streamed, the chunks are gathered into the same completion (usage from whichever chunk has it).
    const completion = await this.send<OpenAI.Chat.ChatCompletion>(async () =>
      request.stream
        ? gatherChatStream(
            await this.client.chat.completions.create(
              { ...body, stream: true, stream_options: { include_usage: true } },
              options,
            ),
          )
        : this.client.chat.completions.create(body, options),
    );
    const choice = completion.choices?.[0];
    // Servers speaking the protocol may leave out a call's `type` or `id`; the call is still one.
    const toolCalls = (choice?.message?.tool_calls ?? []).flatMap((c, i) => {
      const fn = (c as { function?: { name?: unknown; arguments?: unknown } }).function;
      if ((c.type !== 'function' && c.type !== undefined) || typeof fn?.name !== 'string') return [];
      const id = typeof c.id === 'string' && c.id !== '' ? c.id : `call_${i}`;
      return [toolCallOf(id, fn.name, argumentsOf(fn.arguments), request)];
    });
    const raw = choice?.finish_reason ?? 'stop';
    return {
      text: contentText(choice?.message?.content),
      finishReason: toolCalls.length > 0 ? 'TOOL_CALLS' : (FINISH[raw] ?? String(raw).toUpperCase()),
      promptTokens: completion.usage?.prompt_tokens ?? 0,
      completionTokens: completion.usage?.completion_tokens ?? 0,
      toolCalls,
    };
  }

  async embed(request: EmbeddingsRequest, call: ClientCall): Promise<EmbeddingsAnswer> {
    const answer = await this.send(() =>
      this.client.embeddings.create(
        {
          model: request.model,
          input: request.text,
          encoding_format: 'float',
          ...(request.dimensions !== undefined && { dimensions: request.dimensions }),
        },
        { signal: call.signal, headers: { 'Idempotency-Key': call.idempotencyKey } },
      ),
    );
    const vectors = [...answer.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    return { vectors, promptTokens: answer.usage?.prompt_tokens ?? 0 };
  }

  /** The client's status errors as ProviderStatusError (with Retry-After); the rest as thrown. */
  private async send<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (err) {
      if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
        throw new ProviderStatusError(
          `the provider answered ${err.status}: ${err.message}`,
          err.status,
          retryAfterOf(err.headers as unknown),
        );
      }
      throw err;
    }
  }
}
