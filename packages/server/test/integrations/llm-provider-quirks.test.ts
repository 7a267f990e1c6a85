import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';

import { openAiBaseUrl } from '../../src/integrations/llm/llm-handler.js';
import { call, type TestApp, testApp } from '../helpers/app.js';
import { runOf, startRun } from '../helpers/runs.js';
import { type OpenedStore, storeCases } from '../helpers/stores.js';

/**
 * Answers that servers speaking the OpenAI and Anthropic protocols do send, other than the
 * vendors' own: an Ollama-style provider configured as a bare host with no key, parallel tool
 * calls with a call's `type` or `id` left out, no usage at all, a stream whose tool call has no
 * `type`, whose choices have no `role` after the first chunk or no finish reason, with usage in
 * a last chunk without `id`, and an Anthropic answer mixing text with two tool_use blocks.
 */

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
}

async function startQuirkServer() {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      const path = (req.url ?? '').split('?')[0] ?? '';
      seen.push({ path, headers: req.headers });
      const json = (value: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const sse = (events: unknown[]) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
        res.end('data: [DONE]\n\n');
      };
      if (path === '/v1/chat/completions' && body.model === 'parallel' && body.stream !== true)
        return json({
          id: 'x1',
          object: 'chat.completion',
          model: 'parallel',
          choices: [
            {
              index: 0,
              finish_reason: 'tool_calls',
              message: {
                role: 'assistant',
                content: null,
                tool_calls: [
                  { id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a":1}' } },
                  { function: { name: 'mul', arguments: '{"b":2}' } },
                ],
              },
            },
          ],
        });
      if (path === '/v1/chat/completions' && body.model === 'parallel')
        return sse([
          {
            id: 's1',
            model: 'parallel',
            choices: [{ index: 0, delta: { role: 'assistant', content: 'Work' } }],
          },
          { choices: [{ index: 0, delta: { content: 'ing.' } }] },
          {
            choices: [
              {
                index: 0,
                delta: {
                  tool_calls: [{ index: 0, id: 'c9', function: { name: 'add', arguments: '{"a":' } }],
                },
              },
            ],
          },
          { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '2}' } }] } }] },
          {
            choices: [
              {
                index: 0,
                delta: { tool_calls: [{ index: 1, id: 'c10', function: { name: 'mul', arguments: '{}' } }] },
              },
            ],
          },
          { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
          { choices: [], usage: { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 } },
        ]);
      if (path === '/v1/chat/completions' && body.stream === true)
        return sse([
          { id: 's2', choices: [{ index: 0, delta: { role: 'assistant', content: 'no ' } }] },
          { choices: [{ index: 0, delta: { content: 'finish reason' } }] },
          { choices: [], usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 } },
        ]);
      if (path === '/v1/messages' && body.stream === true) {
        // No usage anywhere, a ping, the tool's input in JSON pieces after text.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const e of [
          {
            type: 'message_start',
            message: { id: 'msg_2', type: 'message', role: 'assistant', content: [] },
          },
          { type: 'ping' },
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Check' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ing.' } },
          { type: 'content_block_stop', index: 0 },
          {
            type: 'content_block_start',
            index: 1,
            content_block: { type: 'tool_use', id: 'tu7', name: 'add', input: {} },
          },
          {
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'input_json_delta', partial_json: '{"a"' },
          },
          {
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'input_json_delta', partial_json: ': 3}' },
          },
          { type: 'content_block_stop', index: 1 },
          { type: 'message_delta', delta: { stop_reason: 'tool_use' } },
          { type: 'message_stop' },
        ])
          res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
        return res.end();
      }
      if (path === '/v1/messages')
        return json({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: body.model,
          stop_reason: 'tool_use',
          content: [
            { type: 'text', text: 'Let me work that out.' },
            { type: 'tool_use', id: 'tu1', name: 'add', input: { a: 1 } },
            // No id: a server speaking the protocol left it out.
            { type: 'tool_use', name: 'mul', input: { b: 2 } },
          ],
        });
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${path}` } }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const TOOLS = [
  { name: 'add', type: 'MCP', description: 'adds', inputSchema: { type: 'object' } },
  { name: 'mul', type: 'MCP', description: 'multiplies', inputSchema: { type: 'object' } },
];

function chatDef(name: string, provider: string, model: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    ownerEmail: 'a@b.c',
    tasks: [
      {
        name: 'chat',
        taskReferenceName: 'chat',
        type: 'LLM_CHAT_COMPLETE',
        inputParameters: {
          llmProvider: provider,
          model,
          messages: [{ role: 'user', message: 'what is it?' }],
          tools: TOOLS,
          ...extra,
        },
      },
    ],
  };
}

describe('openAiBaseUrl', () => {
  it('adds /v1 to a bare host and takes an endpoint with a path as given', () => {
    assert.equal(openAiBaseUrl('http://localhost:11434'), 'http://localhost:11434/v1');
    assert.equal(openAiBaseUrl('http://localhost:11434/'), 'http://localhost:11434/v1');
    assert.equal(openAiBaseUrl('http://h:8000/v1'), 'http://h:8000/v1');
    assert.equal(openAiBaseUrl('http://h/proxy/openai'), 'http://h/proxy/openai');
  });
});

for (const storeCase of storeCases()) {
  describe(`LLM provider answers of other servers on ${storeCase.name}`, () => {
    let opened: OpenedStore;
    let t: TestApp;
    let server: Awaited<ReturnType<typeof startQuirkServer>>;

    const run = async (def: ReturnType<typeof chatDef>) => {
      const res = await call(t.app, 'POST', '/api/metadata/workflow', def);
      assert.equal(res.status, 200, res.text);
      const id = await startRun(t.app, def.name, {});
      let r = await runOf(t.app, id);
      const deadline = Date.now() + 30_000;
      while (r.status === 'RUNNING' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        r = await runOf(t.app, id);
      }
      assert.equal(r.status, 'COMPLETED', JSON.stringify(r.tasks));
      return r.tasks[0].outputData;
    };

    before(async () => {
      opened = await storeCase.open();
      t = await testApp(opened.store);
      server = await startQuirkServer();
      for (const [name, body] of [
        // Conductor's Ollama integration names the bare host; a local Ollama takes no key.
        ['local', { type: 'ollama', configuration: { endpoint: server.url } }],
        ['claude', { type: 'anthropic', configuration: { endpoint: server.url } }],
      ] as const) {
        const res = await call(t.app, 'POST', `/api/integrations/provider/${name}`, {
          category: 'AI_MODEL',
          ...body,
        });
        assert.equal(res.status, 200, res.text);
      }
    });

    after(async () => {
      await t.close();
      await server.close();
      await opened.cleanup();
    });

    it('parallel tool calls come back in order, one without type or id, and no usage counts as 0 tokens', async () => {
      const out = await run(chatDef('quirk_parallel', 'local', 'parallel'));
      assert.equal(out.finishReason, 'TOOL_CALLS');
      assert.deepEqual(
        out.toolCalls.map((c: any) => [c.taskReferenceName, c.name, c.type, c.inputParameters]),
        [
          ['c1', 'add', 'MCP', { a: 1, method: 'add' }],
          ['call_1', 'mul', 'MCP', { b: 2, method: 'mul' }],
        ],
      );
      assert.equal(out.tokenUsed, 0);
      const request = server.seen.find((s) => s.path === '/v1/chat/completions');
      assert.ok(request, 'the bare host was called under /v1');
      assert.equal(
        request.headers.authorization,
        undefined,
        'no key was configured, so no Authorization is sent',
      );
    });

    it('a stream with an untyped tool call split over chunks and usage in a last chunk without id', async () => {
      const out = await run(chatDef('quirk_stream_tools', 'local', 'parallel', { stream: true }));
      assert.equal(out.result, 'Working.');
      assert.equal(out.finishReason, 'TOOL_CALLS');
      assert.deepEqual(
        out.toolCalls.map((c: any) => [c.taskReferenceName, c.name, c.inputParameters]),
        [
          ['c9', 'add', { a: 2, method: 'add' }],
          ['c10', 'mul', { method: 'mul' }],
        ],
      );
      assert.deepEqual([out.promptTokens, out.completionTokens, out.tokenUsed], [7, 4, 11]);
    });

    it('a stream that never names a finish reason ends as STOP with its text and usage', async () => {
      const out = await run(chatDef('quirk_stream_text', 'local', 'plain', { stream: true, tools: [] }));
      assert.equal(out.result, 'no finish reason');
      assert.equal(out.finishReason, 'STOP');
      assert.equal(out.tokenUsed, 5);
    });

    it('an Anthropic answer mixing text and two tool_use blocks, one without id, and no usage, gives the text and both calls', async () => {
      const out = await run(chatDef('quirk_anthropic', 'claude', 'claude-x'));
      assert.equal(out.result, 'Let me work that out.');
      assert.equal(out.finishReason, 'TOOL_CALLS');
      assert.deepEqual(
        out.toolCalls.map((c: any) => [c.taskReferenceName, c.name, c.inputParameters]),
        [
          ['tu1', 'add', { a: 1, method: 'add' }],
          ['toolu_2', 'mul', { b: 2, method: 'mul' }],
        ],
      );
      assert.equal(out.tokenUsed, 0);
    });

    it('an Anthropic stream without usage, its tool input in JSON pieces, gives the text and the call', async () => {
      const out = await run(chatDef('quirk_anthropic_stream', 'claude', 'claude-x', { stream: true }));
      assert.equal(out.result, 'Checking.');
      assert.equal(out.finishReason, 'TOOL_CALLS');
      assert.deepEqual(
        out.toolCalls.map((c: any) => [c.taskReferenceName, c.name, c.inputParameters]),
        [['tu7', 'add', { a: 3, method: 'add' }]],
      );
      assert.equal(out.tokenUsed, 0);
    });
  });
}
