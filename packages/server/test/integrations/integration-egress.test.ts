import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import {
  type AnalyzeTestServer,
  type ConnectorTestServer,
  type McpTestServer,
  PET_API,
  startAnalyzeServer,
  startConnectorServer,
  startMcpServer,
} from '../helpers/integration-servers.js';
import { startLlmServer } from '../helpers/llm-servers.js';
import { runOf, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

/** The egress policy holds for tool, connector, document-analysis and LLM calls: a denied target fails the task, naming the rule, and sees no request. */

for (const storeCase of storeCases()) {
  describe(`egress policy on integration calls on ${storeCase.name}`, () => {
    const t = appSuite(storeCase, { env: { BATON_HTTP_DENY: '127.0.0.1' } });
    let mcp: McpTestServer;
    let pets: ConnectorTestServer;
    let analyze: AnalyzeTestServer;

    before(async () => {
      [mcp, pets, analyze] = await Promise.all([
        startMcpServer(),
        startConnectorServer(),
        startAnalyzeServer(1),
      ]);
    });
    after(async () => {
      await Promise.all([mcp.close(), pets.close(), analyze.close()]);
    });

    it('a denied target fails the task for good with the rule named, and no request reaches it', async () => {
      const services = [
        { name: 'tools', kind: 'mcp', url: mcp.url },
        { name: 'pets', kind: 'connector', url: pets.url, openApi: PET_API },
        { name: 'docs', kind: 'document-intelligence', url: analyze.url },
      ];
      for (const s of services)
        assert.equal((await call(t.app, 'POST', '/api/registry/service', s)).status, 200);
      const tasks = [
        { type: 'CALL_TOOL', inputParameters: { service: 'tools', tool: 'echo', arguments: { text: 'x' } } },
        {
          type: 'CONNECTOR',
          inputParameters: { connector: 'pets', operation: 'getPet', parameters: { petId: 1 } },
        },
        {
          type: 'DOCUMENT_INTELLIGENCE',
          inputParameters: { service: 'docs', modelId: 'm', urlSource: 'https://a' },
        },
      ];
      for (const [i, task] of tasks.entries()) {
        const def = {
          name: `denied_${i}`,
          ownerEmail: 'a@b.c',
          tasks: [{ name: 'x', taskReferenceName: 'x', ...task }],
        };
        assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
        const id = await startRun(t.app, def.name);
        let run = await runOf(t.app, id);
        const deadline = Date.now() + 30_000;
        while (run.status === 'RUNNING' && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
          run = await runOf(t.app, id);
        }
        assert.equal(run.status, 'FAILED', `${task.type}: ${JSON.stringify(run.tasks)}`);
        assert.equal(run.tasks.length, 1, `${task.type}: no further attempt`);
        assert.equal(run.tasks[0].status, 'FAILED_WITH_TERMINAL_ERROR');
        assert.match(run.tasks[0].reasonForIncompletion, /denied by BATON_HTTP_DENY rule 127\.0\.0\.1/);
      }
      assert.equal(mcp.requests + pets.requests + analyze.requests, 0, 'no request reached a denied target');
    });

    it('an LLM task whose provider is denied fails for good with the rule named, and no request reaches it', async () => {
      const llm = await startLlmServer();
      try {
        const provider = await call(t.app, 'POST', '/api/integrations/provider/local', {
          type: 'ollama',
          configuration: { endpoint: `${llm.url}/v1` },
        });
        assert.equal(provider.status, 200, provider.text);
        const def = {
          name: 'denied_llm',
          ownerEmail: 'a@b.c',
          tasks: [
            {
              name: 'x',
              taskReferenceName: 'x',
              type: 'LLM_CHAT_COMPLETE',
              inputParameters: {
                llmProvider: 'local',
                model: 'm',
                messages: [{ role: 'user', message: 'hi' }],
              },
            },
          ],
        };
        assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
        const id = await startRun(t.app, def.name);
        let run = await runOf(t.app, id);
        const deadline = Date.now() + 30_000;
        while (run.status === 'RUNNING' && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
          run = await runOf(t.app, id);
        }
        assert.equal(run.status, 'FAILED', JSON.stringify(run.tasks));
        assert.equal(run.tasks[0].status, 'FAILED_WITH_TERMINAL_ERROR');
        assert.match(run.tasks[0].reasonForIncompletion, /denied by BATON_HTTP_DENY rule 127\.0\.0\.1/);
        assert.equal(llm.requests.length, 0, 'no request reached the provider');
      } finally {
        await llm.close();
      }
    });
  });
}
