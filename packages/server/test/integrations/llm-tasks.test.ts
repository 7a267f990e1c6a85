import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { call, type TestApp, testApp } from '../helpers/app.js';
import {
  COMPLETION_TOKENS,
  type LlmTestServer,
  PROMPT_TOKENS,
  startLlmServer,
} from '../helpers/llm-servers.js';
import { runOf, startRun } from '../helpers/runs.js';
import { everyStoredRow } from '../helpers/store-text.js';
import { type OpenedStore, storeCases } from '../helpers/stores.js';

/**
 * The LLM task kinds through the API against a local server speaking the OpenAI and Anthropic
 * protocols, on SQLite and PostgreSQL: providers configured as integrations with their keys as
 * secrets, chat/text/embeddings outputs in Conductor's shape, tool calls, a 429 waited out on a
 * durable timer, terminate aborting a call in flight, the per-run token budget, token metrics,
 * test runs that never call out, and no key in any row or answer.
 */

const KEY = Buffer.alloc(32, 7).toString('base64');
const OPENAI_KEY = 'sk-openai-5e1f0c-never-stored';
const ANTHROPIC_KEY = 'sk-ant-9d33ab-never-stored';
const PROMPT_SECRET = 'prompt-secret-8a1b2c-never-stored';
const RAW_KEY = 'sk-raw-4c4d11-sealed-never-stored';
const SECRET_VALUES = [OPENAI_KEY, ANTHROPIC_KEY, PROMPT_SECRET, RAW_KEY];

type Task = {
  referenceTaskName: string;
  status: string;
  reasonForIncompletion?: string;
  outputData: any;
  taskId: string;
};

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
          messages: [
            { role: 'system', message: 'You are terse.' },
            { role: 'user', message: '${workflow.input.question}' },
          ],
          temperature: 0.2,
          maxTokens: 100,
          ...extra,
        },
      },
    ],
  };
}

