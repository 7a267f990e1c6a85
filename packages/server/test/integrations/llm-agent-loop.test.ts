import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';

import { call, type TestApp, testApp } from '../helpers/app.js';
import { type McpTestServer, startMcpServer } from '../helpers/integration-servers.js';
import { type LlmTestServer, startLlmServer } from '../helpers/llm-servers.js';
import { runOf, startRun } from '../helpers/runs.js';
import { type OpenedStore, storeCases } from '../helpers/stores.js';

/**
 * The agent-loop example (`examples/agent-loop`) end to end on SQLite and PostgreSQL: the model
 * (a local server speaking the OpenAI or Anthropic protocol) asks for a tool, the tool is called
 * on a real MCP server (the SDK's) as a CALL_MCP_TOOL task of its own, its answer goes back to
 * the model, which then answers. Each model call and each tool call is a task in the run.
 */

const EXAMPLE = JSON.parse(
  readFileSync(
    new URL('../../../../../examples/agent-loop/agent-loop.workflow.json', import.meta.url),
    'utf8',
  ),
) as { name: string };
const KEY = Buffer.alloc(32, 9).toString('base64');

for (const storeCase of storeCases()) {
  describe(`the agent loop example on ${storeCase.name}`, () => {
    let opened: OpenedStore;
    let t: TestApp;
    let llm: LlmTestServer;
    let mcp: McpTestServer;

    before(async () => {
      opened = await storeCase.open();
      t = await testApp(opened.store, { env: { BATON_SECRETS_KEY: KEY } });
      [llm, mcp] = await Promise.all([startLlmServer(), startMcpServer()]);
      assert.equal((await call(t.app, 'PUT', '/api/secrets/LLM_KEY', { value: 'k-123' })).status, 201);
      for (const [name, type, endpoint] of [
        ['gpt', 'openai', `${llm.url}/v1`],
        ['claude', 'anthropic', llm.url],
      ] as const) {
        const res = await call(t.app, 'POST', `/api/integrations/provider/${name}`, {
          type,
          configuration: { api_key: '${workflow.secrets.LLM_KEY}', endpoint },
        });
        assert.equal(res.status, 200, res.text);
      }
      const registered = await call(t.app, 'POST', '/api/metadata/workflow', EXAMPLE);
      assert.equal(registered.status, 200, registered.text);
    });

    after(async () => {
      await t.close();
      await Promise.all([llm.close(), mcp.close()]);
      await opened.cleanup();
    });

    it('tools may name a registered MCP service: its tools are offered with their schemas, calls name the service', async () => {
      assert.equal(
        (await call(t.app, 'POST', '/api/registry/service', { name: 'tools', kind: 'mcp', url: mcp.url }))
          .status,
        200,
      );
      const discovered = await call(t.app, 'GET', '/api/registry/service/tools/discover?create=true');
      assert.equal(discovered.status, 200, discovered.text);
      const def = {
        name: 'registry_tools',
        ownerEmail: 'a@b.c',
        tasks: [
          {
            name: 'chat',
            taskReferenceName: 'chat',
            type: 'LLM_CHAT_COMPLETE',
            inputParameters: {
              llmProvider: 'gpt',
              model: 'gpt-test',
              messages: [{ role: 'user', message: 'echo' }],
              tools: [{ service: 'tools', name: 'echo' }],
            },
          },
        ],
      };
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
      const id = await startRun(t.app, 'registry_tools');
      let run = await runOf(t.app, id);
      const deadline = Date.now() + 30_000;
      while (run.status === 'RUNNING' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        run = await runOf(t.app, id);
      }
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks[0]));
      const asked = run.tasks[0].outputData.toolCalls[0];
      assert.equal(asked.name, 'echo');
      assert.equal(asked.type, 'CALL_MCP_TOOL');
      assert.equal(asked.service, 'tools');
      const seen = llm.requests.find((r) => r.headers['idempotency-key'] === run.tasks[0].taskId);
      const offered = seen?.body.tools.map((x: any) => x.function);
      assert.equal(offered.length, 1);
      assert.equal(offered[0].name, 'echo');
      assert.deepEqual(
        Object.keys(offered[0].parameters.properties),
        ['text'],
        'the schema from the registry',
      );
    });

    it("runs a Conductor-style chain (chat → CALL_MCP_TOOL → chat, the tool's output in the tool message's toolCalls)", async () => {
      const def = {
        name: 'conductor_agent_chain',
        ownerEmail: 'a@b.c',
        tasks: [
          {
            name: 'plan',
            taskReferenceName: 'plan',
            type: 'LLM_CHAT_COMPLETE',
            inputParameters: {
              llmProvider: '${workflow.input.provider}',
              model: '${workflow.input.model}',
              messages: [{ role: 'user', message: 'echo hello' }],
              tools: [{ name: 'echo', type: 'CALL_MCP_TOOL', inputSchema: { type: 'object' } }],
            },
          },
          {
            name: 'execute',
            taskReferenceName: 'execute',
            type: 'CALL_MCP_TOOL',
            inputParameters: {
              mcpServer: '${workflow.input.mcpServer}',
              method: '${plan.output.toolCalls[0].name}',
              arguments: '${plan.output.toolCalls[0].inputParameters}',
            },
          },
          {
            name: 'summarize',
            taskReferenceName: 'summarize',
            type: 'LLM_CHAT_COMPLETE',
            inputParameters: {
              llmProvider: '${workflow.input.provider}',
              model: '${workflow.input.model}',
              messages: [
                { role: 'user', message: 'echo hello' },
                { role: 'tool_call', toolCalls: '${plan.output.toolCalls}' },
                {
                  role: 'tool',
                  toolCalls: [
                    {
                      taskReferenceName: '${plan.output.toolCalls[0].taskReferenceName}',
                      name: 'echo',
                      output: '${execute.output}',
                    },
                  ],
                },
              ],
            },
          },
        ],
        outputParameters: { answer: '${summarize.output.result}' },
      };
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
      for (const [provider, model] of [
        ['gpt', 'gpt-test'],
        ['claude', 'claude-test'],
      ]) {
        const id = await startRun(t.app, def.name, { input: { provider, model, mcpServer: mcp.url } });
        let run = await runOf(t.app, id);
        const deadline = Date.now() + 30_000;
        while (run.status === 'RUNNING' && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 25));
          run = await runOf(t.app, id);
        }
        const shown = JSON.stringify(
          run.tasks.map((x: any) => [x.referenceTaskName, x.status, x.reasonForIncompletion]),
        );
        assert.equal(run.status, 'COMPLETED', shown);
        assert.match(
          run.output.answer,
          /^tool said: \{.*"text":"hello"/,
          `${provider}: ${run.output.answer}`,
        );
      }
    });

    for (const [provider, model] of [
      ['gpt', 'gpt-test'],
      ['claude', 'claude-test'],
    ] as const) {
      it(`runs chat → CALL_MCP_TOOL → chat to the answer on ${provider}`, async () => {
        const id = await startRun(t.app, EXAMPLE.name, {
          input: { question: 'echo something', llmProvider: provider, model, mcpServer: mcp.url },
        });
        let run = await runOf(t.app, id);
        const deadline = Date.now() + 60_000;
        while (run.status === 'RUNNING' && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 25));
          run = await runOf(t.app, id);
        }
        const shown = JSON.stringify(
          run.tasks.map((x: any) => [x.referenceTaskName, x.taskType, x.status, x.reasonForIncompletion]),
        );
        assert.equal(run.status, 'COMPLETED', shown);
        assert.deepEqual(run.output, { answer: 'tool said: hello', finishReason: 'STOP', turns: 2 });
        const of = (type: string) => run.tasks.filter((x: any) => x.taskType === type);
        assert.equal(of('LLM_CHAT_COMPLETE').length, 2, shown);
        const tools = of('CALL_MCP_TOOL');
        assert.equal(tools.length, 1, shown);
        assert.equal(tools[0].inputData.method, 'echo');
        assert.deepEqual(tools[0].inputData.arguments, { text: 'hello' });
        assert.equal(tools[0].outputData.content[0].text, 'hello');
        // The second model call got the tool call and its answer back.
        const second = of('LLM_CHAT_COMPLETE')[1];
        const roles = second.inputData.messages.map((m: { role: string }) => m.role);
        assert.deepEqual(roles, ['system', 'user', 'tool_call', 'tool']);
        const tokens = of('LLM_CHAT_COMPLETE').reduce(
          (sum: number, x: any) => sum + x.outputData.tokenUsed,
          0,
        );
        assert.equal(tokens, 30, 'the usage of each model call is in its output');
      });
    }

    it('terminate mid-loop cancels the model call in flight; the calls made keep their token usage', async () => {
      // `stall-once`: the model call that carries the tool's answer never gets an answer.
      const id = await startRun(t.app, EXAMPLE.name, {
        input: { question: 'echo something', llmProvider: 'gpt', model: 'stall-once', mcpServer: mcp.url },
      });
      const carriesToolAnswer = () =>
        llm.requests.some(
          (r) =>
            r.body?.model === 'stall-once' &&
            (r.body.messages ?? []).some((m: { role: string }) => m.role === 'tool'),
        );
      const deadline = Date.now() + 60_000;
      while (!carriesToolAnswer() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      assert.ok(carriesToolAnswer(), 'the second model call was made');
      const seen = llm.requests.length;
      assert.equal((await call(t.app, 'DELETE', `/api/workflow/${id}?reason=enough`)).status, 200);
      let run = await runOf(t.app, id);
      while (
        run.tasks.some((x: any) => x.status === 'IN_PROGRESS' || x.status === 'SCHEDULED') &&
        Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, 25));
        run = await runOf(t.app, id);
      }
      const shown = JSON.stringify(run.tasks.map((x: any) => [x.referenceTaskName, x.taskType, x.status]));
      assert.equal(run.status, 'TERMINATED', shown);
      const chats = run.tasks.filter((x: any) => x.taskType === 'LLM_CHAT_COMPLETE');
      assert.deepEqual(
        chats.map((x: any) => x.status),
        ['COMPLETED', 'CANCELED'],
        shown,
      );
      assert.equal(chats[0].outputData.tokenUsed, 15, 'the first call shows its usage');
      const tool = run.tasks.find((x: any) => x.taskType === 'CALL_MCP_TOOL');
      assert.equal(tool?.status, 'COMPLETED', shown);
      assert.equal(llm.requests.length, seen, 'no model call was made after terminate');
    });
  });
}
