import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';

import type { TaskRecord, Workflow } from '@baton/protocol';

import {
  type BatonProcess,
  getJson,
  http,
  httpOk,
  postText,
  startBaton,
  waitFor,
} from '../helpers/baton-process.js';
import { type McpTestServer, startMcpServer } from '../helpers/integration-servers.js';
import { type LlmTestServer, startLlmServer } from '../helpers/llm-servers.js';
import { createTestDatabase, enabledStores, type TestDatabase } from '../helpers/postgres.js';

/**
 * The agent-loop example on two real Baton processes sharing one PostgreSQL database: the node
 * holding the second model call (the one after the tool answered) is SIGKILLed mid-loop. Its
 * lease lapses, the other node makes that call again as a new attempt, and the run completes,
 * with each model call made once per attempt and the tool called once.
 */

const pgEnabled = enabledStores().includes('postgres');
const EXAMPLE = JSON.parse(
  readFileSync(
    new URL('../../../../../examples/agent-loop/agent-loop.workflow.json', import.meta.url),
    'utf8',
  ),
) as { name: string };
const KEY = Buffer.alloc(32, 3).toString('base64');

/** The pid in an executor's worker id `baton-executor@host:pid:…`. */
function pidOf(workerId: string | undefined): number | undefined {
  const match = /^baton-executor@.*:(\d+):[^:]+$/.exec(workerId ?? '');
  return match ? Number(match[1]) : undefined;
}

if (pgEnabled)
  void describe('e2e: the agent loop survives a node SIGKILLed mid-loop', () => {
    let db: TestDatabase;
    let nodes: BatonProcess[] = [];
    let llm: LlmTestServer;
    let mcp: McpTestServer;

    before(async () => {
      db = await createTestDatabase('baton_e2e_agent');
      [llm, mcp] = await Promise.all([startLlmServer(), startMcpServer()]);
      const env = {
        BATON_LOG_LEVEL: 'warn',
        BATON_TIMER_IDLE_MS: '200',
        BATON_SECRETS_KEY: KEY,
        // The example's scripts are checked at registration under the script time cap; a busy
        // shared machine must not turn that check into a refusal here (nothing here is about it).
        BATON_SCRIPT_TIMEOUT_MS: '10000',
      };
      nodes = await Promise.all(
        // Two processes starting at once on a shared, busy machine: a generous bound to be ready.
        ['node-a', 'node-b'].map((name) =>
          startBaton({ name, databaseUrl: db.url, env, readyTimeoutMs: 120_000 }),
        ),
      );
    });

    after(async () => {
      await Promise.all(nodes.map((n) => n.stop()));
      await Promise.all([llm.close(), mcp.close()]);
      await db.drop();
    });

    void it(
      'the run completes on the other node, each model call made once per attempt',
      { timeout: 120_000 },
      async () => {
        const [first] = nodes;
        assert.ok(first);
        const put = await http('PUT', `${first.url}/api/secrets/LLM_KEY`, { value: 'k-e2e' });
        assert.equal(put.status, 201);
        await httpOk('POST', `${first.url}/api/integrations/provider/gpt`, {
          type: 'openai',
          configuration: { api_key: '${workflow.secrets.LLM_KEY}', endpoint: `${llm.url}/v1` },
        });
        // A short lease (responseTimeoutSeconds 3), so the dead node's call is noticed quickly.
        await httpOk('POST', `${first.url}/api/metadata/taskdefs`, [
          { name: 'chat', retryCount: 2, retryDelaySeconds: 0, responseTimeoutSeconds: 3 },
        ]);
        await httpOk('POST', `${first.url}/api/metadata/workflow`, EXAMPLE);
        const id = await postText(`${first.url}/api/workflow/${EXAMPLE.name}`, {
          input: { question: 'echo something', llmProvider: 'gpt', model: 'stall-once', mcpServer: mcp.url },
        });

        // The node holding the model call that follows the tool's answer (the server never answers it).
        const holder = await waitFor(
          async () => {
            const run = await getJson<Workflow>(`${first.url}/api/workflow/${id}`);
            const chats = run.tasks.filter((t) => t.taskType === 'LLM_CHAT_COMPLETE');
            const second = chats[1];
            const pid = second?.status === 'IN_PROGRESS' ? pidOf(second.workerId) : undefined;
            const asked = llm.requests.some((r) => r.headers['idempotency-key'] === second?.taskId);
            return pid !== undefined && asked ? nodes.find((n) => n.pid === pid) : undefined;
          },
          { timeoutMs: 60_000, what: 'a node to hold the second model call' },
        );
        const survivor = nodes.find((n) => n !== holder);
        assert.ok(survivor);
        holder.kill();
        await holder.exited;

        const run = await waitFor(
          async () => {
            const r = await getJson<Workflow>(`${survivor.url}/api/workflow/${id}`);
            return r.status === 'RUNNING' ? undefined : r;
          },
          {
            timeoutMs: 60_000,
            what: 'the run to end on the surviving node',
            describe: async () =>
              JSON.stringify((await http('GET', `${survivor.url}/api/workflow/${id}`)).body),
          },
        );
        const tasks: TaskRecord[] = run.tasks;
        const shown = JSON.stringify(
          tasks.map((t) => [t.referenceTaskName, t.status, t.reasonForIncompletion]),
        );
        assert.equal(run.status, 'COMPLETED', shown);
        assert.deepEqual(run.output, { answer: 'tool said: hello', finishReason: 'STOP', turns: 2 });
        const chats = tasks.filter((t) => t.taskType === 'LLM_CHAT_COMPLETE');
        assert.deepEqual(
          chats.map((t) => [t.referenceTaskName, t.status]),
          [
            ['chat__1', 'COMPLETED'],
            ['chat__2', 'TIMED_OUT'],
            ['chat__2', 'COMPLETED'],
          ],
          shown,
        );
        assert.equal(pidOf(chats[2]?.workerId), survivor.pid, 'the surviving node made the call again');
        for (const chat of chats) {
          const made = llm.requests.filter((r) => r.headers['idempotency-key'] === chat.taskId).length;
          assert.equal(made, 1, `model call ${chat.taskId} made once`);
        }
        const tools = tasks.filter((t) => t.taskType === 'CALL_MCP_TOOL');
        assert.deepEqual(
          tools.map((t) => t.status),
          ['COMPLETED'],
          'the tool was called once',
        );
      },
    );
  });
