import type OpenAI from 'openai';

/**
 * Gathers a streamed Chat Completion (its chunks) into the completion a non-streamed call
 * answers. The `openai` client's own accumulator refuses streams that servers speaking the
 * protocol do send (a tool call without `type`, a choice without `role`, no `finish_reason`,
 * usage in a last chunk without `id`); this one takes what it is given: content joined, tool
 * calls gathered by index, the last finish reason seen, usage from whichever chunk has it.
 */

interface GatheredCall {
  id: string;
  name: string;
  arguments: string;
}

export async function gatherChatStream(
  chunks: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>,
): Promise<OpenAI.Chat.ChatCompletion> {
  let content = '';
  let finishReason: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  let id = '';
  let model = '';
  const calls: GatheredCall[] = [];
  for await (const chunk of chunks) {
    if (typeof chunk.id === 'string' && chunk.id !== '') id = chunk.id;
    if (typeof chunk.model === 'string' && chunk.model !== '') model = chunk.model;
    if (chunk.usage) usage = chunk.usage;
    // Only the first choice is the task's answer (the request asks for one).
    const choice = (chunk.choices ?? []).find((c) => (c.index ?? 0) === 0);
    if (choice === undefined) continue;
    if (choice.finish_reason) finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string') content += delta.content;
    for (const [position, part] of (delta.tool_calls ?? []).entries()) {
      const index = typeof part.index === 'number' ? part.index : position;
      const call = (calls[index] ??= { id: '', name: '', arguments: '' });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name = part.function.name;
      const args: unknown = part.function?.arguments;
      // Some servers send the whole arguments object in one chunk instead of JSON text.
      if (typeof args === 'string') call.arguments += args;
      else if (args !== undefined && args !== null) call.arguments = JSON.stringify(args);
    }
  }
  const toolCalls = calls.filter((c): c is GatheredCall => c !== undefined && c.name !== '');
  return {
    id,
    object: 'chat.completion',
    created: 0,
    model,
    choices: [
      {
        index: 0,
        logprobs: null,
        finish_reason: (finishReason ??
          (toolCalls.length > 0
            ? 'tool_calls'
            : 'stop')) as OpenAI.Chat.ChatCompletion.Choice['finish_reason'],
        message: {
          role: 'assistant',
          content,
          refusal: null,
          ...(toolCalls.length > 0 && {
            tool_calls: toolCalls.map((c) => ({
              id: c.id,
              type: 'function' as const,
              function: { name: c.name, arguments: c.arguments },
            })),
          }),
        },
      },
    ],
    ...(usage !== undefined && { usage }),
  };
}