for (const storeCase of storeCases()) {
  describe(`LLM tasks on ${storeCase.name}`, () => {
    let opened: OpenedStore;
    let t: TestApp;
    let llm: LlmTestServer;
    const answers: string[] = [];
    const api = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => {
      const res = await call(t.app, method, url, body);
      answers.push(res.text);
      return res;
    };
    const register = async (def: unknown) => {
      const res = await api('POST', '/api/metadata/workflow', def);
      assert.equal(res.status, 200, res.text);
    };
    const finished = async (id: string, timeoutMs = 30_000) => {
      let run = await runOf(t.app, id);
      const deadline = Date.now() + timeoutMs;
      while (run.status === 'RUNNING' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        run = await runOf(t.app, id);
      }
      answers.push(JSON.stringify(run));
      return run;
    };
    const describeTasks = (run: any) =>
      JSON.stringify(run.tasks.map((x: Task) => [x.referenceTaskName, x.status, x.reasonForIncompletion]));

    before(async () => {
      opened = await storeCase.open();
      t = await testApp(opened.store, { env: { BATON_SECRETS_KEY: KEY } });
      llm = await startLlmServer();
      for (const [name, value] of [
        ['OPENAI_KEY', OPENAI_KEY],
        ['ANTHROPIC_KEY', ANTHROPIC_KEY],
        ['PROMPT_SECRET', PROMPT_SECRET],
      ]) {
        assert.equal((await api('PUT', `/api/secrets/${name}`, { value })).status, 201);
      }
      const providers = [
        [
          'gpt',
          {
            type: 'openai',
            configuration: { api_key: '${workflow.secrets.OPENAI_KEY}', endpoint: `${llm.url}/v1` },
          },
        ],
        [
          'claude',
          {
            type: 'anthropic',
            configuration: { api_key: '${workflow.secrets.ANTHROPIC_KEY}', endpoint: llm.url },
          },
        ],
      ] as const;
      for (const [name, body] of providers) {
        const res = await api('POST', `/api/integrations/provider/${name}`, {
          category: 'AI_MODEL',
          ...body,
        });
        assert.equal(res.status, 200, res.text);
      }
    });

    after(async () => {
      await t.close();
      await llm.close();
      await opened.cleanup();
    });

    it("registers Conductor's AI workflow even before its provider exists", async () => {
      await register(chatDef('llm_unconfigured', 'openai', 'gpt-4o'));
      const bad = await api('POST', '/api/metadata/workflow', {
        ...chatDef('llm_bad', 'gpt', 'x'),
        tasks: [
          {
            name: 'chat',
            taskReferenceName: 'chat',
            type: 'LLM_CHAT_COMPLETE',
            inputParameters: { messages: [{ role: 'wizard', message: 'hi' }], temperature: 'hot' },
          },
        ],
      });
      assert.equal(bad.status, 400, bad.text);
      const paths = bad.body.validationErrors.map((e: { path: string }) => e.path);
      for (const field of ['llmProvider', 'model', 'messages[0]', 'temperature'])
        assert.ok(
          paths.some((p: string) => p.endsWith(field)),
          `${field} refused: ${bad.text}`,
        );
    });

    it('configures providers as integrations: a key value is sealed as a secret, the key shown as its secret name', async () => {
      const raw = await api('POST', '/api/integrations/provider/leaky', {
        type: 'openai',
        configuration: { api_key: RAW_KEY, endpoint: `${llm.url}/v1` },
      });
      assert.equal(raw.status, 200, raw.text);
      const leaky = await api('GET', '/api/integrations/provider/leaky');
      assert.equal(leaky.body.configuration.api_key, '${workflow.secrets.LLM_leaky_API_KEY}');
      assert.equal((await api('GET', '/api/secrets/LLM_leaky_API_KEY/exists')).body, true);
      const bad = await api('POST', '/api/integrations/provider/leaky', {
        configuration: { api_key: 'x ${workflow.secrets.A} y' },
      });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.validationErrors[0].path, 'configuration.api_key');
      assert.equal((await api('DELETE', '/api/integrations/provider/leaky')).status, 200);
      const one = await api('GET', '/api/integrations/provider/gpt');
      assert.equal(one.status, 200);
      assert.equal(one.body.configuration.api_key, '${workflow.secrets.OPENAI_KEY}');
      assert.equal(one.body.category, 'AI_MODEL');
      const list = await api('GET', '/api/integrations/provider?category=AI_MODEL&activeOnly=true');
      assert.deepEqual(
        list.body
          .map((p: { name: string }) => p.name)
          .filter((n: string) => n !== 'azure')
          .sort(),
        ['claude', 'gpt'],
      );
      const services = await api('GET', '/api/registry/service');
      assert.equal(services.body.length, 0, 'providers are not registry services');
      assert.equal((await api('GET', '/api/integrations/provider/nope')).status, 404);
      assert.equal(
        (await api('POST', '/api/integrations/provider/claude/integration/claude-x', { description: 'x' }))
          .status,
        200,
      );
      const models = await api('GET', '/api/integrations/provider/claude/integration');
      assert.deepEqual(
        models.body.map((m: { api: string }) => m.api),
        ['claude-x'],
      );
      assert.equal(
        (await api('DELETE', '/api/integrations/provider/claude/integration/claude-x')).status,
        200,
      );
      assert.equal((await api('GET', '/api/integrations/provider/claude/integration')).body.length, 0);
    });

    it('a chat completes on an OpenAI-compatible provider with Conductor outputs, key and idempotency key sent', async () => {
      await register(chatDef('llm_chat', 'gpt', 'gpt-test'));
      const id = await startRun(t.app, 'llm_chat', { input: { question: 'hi there' } });
      const run = await finished(id);
      assert.equal(run.status, 'COMPLETED', describeTasks(run));
      const task = run.tasks[0];
      assert.deepEqual(task.outputData, {
        result: 'you said: hi there',
        finishReason: 'STOP',
        tokenUsed: PROMPT_TOKENS + COMPLETION_TOKENS,
        promptTokens: PROMPT_TOKENS,
        completionTokens: COMPLETION_TOKENS,
        toolCalls: [],
      });
      const seen = llm.requests.find((r) => r.headers['idempotency-key'] === task.taskId);
      assert.ok(seen, 'the request carried Idempotency-Key: <taskId>');
      assert.equal(seen.path, '/v1/chat/completions');
      assert.equal(seen.headers.authorization, `Bearer ${OPENAI_KEY}`);
      assert.equal(seen.body.temperature, 0.2);
      assert.equal(seen.body.max_tokens, 100);
      assert.deepEqual(seen.body.messages[0], { role: 'system', content: 'You are terse.' });
    });

    it('an azure_openai provider is called the Azure way: deployment path, api-version, api-key header', async () => {
      const res = await api('POST', '/api/integrations/provider/azure', {
        type: 'azure_openai',
        configuration: {
          api_key: '${workflow.secrets.OPENAI_KEY}',
          endpoint: llm.url,
          api_version: '2024-06-01',
        },
      });
      assert.equal(res.status, 200, res.text);
      await register(chatDef('llm_azure', 'azure', 'my-deployment'));
      const run = await finished(await startRun(t.app, 'llm_azure', { input: { question: 'hi azure' } }));
      assert.equal(run.status, 'COMPLETED', describeTasks(run));
      assert.equal(run.tasks[0].outputData.result, 'you said: hi azure');
      const seen = llm.requests.find((r) => r.headers['idempotency-key'] === run.tasks[0].taskId);
      assert.equal(seen?.path, '/openai/deployments/my-deployment/chat/completions');
      assert.equal(seen?.headers['api-key'], OPENAI_KEY);
    });

    it('LLM_TEXT_COMPLETE and LLM_GENERATE_EMBEDDINGS complete', async () => {
      await register({
        name: 'llm_text_embed',
        ownerEmail: 'a@b.c',
        tasks: [
          {
            name: 'text',
            taskReferenceName: 'text',
            type: 'LLM_TEXT_COMPLETE',
            inputParameters: { llmProvider: 'gpt', model: 'gpt-test', prompt: 'say ${workflow.input.word}' },
          },
          {
            name: 'embed',
            taskReferenceName: 'embed',
            type: 'LLM_GENERATE_EMBEDDINGS',
            inputParameters: { llmProvider: 'gpt', model: 'embed-test', text: 'four' },
          },
        ],
        outputParameters: { text: '${text.output.result}', vector: '${embed.output.result}' },
      });
      const run = await finished(await startRun(t.app, 'llm_text_embed', { input: { word: 'yes' } }));
      assert.equal(run.status, 'COMPLETED', describeTasks(run));
      assert.deepEqual(run.output, { text: 'you said: say yes', vector: [4, 0, 0.5] });
      assert.equal(run.tasks[1].outputData.tokenUsed, 3);
    });

    it('a chat with tools on Anthropic ends with TOOL_CALLS and hands back the calls; the answer to them completes', async () => {
      const tools = [
        {
          name: 'echo',
          type: 'CALL_MCP_TOOL',
          description: 'echoes',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        },
      ];
      await register(chatDef('llm_tools', 'claude', 'claude-test', { tools }));
      const run = await finished(await startRun(t.app, 'llm_tools', { input: { question: 'use a tool' } }));
      assert.equal(run.status, 'COMPLETED', describeTasks(run));
      const out = run.tasks[0].outputData;
      assert.equal(out.finishReason, 'TOOL_CALLS');
      assert.equal(out.toolCalls.length, 1);
      assert.deepEqual(
        { ...out.toolCalls[0], taskReferenceName: 'x' },
        {
          taskReferenceName: 'x',
          name: 'echo',
          type: 'CALL_MCP_TOOL',
          inputParameters: { text: 'hello', method: 'echo' },
        },
      );
      const seen = llm.requests.find((r) => r.headers['idempotency-key'] === run.tasks[0].taskId);
      assert.equal(seen?.path, '/v1/messages');
      // The SDK sends the key as x-api-key or (newer versions) as a bearer token.
      const sent = String(seen?.headers['x-api-key'] ?? seen?.headers.authorization ?? '');
      assert.ok(sent.endsWith(ANTHROPIC_KEY), 'the provider got the key');
      assert.ok(seen?.headers['anthropic-version'], 'spoken as the Messages API');
      assert.equal(seen?.body.system, 'You are terse.');
      assert.equal(seen?.body.tools[0].name, 'echo');

      // The calls and their answers go back as tool_call and tool turns.
      await register({
        ...chatDef('llm_tool_answer', 'claude', 'claude-test', { tools }),
        tasks: [
          {
            name: 'chat',
            taskReferenceName: 'chat',
            type: 'LLM_CHAT_COMPLETE',
            inputParameters: {
              llmProvider: 'claude',
              model: 'claude-test',
              tools,
              messages: [
                { role: 'user', message: 'use a tool' },
                { role: 'tool_call', message: '', toolCalls: out.toolCalls },
                { role: 'tool', message: 'hello back', toolCallId: out.toolCalls[0].taskReferenceName },
              ],
            },
          },
        ],
      });
      const second = await finished(await startRun(t.app, 'llm_tool_answer'));
      assert.equal(second.status, 'COMPLETED', describeTasks(second));
      assert.equal(second.tasks[0].outputData.result, 'tool said: hello back');
      assert.equal(second.tasks[0].outputData.finishReason, 'STOP');
    });

    it('streamed answers (stream: true) give the same outputs on both protocols, tool calls included', async () => {
      const tools = [{ name: 'echo', type: 'CALL_MCP_TOOL', inputSchema: { type: 'object' } }];
      for (const [provider, model] of [
        ['gpt', 'gpt-test'],
        ['claude', 'claude-test'],
      ] as const) {
        await register(chatDef(`llm_stream_${provider}`, provider, model, { stream: true }));
        const plain = await finished(
          await startRun(t.app, `llm_stream_${provider}`, { input: { question: 'a b c' } }),
        );
        assert.equal(plain.status, 'COMPLETED', describeTasks(plain));
        assert.deepEqual(plain.tasks[0].outputData, {
          result: 'you said: a b c',
          finishReason: 'STOP',
          tokenUsed: PROMPT_TOKENS + COMPLETION_TOKENS,
          promptTokens: PROMPT_TOKENS,
          completionTokens: COMPLETION_TOKENS,
          toolCalls: [],
        });
        const seen = llm.requests.find((r) => r.headers['idempotency-key'] === plain.tasks[0].taskId);
        assert.equal(seen?.body.stream, true, 'the provider was asked to stream');
        await register(chatDef(`llm_stream_tools_${provider}`, provider, model, { stream: true, tools }));
        const asked = await finished(
          await startRun(t.app, `llm_stream_tools_${provider}`, { input: { question: 'x' } }),
        );
        assert.equal(asked.status, 'COMPLETED', describeTasks(asked));
        assert.equal(asked.tasks[0].outputData.finishReason, 'TOOL_CALLS');
        assert.deepEqual(asked.tasks[0].outputData.toolCalls[0].inputParameters, {
          text: 'hello',
          method: 'echo',
        });
      }
    });

    it('a 429 with Retry-After is waited out on a durable timer and the call made again', async () => {
      await register(chatDef('llm_limited', 'gpt', 'limited'));
      const id = await startRun(t.app, 'llm_limited', { input: { question: 'again' } });
      let run = await runOf(t.app, id);
      let sawWait = false;
      const deadline = Date.now() + 30_000;
      while (run.status === 'RUNNING' && Date.now() < deadline) {
        if (/answered 429; calling again at/.test(run.tasks[0]?.waitingFor?.message ?? '')) sawWait = true;
        if (run.tasks[0]?.outputData?.rateLimitWaits === 1) sawWait = true;
        await new Promise((r) => setTimeout(r, 20));
        run = await runOf(t.app, id);
      }
      assert.equal(run.status, 'COMPLETED', describeTasks(run));
      assert.ok(sawWait, 'the task said it waits for the rate limit');
      const calls = llm.requests.filter((r) => r.headers['idempotency-key'] === run.tasks[0].taskId);
      assert.equal(calls.length, 2, 'one refused call and one answered');
      assert.equal(run.tasks[0].retryCount, 0, 'the wait is not a retry');
      assert.equal(run.tasks[0].outputData.result, 'you said: again');
    });

    it('a 400 from the provider fails the task for good with its message', async () => {
      await register(chatDef('llm_refused', 'gpt', 'refuse'));
      const run = await finished(await startRun(t.app, 'llm_refused', { input: { question: 'x' } }));
      assert.equal(run.status, 'FAILED');
      assert.equal(run.tasks[0].status, 'FAILED_WITH_TERMINAL_ERROR');
      assert.match(run.tasks[0].reasonForIncompletion, /LLM_CHAT_COMPLETE failed: the provider answered 400/);
    });

    it('an unknown provider fails the task saying how to configure it', async () => {
      const run = await finished(await startRun(t.app, 'llm_unconfigured', { input: { question: 'x' } }));
      assert.equal(run.status, 'FAILED');
      assert.match(run.tasks[0].reasonForIncompletion, /no LLM provider named 'openai' is configured/);
    });

    it('terminating a run aborts the provider request in flight and the task ends CANCELED', async () => {
      await register(chatDef('llm_slow', 'gpt', 'slow'));
      const started = llm.slowStarted;
      const cancelled = llm.slowCancelled;
      const id = await startRun(t.app, 'llm_slow', { input: { question: 'x' } });
      const deadline = Date.now() + 30_000;
      while (llm.slowStarted === started && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      assert.equal(llm.slowStarted, started + 1, 'the call started');
      assert.equal((await api('DELETE', `/api/workflow/${id}?reason=enough`)).status, 200);
      while (llm.slowCancelled === cancelled && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      assert.equal(llm.slowCancelled, cancelled + 1, 'the request was aborted');
      const run = await runOf(t.app, id);
      assert.equal(run.status, 'TERMINATED');
      assert.equal(run.tasks[0].status, 'CANCELED');
    });

    it("a task's timeout aborts the provider request in flight", async () => {
      const taskdef = await api('POST', '/api/metadata/taskdefs', [
        {
          name: 'slow_chat',
          retryCount: 0,
          timeoutSeconds: 2,
          responseTimeoutSeconds: 2,
          timeoutPolicy: 'TIME_OUT_WF',
        },
      ]);
      assert.equal(taskdef.status, 200, taskdef.text);
      const def = chatDef('llm_slow_timeout', 'gpt', 'slow');
      await register({ ...def, tasks: [{ ...def.tasks[0], name: 'slow_chat' }] });
      const cancelled = llm.slowCancelled;
      const run = await finished(await startRun(t.app, 'llm_slow_timeout', { input: { question: 'x' } }));
      assert.equal(run.tasks[0].status, 'TIMED_OUT', describeTasks(run));
      const deadline = Date.now() + 15_000;
      while (llm.slowCancelled === cancelled && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      assert.equal(llm.slowCancelled, cancelled + 1, 'the request was aborted');
    });

    it('a per-run token budget fails the task that goes past it, with a clear reason', async () => {
      const ask = (ref: string) => ({
        name: ref,
        taskReferenceName: ref,
        type: 'LLM_CHAT_COMPLETE',
        inputParameters: {
          llmProvider: 'gpt',
          model: 'gpt-test',
          runTokenBudget: '${workflow.input.budget}',
          messages: [{ role: 'user', message: 'q' }],
        },
      });
      await register({ name: 'llm_budget', ownerEmail: 'a@b.c', tasks: [ask('one'), ask('two')] });
      const run = await finished(await startRun(t.app, 'llm_budget', { input: { budget: 20 } }));
      assert.equal(run.status, 'FAILED', describeTasks(run));
      assert.equal(run.tasks[0].status, 'COMPLETED');
      assert.equal(run.tasks[1].status, 'FAILED_WITH_TERMINAL_ERROR');
      assert.match(
        run.tasks[1].reasonForIncompletion,
        /token budget exceeded: this call used 15 tokens, bringing the run to 30 of its budget of 20/,
      );
      assert.equal(run.tasks[1].outputData.tokenUsed, 15, 'the usage is kept in the output');
      const ok = await finished(await startRun(t.app, 'llm_budget', { input: { budget: 30 } }));
      assert.equal(ok.status, 'COMPLETED', describeTasks(ok));
    });

    it('secrets in prompts go out resolved, and an answer echoing one is masked', async () => {
      await register({
        ...chatDef('llm_secret_prompt', 'gpt', 'gpt-test'),
        tasks: [
          {
            name: 'chat',
            taskReferenceName: 'chat',
            type: 'LLM_CHAT_COMPLETE',
            inputParameters: {
              llmProvider: 'gpt',
              model: 'gpt-test',
              messages: [{ role: 'user', message: 'the code is ${workflow.secrets.PROMPT_SECRET}' }],
            },
          },
        ],
      });
      const run = await finished(await startRun(t.app, 'llm_secret_prompt'));
      assert.equal(run.status, 'COMPLETED', describeTasks(run));
      assert.equal(run.tasks[0].outputData.result, 'you said: the code is ***');
      assert.equal(
        run.tasks[0].inputData.messages[0].message,
        'the code is ${workflow.secrets.PROMPT_SECRET}',
      );
      assert.ok(
        llm.requests.some((r) => JSON.stringify(r.body).includes(PROMPT_SECRET)),
        'the provider got it',
      );
    });

    it('a test run mocks every LLM kind and calls nothing', async () => {
      const before = llm.requests.length;
      const def = chatDef('llm_chat', 'gpt', 'gpt-test');
      const res = await api('POST', '/api/workflow/test', {
        name: def.name,
        workflowDef: def,
        input: { question: 'x' },
        taskRefToMockOutput: {
          chat: [{ status: 'COMPLETED', output: { result: 'mocked', finishReason: 'STOP', tokenUsed: 0 } }],
        },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'COMPLETED', res.text);
      assert.equal(res.body.tasks[0].outputData.result, 'mocked');
      assert.equal(llm.requests.length, before, 'no request reached the provider');
    });

    it('token usage is on /metrics per provider and model', async () => {
      const metrics = await api('GET', '/metrics');
      assert.match(
        metrics.text,
        /baton_llm_tokens_total\{provider="gpt",model="gpt-test",kind="prompt"\} \d+/,
      );
      assert.match(
        metrics.text,
        /baton_llm_tokens_total\{provider="claude",model="claude-test",kind="completion"\} \d+/,
      );
      assert.match(
        metrics.text,
        /baton_llm_calls_total\{provider="gpt",model="limited",outcome="rate_limited"\} 1/,
      );
    });

    it('no key or secret value reaches a stored row or an API answer', async () => {
      answers.push((await api('GET', '/api/integrations/provider')).text);
      const text = answers.join('\n');
      for (const value of SECRET_VALUES) assert.ok(!text.includes(value), 'a secret reached an API answer');
      const rows = await everyStoredRow(opened);
      for (const value of SECRET_VALUES) assert.ok(!rows.includes(value), 'a secret reached a stored row');
    });
  });
}
