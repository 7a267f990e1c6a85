import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A server on 127.0.0.1 speaking the OpenAI Chat Completions and Embeddings protocol
 * (`/v1/chat/completions`, `/v1/embeddings`) and Anthropic's Messages protocol (`/v1/messages`),
 * non-streaming and streaming (server-sent events, as each protocol sends them, when the request
 * asks `stream: true`). Its answers are
 * scripted by the model name, so one server serves every case:
 *
 * - a chat with tools and no tool result yet asks for the first tool with `{text: 'hello'}`
 *   (finish reason tool_calls / tool_use); once a tool result is in the conversation it answers
 *   `tool said: <result>`; otherwise `you said: <last user text>`;
 * - model `limited`: answers 429 with `Retry-After: 1` to the first request of each
 *   Idempotency-Key, then normally;
 * - model `slow`: never answers; counts the requests the client gave up (connection closed);
 * - model `refuse`: answers 400;
 * - model `stall-once`: the first request that carries a tool result never answers (its caller
 *   is killed); every other request is answered as above.
 *
 * Usage is 10 prompt + 5 completion tokens per chat, 3 per embedding input.
 */

export interface SeenRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface LlmTestServer {
  url: string;
  requests: SeenRequest[];
  /** `slow` requests started and those whose client went away. */
  slowStarted: number;
  slowCancelled: number;
  close(): Promise<void>;
}

export const PROMPT_TOKENS = 10;
export const COMPLETION_TOKENS = 5;

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((b: any) => (b?.type === 'text' ? b.text : b?.type === 'tool_result' ? text(b.content) : ''))
      .join('');
  return '';
}

/** The answer of the scripted model, in protocol-neutral terms. */
function script(messages: any[], tools: any[], toolResult: string | undefined) {
  if (toolResult !== undefined) return { text: `tool said: ${toolResult}` };
  if (tools.length > 0) return { tool: { name: tools[0].name as string, args: { text: 'hello' } } };
  const users = messages.filter((m) => m.role === 'user');
  return { text: `you said: ${text(users[users.length - 1]?.content)}` };
}

export async function startLlmServer(): Promise<LlmTestServer> {
  const state: LlmTestServer = {
    url: '',
    requests: [],
    slowStarted: 0,
    slowCancelled: 0,
    close: async () => {},
  };
  const limited = new Set<string>();
  let stalled = false;
  let ids = 0;

  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = raw ? JSON.parse(raw) : {};
      const path = (req.url ?? '').split('?')[0] ?? '';
      state.requests.push({ path, headers: req.headers, body });
      const model = String(body.model ?? '');
      if (model === 'slow') {
        state.slowStarted++;
        res.on('close', () => {
          if (!res.writableEnded) state.slowCancelled++;
        });
        return;
      }
      if (model === 'refuse')
        return send(res, 400, { error: { message: 'no such model', type: 'invalid_request_error' } });
      if (model === 'limited') {
        const key = String(req.headers['idempotency-key'] ?? '');
        if (!limited.has(key)) {
          limited.add(key);
          return send(
            res,
            429,
            { error: { message: 'slow down', type: 'rate_limit_error' } },
            { 'retry-after': '1' },
          );
        }
      }
      if (model === 'stall-once' && !stalled && /"tool_call_id"|"tool_result"/.test(raw)) {
        stalled = true;
        return;
      }
      const id = `call_${++ids}`;
      if (path.endsWith('/embeddings')) {
        const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
        return send(res, 200, {
          object: 'list',
          model,
          data: input.map((t, index) => ({ object: 'embedding', index, embedding: [t.length, index, 0.5] })),
          usage: { prompt_tokens: 3 * input.length, total_tokens: 3 * input.length },
        });
      }
      if (path.endsWith('/chat/completions')) {
        const messages: any[] = body.messages ?? [];
        const toolMsg = [...messages].reverse().find((m) => m.role === 'tool');
        const tools = (body.tools ?? []).map((t: any) => t.function);
        const answer = script(messages, tools, toolMsg ? text(toolMsg.content) : undefined);
        const message = answer.tool
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id,
                  type: 'function',
                  function: { name: answer.tool.name, arguments: JSON.stringify(answer.tool.args) },
                },
              ],
            }
          : { role: 'assistant', content: answer.text };
        const finish = answer.tool ? 'tool_calls' : 'stop';
        const usage = {
          prompt_tokens: PROMPT_TOKENS,
          completion_tokens: COMPLETION_TOKENS,
          total_tokens: PROMPT_TOKENS + COMPLETION_TOKENS,
        };
        if (body.stream === true) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const chunk = (delta: unknown, finish_reason: string | null, extra = {}) =>
            res.write(
              `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`,
            );
          chunk({ role: 'assistant' }, null);
          if (answer.text !== undefined)
            for (const word of answer.text.split(/(?= )/)) chunk({ content: word }, null);
          else chunk({ tool_calls: message.tool_calls?.map((c, index) => ({ index, ...c })) }, null);
          chunk({}, finish);
          res.write(
            `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model, choices: [], usage })}\n\n`,
          );
          res.end('data: [DONE]\n\n');
          return;
        }
        return send(res, 200, {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 0,
          model,
          choices: [{ index: 0, message, finish_reason: finish }],
          usage,
        });
      }
      if (path.endsWith('/messages')) {
        const messages: any[] = body.messages ?? [];
        let toolResult: string | undefined;
        for (const m of messages)
          if (Array.isArray(m.content))
            for (const b of m.content) if (b.type === 'tool_result') toolResult = text(b.content);
        const tools = body.tools ?? [];
        const answer = script(messages, tools, toolResult);
        const content = answer.tool
          ? [{ type: 'tool_use', id: `toolu_${ids}`, name: answer.tool.name, input: answer.tool.args }]
          : [{ type: 'text', text: answer.text }];
        const stopReason = answer.tool ? 'tool_use' : 'end_turn';
        if (body.stream === true) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const event = (type: string, data: Record<string, unknown>) =>
            res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
          event('message_start', {
            message: {
              id: `msg_${ids}`,
              type: 'message',
              role: 'assistant',
              model,
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: PROMPT_TOKENS, output_tokens: 0 },
            },
          });
          if (answer.tool) {
            event('content_block_start', {
              index: 0,
              content_block: { type: 'tool_use', id: `toolu_${ids}`, name: answer.tool.name, input: {} },
            });
            const json = JSON.stringify(answer.tool.args);
            for (const part of [json.slice(0, 5), json.slice(5)])
              event('content_block_delta', {
                index: 0,
                delta: { type: 'input_json_delta', partial_json: part },
              });
          } else {
            event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
            for (const word of (answer.text ?? '').split(/(?= )/))
              event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: word } });
          }
          event('content_block_stop', { index: 0 });
          event('message_delta', {
            delta: { stop_reason: stopReason, stop_sequence: null },
            usage: { output_tokens: COMPLETION_TOKENS },
          });
          event('message_stop', {});
          res.end();
          return;
        }
        return send(res, 200, {
          id: `msg_${ids}`,
          type: 'message',
          role: 'assistant',
          model,
          content,
          stop_reason: stopReason,
          stop_sequence: null,
          usage: { input_tokens: PROMPT_TOKENS, output_tokens: COMPLETION_TOKENS },
        });
      }
      send(res, 404, { error: { message: `no route ${path}` } });
    })().catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { message: String(err) } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return state;
}
