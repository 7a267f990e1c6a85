import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { call, type TestApp, testApp } from '../helpers/app.js';
import {
  type AnalyzeTestServer,
  type ConnectorTestServer,
  type McpTestServer,
  PET_API,
  startAnalyzeServer,
  startConnectorServer,
  startMcpServer,
} from '../helpers/integration-servers.js';
import { runOf, startRun } from '../helpers/runs.js';
import { everyStoredRow } from '../helpers/store-text.js';
import { type OpenedStore, storeCases } from '../helpers/stores.js';

/**
 * Runs with CALL_TOOL, CONNECTOR and DOCUMENT_INTELLIGENCE tasks through the API, against real
 * servers on 127.0.0.1, on SQLite and PostgreSQL; test runs never call out; no secret value
 * reaches a stored row or an API answer.
 */

const KEY = Buffer.alloc(32, 5).toString('base64');
const TOKEN = 'mcp-token-7f3a9c-never-stored';
const PASSWORD = 'pets-password-d41d8c-never-stored';
const DI_KEY = 'di-key-0c2f77-never-stored';
const ARG_SECRET = 'argument-secret-31415-never-stored';
const SECRET_VALUES = [
  TOKEN,
  PASSWORD,
  DI_KEY,
  ARG_SECRET,
  Buffer.from(`svc:${PASSWORD}`).toString('base64'),
];

function assertNoSecret(text: string, where: string): void {
  for (const value of SECRET_VALUES) assert.ok(!text.includes(value), `a secret value reached ${where}`);
}

const WORKFLOW = {
  name: 'integrations_all',
  ownerEmail: 'a@b.c',
  tasks: [
    {
      name: 'echo',
      taskReferenceName: 'echo',
      type: 'CALL_TOOL',
      inputParameters: {
        service: 'tools',
        tool: 'echo',
        arguments: { text: 'secret is ${workflow.secrets.ARG}' },
      },
    },
    {
      name: 'whoami',
      taskReferenceName: 'whoami',
      type: 'CALL_TOOL',
      inputParameters: { service: 'tools', tool: 'whoami', arguments: {} },
    },
    {
      name: 'pet',
      taskReferenceName: 'pet',
      type: 'CONNECTOR',
      inputParameters: { connector: 'pets', operation: 'createPet', body: { name: '${workflow.input.pet}' } },
    },
    {
      name: 'doc',
      taskReferenceName: 'doc',
      type: 'DOCUMENT_INTELLIGENCE',
      inputParameters: {
        service: 'docs',
        modelId: 'prebuilt-invoice',
        urlSource: '${workflow.input.document}',
      },
    },
  ],
  outputParameters: {
    echoed: '${echo.output.content[0].text}',
    who: '${whoami.output.content[0].text}',
    petStatus: '${pet.output.response.statusCode}',
    seen: '${pet.output.response.body.seenAuthorization}',
    content: '${doc.output.analyzeResult.content}',
  },
};

