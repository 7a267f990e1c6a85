import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';

import type { Page } from 'playwright-core';

import type { BatonProcess } from '../../server/test/helpers/baton-process.js';
import type * as LlmServersModule from '../../server/test/helpers/llm-servers.js';
import type { LlmTestServer } from '../../server/test/helpers/llm-servers.js';
import { batonProcess, launchBrowser, repoRoot, uiBuilt, type Browser } from './helpers/browser.js';
import { apiClient } from './helpers/fixtures.js';

/**
 * An LLM task in the run page's task panel, in a real browser against a real Baton process and a
 * local server speaking the OpenAI protocol: the messages by role, the answer with its finish
 * reason, the tool calls the model asked for, and the tokens used.
 */

describe('web UI: an LLM task reads as a conversation', () => {
  let baton: BatonProcess;
  let browser: Browser;
  let page: Page;
  let llm: LlmTestServer;
  let helpers: Awaited<ReturnType<typeof batonProcess>>;
  const client = apiClient(
    () => helpers,
    () => baton.url,
  );
  const { api, post, start, runStatus } = client;

  before(async () => {
    assert.ok(uiBuilt(), 'the UI is not built: run `npm run build` first (npm test does)');
    helpers = await batonProcess();
    // Loaded from the server's compiled tests at run time, as the other server helpers are.
    const file = path.join(repoRoot, 'packages/server/dist/test/helpers/llm-servers.js');
    const servers = (await import(pathToFileURL(file).href)) as typeof LlmServersModule;
    llm = await servers.startLlmServer();
    baton = await helpers.startBaton({ name: 'ui-llm' });
    // A local OpenAI-compatible server takes no key.
    await post('/api/integrations/provider/local', {
      type: 'ollama',
      configuration: { endpoint: `${llm.url}/v1` },
    });
    await post('/api/metadata/workflow', {
      name: 'ui_llm_chat',
      ownerEmail: 'ui@example.com',
      tasks: [
        {
          name: 'ask',
          taskReferenceName: 'ask',
          type: 'LLM_CHAT_COMPLETE',
          inputParameters: {
            llmProvider: 'local',
            model: 'llama-test',
            messages: [
              { role: 'system', message: 'Be brief.' },
              { role: 'user', message: 'What is the weather?' },
            ],
            tools: [{ name: 'weather', description: 'The weather', inputSchema: { type: 'object' } }],
          },
        },
      ],
    });
    browser = await launchBrowser();
    page = await browser.context.newPage();
  });

  after(async () => {
    await browser?.close();
    await baton?.stop();
    await llm?.close();
  });

  it('shows roles, the tool call asked for, the finish reason and the tokens', async () => {
    const id = await start('ui_llm_chat', {});
    await runStatus(id, 'COMPLETED');
    await page.goto(api(`/runs/${id}?task=ask`));
    const conversation = page.getByTestId('task-panel').getByTestId('llm-conversation');
    await conversation.waitFor();
    await conversation.getByText('Be brief.').waitFor();
    await conversation.getByText('What is the weather?').waitFor();
    const roles = await conversation.locator('.llm-role').allInnerTexts();
    assert.deepEqual(
      roles.map((r) => r.split('·')[0]?.trim().toLowerCase()),
      ['system', 'user', 'answer'],
    );
    const answer = conversation.getByTestId('llm-answer');
    await answer.getByText('TOOL_CALLS').waitFor();
    await answer.locator('.llm-tool-name', { hasText: 'weather' }).waitFor();
    await answer.getByText('"text": "hello"').waitFor();
    assert.match(
      await conversation.getByTestId('llm-tokens').innerText(),
      /15 tokens \(10 prompt, 5 completion\)/,
    );
  });
});
