import Anthropic from '@anthropic-ai/sdk';

import type { CallFetch } from '../call-handler.js';
import { CallInputError } from '../call-failure.js';
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
import { gatherMessageStream } from './anthropic-stream.js';
import type { ChatRequest, ChatTurn } from './llm-request.js';

/**
 * Anthropic's Messages API through `@anthropic-ai/sdk`, at the provider's configured endpoint.
 * Conductor's turns map onto it: `system` turns become the `system` text, a `tool_call` turn an
 * assistant `tool_use` block, a `tool` turn a user `tool_result` block; consecutive turns of one
 * side are merged (the API alternates user and assistant). Retries are the handler's, as for
 * the OpenAI client. Anthropic has no embeddings API.
 */

/** Conductor's mapping of Anthropic's stop reasons. */
const FINISH: Record<string, string> = {
  end_turn: 'STOP',
  tool_use: 'TOOL_CALLS',
  refusal: 'CONTENT_FILTER',
  max_tokens: 'LENGTH',
  stop_sequence: 'STOP',
};

/** Anthropic requires max_tokens; Conductor's default is larger than some models allow. */
const DEFAULT_MAX_TOKENS = 4096;

function blocksOf(turn: ChatTurn): Anthropic.ContentBlockParam[] {
  switch (turn.role) {
    case 'tool':
      return [{ type: 'tool_result', tool_use_id: turn.toolCallId ?? '', content: turn.message }];
    case 'assistant':
    case 'tool_call': {
      const blocks: Anthropic.ContentBlockParam[] =
        turn.message === '' ? [] : [{ type: 'text', text: turn.message }];
      for (const c of turn.toolCalls ?? [])
        blocks.push({ type: 'tool_use', id: c.taskReferenceName, name: c.name, input: argumentsFor(c) });
      return blocks;
    }
    case 'system':
    case 'user':
      return [{ type: 'text', text: turn.message }];
  }
}

export class AnthropicClient implements LlmClient {
  private readonly client: Anthropic;

  constructor(options: { baseURL: string | undefined; apiKey: string | undefined; fetch: CallFetch }) {
    this.client = new Anthropic({
      ...(options.baseURL !== undefined && { baseURL: options.baseURL }),
      apiKey: options.apiKey ?? 'none',
      fetch: options.fetch as unknown as typeof globalThis.fetch,
      maxRetries: 0,
      timeout: 10 * 60 * 1000,
    });
  }

  async chat(request: ChatRequest, call: ClientCall): Promise<ChatAnswer> {
    const system = request.turns
      .filter((t) => t.role === 'system')
      .map((t) => t.message)
      .join('\n\n');
    const messages: Anthropic.MessageParam[] = [];
    for (const turn of request.turns) {
      if (turn.role === 'system') continue;
      const role = turn.role === 'assistant' || turn.role === 'tool_call' ? 'assistant' : 'user';
      const blocks = blocksOf(turn);
      if (blocks.length === 0) continue;
      const last = messages[messages.length - 1];
      if (last !== undefined && last.role === role && Array.isArray(last.content))
        last.content.push(...blocks);
      else messages.push({ role, content: blocks });
    }
    if (messages.length === 0)
      throw new CallInputError('an Anthropic chat needs a user message, not only system ones');
    const body: Anthropic.MessageCreateParamsNonStreaming = {
      model: request.model,
      max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
      messages,
      ...(system !== '' && { system }),
      ...(request.temperature !== undefined && { temperature: request.temperature }),
      ...(request.topP !== undefined && { top_p: request.topP }),
      ...(request.topK !== undefined && { top_k: request.topK }),
      ...(request.stop !== undefined && { stop_sequences: request.stop }),
      ...(request.tools.length > 0 && {
        tools: request.tools.map((t) => ({
          name: t.name,
          input_schema: { type: 'object' as const, ...t.inputSchema },
          ...(t.description !== undefined && { description: t.description }),
        })),
      }),
    };
    let message: Anthropic.Message;
    try {
      const options = { signal: call.signal, headers: { 'Idempotency-Key': call.idempotencyKey } };
      // Streamed, the events are gathered into the same message.
      message = request.stream
        ? await gatherMessageStream(await this.client.messages.create({ ...body, stream: true }, options))
        : await this.client.messages.create(body, options);
    } catch (err) {
      if (err instanceof Anthropic.APIError && typeof err.status === 'number') {
        throw new ProviderStatusError(
          `the provider answered ${err.status}: ${err.message}`,
          err.status,
          retryAfterOf(err.headers as unknown),
        );
      }
      throw err;
    }
    const content = message.content ?? [];
    const text = content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    // A server speaking the protocol may leave a block's id out; the call still needs a reference
    // name unique in this answer (the stream reader names them the same way).
    const toolCalls = content.flatMap((b, i) =>
      b.type === 'tool_use'
        ? [
            toolCallOf(
              typeof b.id === 'string' && b.id !== '' ? b.id : `toolu_${i}`,
              b.name,
              argumentsOf(b.input),
              request,
            ),
          ]
        : [],
    );
    const raw = message.stop_reason ?? 'end_turn';
    return {
      text,
      finishReason: toolCalls.length > 0 ? 'TOOL_CALLS' : (FINISH[raw] ?? raw.toUpperCase()),
      // A server speaking the protocol may leave usage out: the call still counts, as 0 tokens.
      promptTokens: message.usage?.input_tokens ?? 0,
      completionTokens: message.usage?.output_tokens ?? 0,
      toolCalls,
    };
  }

  embed(): Promise<EmbeddingsAnswer> {
    return Promise.reject(
      new CallInputError("Anthropic's API has no embeddings: use an OpenAI-compatible provider"),
    );
  }
}