for (const storeCase of storeCases()) {
  describe(`integration runs on ${storeCase.name}`, () => {
    let opened: OpenedStore;
    let t: TestApp;
    let mcp: McpTestServer;
    let pets: ConnectorTestServer;
    let analyze: AnalyzeTestServer;
    const answers: string[] = [];
    const api = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => {
      const res = await call(t.app, method, url, body);
      answers.push(res.text);
      return res;
    };

    before(async () => {
      opened = await storeCase.open();
      t = await testApp(opened.store, { env: { BATON_SECRETS_KEY: KEY } });
      [mcp, pets, analyze] = await Promise.all([
        startMcpServer(),
        startConnectorServer(),
        startAnalyzeServer(2),
      ]);
      for (const [name, value] of [
        ['TOOLS_TOKEN', TOKEN],
        ['PETS_PASSWORD', PASSWORD],
        ['DI_KEY', DI_KEY],
        ['ARG', ARG_SECRET],
      ]) {
        assert.equal((await api('PUT', `/api/secrets/${name}`, { value })).status, 201);
      }
      const services = [
        { name: 'tools', kind: 'mcp', url: mcp.url, auth: { type: 'bearer', secret: 'TOOLS_TOKEN' } },
        {
          name: 'pets',
          kind: 'connector',
          url: pets.url,
          auth: { type: 'basic', username: 'svc', secret: 'PETS_PASSWORD' },
          openApi: PET_API,
        },
        {
          name: 'docs',
          kind: 'document-intelligence',
          url: analyze.url,
          auth: { type: 'apiKey', header: 'Ocp-Apim-Subscription-Key', secret: 'DI_KEY' },
        },
      ];
      for (const s of services) assert.equal((await api('POST', '/api/registry/service', s)).status, 200);
      const registered = await api('POST', '/api/metadata/workflow', WORKFLOW);
      assert.equal(registered.status, 200, registered.text);
    });

    after(async () => {
      await t.close();
      await Promise.all([mcp.close(), pets.close(), analyze.close()]);
      await opened.cleanup();
    });

    it('a test run substitutes mocks for every call and calls nothing', async () => {
      const before = mcp.requests + pets.requests + analyze.requests;
      const res = await api('POST', '/api/workflow/test', {
        name: WORKFLOW.name,
        workflowDef: WORKFLOW,
        input: { pet: 'Rex', document: 'https://example.com/a.pdf' },
        taskRefToMockOutput: {
          echo: [
            { status: 'COMPLETED', output: { content: [{ type: 'text', text: 'mocked' }], isError: false } },
          ],
          whoami: [{ status: 'COMPLETED', output: { content: [{ type: 'text', text: 'nobody' }] } }],
          pet: [
            {
              status: 'COMPLETED',
              output: { response: { statusCode: 201, body: { seenAuthorization: 'none' } } },
            },
          ],
          doc: [{ status: 'COMPLETED', output: { analyzeResult: { content: 'mocked doc' } } }],
        },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'COMPLETED', res.text);
      assert.equal(res.body.output.content, 'mocked doc');
      assert.equal(
        mcp.requests + pets.requests + analyze.requests - before,
        0,
        'no request reached the local servers',
      );
    });

    it('keeps ${workflow.secrets.NAME} literal in stored inputs', async () => {
      const id = await startRun(t.app, WORKFLOW.name, {
        input: { pet: 'Rex', document: 'https://example.com/a.pdf' },
      });
      const run = await runOf(t.app, id);
      answers.push(JSON.stringify(run));
      const echo = run.tasks.find((task: { referenceTaskName: string }) => task.referenceTaskName === 'echo');
      assert.equal(echo.inputData.arguments.text, 'secret is ${workflow.secrets.ARG}');
    });

    it('runs every kind end to end through the executor, masking what the targets echo', async () => {
      const id = await startRun(t.app, WORKFLOW.name, {
        input: { pet: 'Rex', document: 'https://example.com/a.pdf' },
      });
      let run = await runOf(t.app, id);
      let sawAnalysisWait = false;
      const deadline = Date.now() + 60_000;
      while (run.status === 'RUNNING' && Date.now() < deadline) {
        const doc = run.tasks.find((task: { referenceTaskName: string }) => task.referenceTaskName === 'doc');
        if (/document analysis running, next check at/.test(doc?.waitingFor?.message ?? ''))
          sawAnalysisWait = true;
        await new Promise((r) => setTimeout(r, 50));
        run = await runOf(t.app, id);
      }
      answers.push(JSON.stringify(run));
      assert.equal(
        run.status,
        'COMPLETED',
        JSON.stringify(
          run.tasks.map(
            (x: { referenceTaskName: string; status: string; reasonForIncompletion?: string }) => [
              x.referenceTaskName,
              x.status,
              x.reasonForIncompletion,
            ],
          ),
        ),
      );
      assert.deepEqual(run.output, {
        echoed: 'secret is ***',
        who: 'you are Bearer ***',
        petStatus: 201,
        seen: 'Basic ***',
        content: 'Invoice 42',
      });
      assert.ok(sawAnalysisWait, 'the analysis task said it waits for its next check');
      const pet = run.tasks.find((task: { referenceTaskName: string }) => task.referenceTaskName === 'pet');
      // The earlier run of this workflow calls too: find this run's request by its key.
      assert.ok(
        pets.received.some((r) => r.headers['idempotency-key'] === pet.taskId),
        'the connector call carried Idempotency-Key: <taskId>',
      );
      assert.ok(mcp.authorizations.includes(`Bearer ${TOKEN}`), 'the target got the real token');
      assert.ok(analyze.keys.length > 0 && analyze.keys.every((k) => k === DI_KEY));
      for (const task of run.tasks) {
        const logs = await api('GET', `/api/tasks/${task.taskId}/log`);
        assert.equal(logs.status, 200);
      }
    });

    it('terminating a run cancels its tool call in flight (notifications/cancelled) and the task ends CANCELED', async () => {
      const def = {
        name: 'slow_tool',
        ownerEmail: 'a@b.c',
        tasks: [
          {
            name: 'slow',
            taskReferenceName: 'slow',
            type: 'CALL_TOOL',
            inputParameters: { service: 'tools', tool: 'slow', arguments: { seconds: 30 } },
          },
        ],
      };
      assert.equal((await api('POST', '/api/metadata/workflow', def)).status, 200);
      const started = mcp.slowStarted;
      const cancelled = mcp.cancelled;
      const id = await startRun(t.app, 'slow_tool');
      const deadline = Date.now() + 30_000;
      while (mcp.slowStarted === started && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      assert.equal(mcp.slowStarted, started + 1, 'the tool call started');
      const terminatedAt = Date.now();
      assert.equal((await api('DELETE', `/api/workflow/${id}?reason=enough`)).status, 200);
      while (mcp.cancelled === cancelled && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      assert.equal(mcp.cancelled, cancelled + 1, 'the server was told the call is cancelled');
      assert.ok(
        Date.now() - terminatedAt < 10_000,
        `cancelled ${Date.now() - terminatedAt} ms after terminate`,
      );
      const run = await runOf(t.app, id);
      assert.equal(run.status, 'TERMINATED');
      assert.equal(run.tasks[0].status, 'CANCELED');
    });

    it('an HTTP task sends a secret in a header and a target echoing it is masked in the output', async () => {
      const def = {
        name: 'http_secret',
        ownerEmail: 'a@b.c',
        tasks: [
          {
            name: 'post',
            taskReferenceName: 'post',
            type: 'HTTP',
            inputParameters: {
              http_request: {
                uri: `${pets.url}/pets`,
                method: 'POST',
                headers: { Authorization: 'Bearer ${workflow.secrets.ARG}' },
                body: { name: 'Tom' },
              },
            },
          },
        ],
      };
      assert.equal((await api('POST', '/api/metadata/workflow', def)).status, 200);
      const id = await startRun(t.app, 'http_secret');
      let run = await runOf(t.app, id);
      const deadline = Date.now() + 30_000;
      while (run.status === 'RUNNING' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        run = await runOf(t.app, id);
      }
      answers.push(JSON.stringify(run));
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks[0]));
      assert.ok(
        pets.received.some((r) => r.headers.authorization === `Bearer ${ARG_SECRET}`),
        'the target got the secret',
      );
      assert.equal(run.tasks[0].outputData.response.body.seenAuthorization, 'Bearer ***');
      assert.equal(
        run.tasks[0].inputData.http_request.headers.Authorization,
        'Bearer ${workflow.secrets.ARG}',
      );
    });

    it("runs Conductor's LIST_MCP_TOOLS and CALL_MCP_TOOL definitions unchanged", async () => {
      const def = {
        name: 'conductor_mcp',
        ownerEmail: 'a@b.c',
        tasks: [
          {
            name: 'list',
            taskReferenceName: 'list',
            type: 'LIST_MCP_TOOLS',
            inputParameters: { mcpServer: '${workflow.input.mcpServerUrl}' },
          },
          {
            name: 'call',
            taskReferenceName: 'call',
            type: 'CALL_MCP_TOOL',
            inputParameters: {
              mcpServer: '${workflow.input.mcpServerUrl}',
              method: 'echo',
              arguments: { text: '${workflow.input.text}' },
              headers: { Authorization: 'Bearer ${workflow.secrets.TOOLS_TOKEN}' },
            },
          },
        ],
        outputParameters: { tools: '${list.output.tools[*].name}', text: '${call.output.content[0].text}' },
      };
      assert.equal((await api('POST', '/api/metadata/workflow', def)).status, 200);
      const id = await startRun(t.app, 'conductor_mcp', {
        input: { mcpServerUrl: mcp.url, text: 'as in Conductor' },
      });
      let run = await runOf(t.app, id);
      const deadline = Date.now() + 30_000;
      while (run.status === 'RUNNING' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        run = await runOf(t.app, id);
      }
      answers.push(JSON.stringify(run));
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks));
      assert.deepEqual([...run.output.tools].sort(), ['echo', 'fail', 'slow', 'whoami']);
      assert.equal(run.output.text, 'as in Conductor');
      assert.equal(run.tasks[1].taskType, 'CALL_MCP_TOOL');
    });

    it('no secret value reaches a stored row or an API answer', async () => {
      answers.push((await api('GET', '/api/secrets')).text, (await api('GET', '/api/registry/service')).text);
      answers.push((await api('GET', '/api/admin/config')).text, (await api('GET', '/metrics')).text);
      assertNoSecret(answers.join('\n'), 'an API answer');
      assertNoSecret(await everyStoredRow(opened), 'a stored row');
    });
  });
}
