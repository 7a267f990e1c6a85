import type Anthropic from '@anthropic-ai/sdk';

/**
 * Gathers Anthropic's streamed Messages events into the message a non-streamed call answers.
 * The SDK's own accumulator fails on a stream whose `message_start` or `message_delta` carries
 * no usage (servers imitating the API send such streams); this one takes what it is given: text
 * blocks joined by block, a tool_use block's input from its JSON deltas (or its start block when
 * none came), the stop reason of the last `message_delta`, usage from wherever it appears.
 */

interface GatheredBlock {
  type: 'text' | 'tool_use';
  text: string;
  id: string;
  name: string;
  input: unknown;
  json: string;
}

/** The fields read from each event: typed loosely, since the point is to tolerate gaps. */
interface LooseEvent {
  type?: string | undefined;
  index?: number;
  message?: { id?: string; model?: string; usage?: { input_tokens?: number; output_tokens?: number } };
  content_block?: { type?: string; text?: string; id?: string; name?: string; input?: unknown };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: { input_tokens?: number | null; output_tokens?: number | null };
}

export async function gatherMessageStream(
  events: AsyncIterable<Anthropic.RawMessageStreamEvent>,
): Promise<Anthropic.Message> {
  const blocks: GatheredBlock[] = [];
  let stopReason: string | null = null;
  let inputTokens = 0;
  let outputTokens = 0;
  let id = '';
  let model = '';
  const usageFrom = (usage: LooseEvent['usage'] | undefined): void => {
    if (typeof usage?.input_tokens === 'number') inputTokens = usage.input_tokens;
    if (typeof usage?.output_tokens === 'number') outputTokens = usage.output_tokens;
  };
  for await (const raw of events) {
    const event = raw as unknown as LooseEvent;
    const index = typeof event.index === 'number' ? event.index : blocks.length - 1;
    switch (event.type ?? '') {
      case 'message_start':
        id = event.message?.id ?? id;
        model = event.message?.model ?? model;
        usageFrom(event.message?.usage);
        break;
      case 'content_block_start': {
        const start = event.content_block;
        blocks[index] = {
          type: start?.type === 'tool_use' ? 'tool_use' : 'text',
          text: start?.text ?? '',
          id: start?.id ?? '',
          name: start?.name ?? '',
          input: start?.input,
          json: '',
        };
        break;
      }
      case 'content_block_delta': {
        const block = blocks[index];
        if (block === undefined) break;
        if (typeof event.delta?.text === 'string') block.text += event.delta.text;
        if (typeof event.delta?.partial_json === 'string') block.json += event.delta.partial_json;
        break;
      }
      case 'message_delta':
        if (event.delta?.stop_reason) stopReason = event.delta.stop_reason;
        usageFrom(event.usage);
        break;
      default:
        // ping, content_block_stop, message_stop and events this reader does not know.
        break;
    }
  }
  const content = blocks
    .filter((b): b is GatheredBlock => b !== undefined)
    .map((b, i) => {
      if (b.type === 'text') return { type: 'text' as const, text: b.text, citations: null };
      let input: unknown = b.input ?? {};
      if (b.json.trim() !== '') {
        try {
          input = JSON.parse(b.json);
        } catch {
          input = { arguments: b.json };
        }
      }
      return { type: 'tool_use' as const, id: b.id !== '' ? b.id : `toolu_${i}`, name: b.name, input };
    });
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: (stopReason ??
      (content.some((b) => b.type === 'tool_use')
        ? 'tool_use'
        : 'end_turn')) as Anthropic.Message['stop_reason'],
    stop_sequence: null,
    usage: { input_tokens: inputTokens, output_tokens: outputTokens },
  } as unknown as Anthropic.Message;
}
