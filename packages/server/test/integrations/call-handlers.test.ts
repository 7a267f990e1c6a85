import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { JsonObject } from '@baton/protocol';
import { Agent, fetch as undiciFetch } from 'undici';

import { FilesystemBlobStore } from '../../src/blobs/filesystem-blob-store.js';
import { systemClock } from '../../src/clock.js';
import type { CallContext, CallOutcome, SystemCall } from '../../src/integrations/call-handler.js';
import { ConnectorHandler } from '../../src/integrations/connector/connector-handler.js';
import { DocumentAnalysisHandler } from '../../src/integrations/document-intelligence/document-analysis-handler.js';
import { McpSessions } from '../../src/integrations/mcp/mcp-sessions.js';
import { discoverTools, McpToolHandler } from '../../src/integrations/mcp/mcp-tool-handler.js';
import { RegistryService } from '../../src/integrations/registry/registry-service.js';
import { secretNamesIn, substituteSecrets } from '../../src/integrations/secrets/secret-refs.js';
import { SecretService } from '../../src/integrations/secrets/secret-service.js';
import type { SystemCallKind } from '../../src/engine/kinds/system-call-names.js';
import {
  type AnalyzeTestServer,
  type ConnectorTestServer,
  type McpTestServer,
  PET_API,
  startAnalyzeServer,
  startConnectorServer,
  startMcpServer,
} from '../helpers/integration-servers.js';
import { type OpenedStore, storeCases } from '../helpers/stores.js';

/**
 * The MCP, connector and document-analysis handlers through the executor's port, against real
 * servers on 127.0.0.1 (the SDK's McpServer, an OpenAPI-described API, the analyze protocol),
 * with secrets from the real secret store.
 */

const KEY = Buffer.alloc(32, 7);
const TOKEN = 'tok-Zq81-secret-value';
const PASSWORD = 'pw-9x8y7z-secret';
const DI_KEY = 'di-key-55aa-secret';

let seq = 0;
function systemCall(
  taskType: SystemCallKind,
  input: JsonObject,
  extra: Partial<SystemCall> = {},
): SystemCall {
  seq++;
  return {
    taskId: `task-${seq}`,
    workflowId: 'wf-1',
    taskType,
    declaredType: taskType,
    referenceTaskName: `ref${seq}`,
    workflowTask: { name: 'x', taskReferenceName: `ref${seq}`, type: taskType },
    input,
    attempt: 1,
    previousOutput: {},
    ...extra,
  };
}

const agent = new Agent();
function context(
  secrets: SecretService,
  signal: AbortSignal = new AbortController().signal,
): CallContext & { logs: string[] } {
  const logs: string[] = [];
  return {
    signal,
    fetch: (input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
      undiciFetch(input, { ...init, dispatcher: agent }),
    dispatcher: agent,
    // The handlers here are given inputs as a definition wrote them: every reference in them is the template's.
    resolveSecrets: async (value, used) => {
      const values = await secrets.values(secretNamesIn(value));
      used?.(values.values());
      return substituteSecrets(value, values) as typeof value;
    },
    secretValues: (names) => secrets.values(names),
    log: (line) => logs.push(line),
    now: () => Date.now(),
    logs,
  };
}

function assertNoSecret(value: unknown): void {
  const text = JSON.stringify(value);
  for (const secret of [TOKEN, PASSWORD, DI_KEY, Buffer.from(`svc:${PASSWORD}`).toString('base64')]) {
    assert.ok(!text.includes(secret), `a secret value leaked: ${text}`);
  }
}

const sqlite = storeCases().find((c) => c.name === 'sqlite') ?? storeCases()[0];

describe('call handlers through the port', () => {
  let opened: OpenedStore;
  let secrets: SecretService;
  let registry: RegistryService;
  let sessions: McpSessions;
  let mcp: McpTestServer;
  let pets: ConnectorTestServer;
  let analyze: AnalyzeTestServer;
  let tools: McpToolHandler;
  let connector: ConnectorHandler;
  let documents: DocumentAnalysisHandler;

  before(async () => {
    assert.ok(sqlite);
    opened = await sqlite.open();
    secrets = new SecretService(opened.store, systemClock, KEY);
    registry = new RegistryService(opened.store, systemClock);
    sessions = new McpSessions();
    [mcp, pets, analyze] = await Promise.all([
      startMcpServer(),
      startConnectorServer(),
      startAnalyzeServer(2),
    ]);
    await secrets.put('TOOLS_TOKEN', TOKEN);
    await secrets.put('PET_PASSWORD', PASSWORD);
    await secrets.put('DI_KEY', DI_KEY);
    await registry.put({
      name: 'tools',
      kind: 'mcp',
      url: mcp.url,
      auth: { type: 'bearer', secret: 'TOOLS_TOKEN' },
    });
    await registry.put({
      name: 'pets',
      type: 'HTTP',
      serviceURI: pets.url,
      auth: { type: 'basic', username: 'svc', secret: 'PET_PASSWORD' },
      openApi: PET_API,
    });
    await registry.put({
      name: 'docs',
      kind: 'document-intelligence',
      url: analyze.url,
      auth: { type: 'apiKey', header: 'Ocp-Apim-Subscription-Key', secret: 'DI_KEY' },
    });
    tools = new McpToolHandler(registry, sessions);
    connector = new ConnectorHandler(registry);
    documents = new DocumentAnalysisHandler(registry);
  });

  after(async () => {
    await sessions.close();
    await Promise.all([mcp.close(), pets.close(), analyze.close()]);
    await agent.close();
    await opened.cleanup();
  });

  it('CALL_TOOL calls a registered MCP service and reuses its session', async () => {
    const first = await tools.call(
      systemCall('CALL_TOOL', { service: 'tools', tool: 'echo', arguments: { text: 'hi' } }),
      context(secrets),
    );
    assert.equal(first.status, 'COMPLETED', JSON.stringify(first));
    assert.deepEqual(first.status === 'COMPLETED' && first.output, {
      content: [{ type: 'text', text: 'hi' }],
      structuredContent: { text: 'hi', length: 2 },
      isError: false,
    });
    const second = await tools.call(
      systemCall('CALL_TOOL', { service: 'tools', tool: 'echo', arguments: { text: 'again' } }),
      context(secrets),
    );
    assert.equal(second.status, 'COMPLETED');
    assert.equal(mcp.sessions, 1, 'the second call reused the session');
    assert.equal(sessions.size, 1);
  });

  it('sends the bearer token from the secret store and masks it in the output', async () => {
    const out = await tools.call(
      systemCall('CALL_TOOL', { service: 'tools', tool: 'whoami', arguments: {} }),
      context(secrets),
    );
    assert.equal(out.status, 'COMPLETED', JSON.stringify(out));
    assert.equal(mcp.authorizations.at(-1), `Bearer ${TOKEN}`, 'the server got the real token');
    assert.deepEqual(out.status === 'COMPLETED' && out.output.content, [
      { type: 'text', text: 'you are Bearer ***' },
    ]);
    assertNoSecret(out);
  });

  it('an isError answer fails the task (retryable); a protocol error fails it with its message', async () => {
    const failed = await tools.call(
      systemCall('CALL_TOOL', { service: 'tools', tool: 'fail', arguments: { why: 'disk full' } }),
      context(secrets),
    );
    assert.equal(failed.status, 'FAILED');
    assert.match(failed.status === 'FAILED' ? failed.reason : '', /cannot: disk full/);
    assert.equal(failed.status === 'FAILED' && failed.output?.isError, true);
    const bad = await tools.call(
      systemCall('CALL_TOOL', { service: 'tools', tool: 'echo', arguments: { text: 42 } }),
      context(secrets),
    );
    assert.equal(bad.status, 'FAILED', JSON.stringify(bad));
    assert.match(bad.status === 'FAILED' ? bad.reason : '', /text/i);
  });

  it('LIST_TOOLS answers the tools with their input schemas', async () => {
    const out = await tools.call(systemCall('LIST_TOOLS', { service: 'tools' }), context(secrets));
    assert.equal(out.status, 'COMPLETED', JSON.stringify(out));
    const listed = (out.status === 'COMPLETED' ? out.output.tools : []) as Array<{
      name: string;
      inputSchema: JsonObject;
    }>;
    assert.deepEqual(listed.map((t) => t.name).sort(), ['echo', 'fail', 'slow', 'whoami']);
    assert.equal(listed.find((t) => t.name === 'echo')?.inputSchema.type, 'object');
  });

  it("runs Conductor's CALL_MCP_TOOL and LIST_MCP_TOOLS unchanged (mcpServer, method, arguments, headers)", async () => {
    const out = await tools.call(
      systemCall(
        'CALL_TOOL',
        {
          mcpServer: mcp.url,
          method: 'whoami',
          arguments: {},
          headers: { Authorization: 'Bearer ${workflow.secrets.TOOLS_TOKEN}' },
        },
        { declaredType: 'CALL_MCP_TOOL' },
      ),
      context(secrets),
    );
    assert.equal(out.status, 'COMPLETED', JSON.stringify(out));
    assert.equal(mcp.authorizations.at(-1), `Bearer ${TOKEN}`);
    assertNoSecret(out);
    const list = await tools.call(
      systemCall('LIST_TOOLS', { mcpServer: mcp.url }, { declaredType: 'LIST_MCP_TOOLS' }),
      context(secrets),
    );
    assert.equal(list.status, 'COMPLETED');
  });

  it('an aborted call stops at once and the server is told (notifications/cancelled)', async () => {
    const controller = new AbortController();
    const started = mcp.slowStarted;
    const pending = tools.call(
      systemCall('CALL_TOOL', { service: 'tools', tool: 'slow', arguments: { seconds: 30 } }),
      context(secrets, controller.signal),
    );
    const deadline = Date.now() + 20_000;
    while (mcp.slowStarted === started && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const abortedAt = Date.now();
    controller.abort();
    const out = await pending;
    assert.equal(out.status, 'FAILED');
    assert.ok(Date.now() - abortedAt < 5000, 'the handler answered soon after the abort');
    while (mcp.cancelled === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(mcp.cancelled, 1, 'the server saw the cancellation');
  });

  it('a missing secret fails the call before any request, naming the secret', async () => {
    await registry.put({
      name: 'tools2',
      kind: 'mcp',
      url: mcp.url,
      auth: { type: 'bearer', secret: 'NOT_THERE' },
    });
    const before = mcp.requests;
    const out = await tools.call(
      systemCall('CALL_TOOL', { service: 'tools2', tool: 'echo', arguments: { text: 'x' } }),
      context(secrets),
    );
    assert.equal(out.status, 'FAILED');
    assert.match(out.status === 'FAILED' ? out.reason : '', /NOT_THERE/);
    assert.equal(mcp.requests, before);
  });

  it('CONNECTOR validates against the operation schema, calls with Idempotency-Key and masks derived credentials', async () => {
    const task = systemCall('CONNECTOR', {
      connector: 'pets',
      operation: 'createPet',
      body: { name: 'Rex', tags: ['good'] },
    });
    const out = await connector.call(task, context(secrets));
    assert.equal(out.status, 'COMPLETED', JSON.stringify(out));
    const response = (out.status === 'COMPLETED' ? out.output.response : {}) as JsonObject;
    assert.equal(response.statusCode, 201);
    assert.equal(response.reasonPhrase, 'Created');
    assert.deepEqual(response.body, { name: 'Rex', tags: ['good'], id: 7, seenAuthorization: 'Basic ***' });
    const seen = pets.received.at(-1);
    assert.equal(seen?.headers['idempotency-key'], task.taskId);
    assert.equal(seen?.headers.authorization, `Basic ${Buffer.from(`svc:${PASSWORD}`).toString('base64')}`);
    assertNoSecret(out);

    const get = await connector.call(
      systemCall('CONNECTOR', {
        connector: 'pets',
        operation: 'getPet',
        parameters: { petId: 3, verbose: true, 'X-Trace': 'abc' },
      }),
      context(secrets),
    );
    assert.equal(get.status, 'COMPLETED', JSON.stringify(get));
    assert.deepEqual(get.status === 'COMPLETED' ? (get.output.response as JsonObject).body : null, {
      id: 3,
      name: 'Rex',
      verbose: 'true',
      trace: 'abc',
    });
  });

  it('CONNECTOR refuses input that does not match the schema, naming the path and schema path, with no request', async () => {
    const before = pets.requests;
    const badParam = await connector.call(
      systemCall('CONNECTOR', { connector: 'pets', operation: 'getPet', parameters: { petId: 'abc' } }),
      context(secrets),
    );
    assert.equal(badParam.status, 'FAILED_WITH_TERMINAL_ERROR');
    assert.match(
      badParam.status === 'FAILED_WITH_TERMINAL_ERROR' ? badParam.reason : '',
      /parameters\.petId must be integer \(schema #\/allOf\/0\/type\)/,
    );
    const badBody = await connector.call(
      systemCall('CONNECTOR', { connector: 'pets', operation: 'createPet', body: { tags: [1] } }),
      context(secrets),
    );
    const reason = badBody.status === 'FAILED_WITH_TERMINAL_ERROR' ? badBody.reason : '';
    assert.match(reason, /body\.name must have required property 'name'/);
    assert.match(reason, /body\.tags\[0\] must be string/);
    const unknown = await connector.call(
      systemCall('CONNECTOR', { connector: 'pets', operation: 'deletePet' }),
      context(secrets),
    );
    assert.match(
      unknown.status === 'FAILED_WITH_TERMINAL_ERROR' ? unknown.reason : '',
      /no operation 'deletePet'/,
    );
    assert.equal(pets.requests, before, 'nothing was sent');
  });

  it('CONNECTOR fails on a non-2xx answer with the status and body in the reason', async () => {
    const out = await connector.call(
      systemCall('CONNECTOR', { connector: 'pets', operation: 'getPet', parameters: { petId: 404 } }),
      context(secrets),
    );
    assert.equal(out.status, 'FAILED');
    assert.match(out.status === 'FAILED' ? out.reason : '', /404 Not Found: \{"message":"no such pet"\}/);
    assert.equal(out.status === 'FAILED' && (out.output?.response as JsonObject).statusCode, 404);
  });

  it('DOCUMENT_INTELLIGENCE starts an analysis, answers IN_PROGRESS per Retry-After, then the analyzeResult', async () => {
    const input = {
      service: 'docs',
      modelId: 'prebuilt-invoice',
      urlSource: 'https://example.com/invoice.pdf',
    };
    const outcomes: CallOutcome[] = [];
    let previousOutput: JsonObject = {};
    for (let i = 0; i < 10; i++) {
      const out = await documents.call(
        systemCall('DOCUMENT_INTELLIGENCE', input, { previousOutput }),
        context(secrets),
      );
      outcomes.push(out);
      if (out.status !== 'IN_PROGRESS') break;
      assert.equal(out.checkAfterSeconds, 1);
      assert.match(out.waitingFor, /^document analysis running, next check at \d{4}-/);
      previousOutput = out.output;
    }
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['IN_PROGRESS', 'IN_PROGRESS', 'IN_PROGRESS', 'COMPLETED'],
    );
    const done = outcomes.at(-1);
    const result = (done?.status === 'COMPLETED' ? done.output.analyzeResult : {}) as JsonObject;
    assert.equal(result.content, 'Invoice 42');
    assert.deepEqual(result.source, { urlSource: 'https://example.com/invoice.pdf' });
    assert.equal(analyze.started, 1);
    assert.equal(analyze.checks, 3);
    assert.ok(
      analyze.keys.every((k) => k === DI_KEY),
      'every request carried the key',
    );
    for (const o of outcomes) assertNoSecret(o);
  });

  it('DOCUMENT_INTELLIGENCE gives up on an analysis still running a day after it started', async () => {
    const previousOutput = {
      operationLocation: `${analyze.url}/documentintelligence/documentModels/m/analyzeResults/gone?api-version=2024-11-30`,
      startedAt: new Date(Date.now() - 25 * 3600 * 1000).toISOString(),
      checks: 500,
    };
    const out = await documents.call(
      systemCall(
        'DOCUMENT_INTELLIGENCE',
        { service: 'docs', modelId: 'm', urlSource: 'https://a' },
        { previousOutput },
      ),
      context(secrets),
    );
    assert.equal(out.status, 'FAILED');
    assert.match(
      out.status === 'FAILED' ? out.reason : '',
      /still not done 24 h after it started \(501 checks\)/,
    );
  });

  it('DOCUMENT_INTELLIGENCE reads a blobPath document from blob storage and sends it as base64Source', async () => {
    const pdf = Buffer.from('%PDF-1.7 fake document \u0000\u00ff bytes');
    // A real blob store in a directory of the test's; "down" makes its reads fail as a lost S3 would.
    const blobDir = mkdtempSync(path.join(tmpdir(), 'baton-doc-blobs-'));
    after(() => rmSync(blobDir, { recursive: true, force: true }));
    const stored = new FilesystemBlobStore(blobDir);
    await stored.put('payloads/task_output/doc.pdf', pdf);
    let storageDown = false;
    const withBlobs = new DocumentAnalysisHandler(registry, {
      blobs: {
        get: (key, options) =>
          storageDown ? Promise.reject(new Error('connect ECONNREFUSED')) : stored.get(key, options),
      },
      maxBytes: 1024,
    });
    const input = (blobPath: unknown) =>
      systemCall('DOCUMENT_INTELLIGENCE', { service: 'docs', modelId: 'prebuilt-read', blobPath } as never);
    const started = analyze.started;
    const out = await withBlobs.call(input('payloads/task_output/doc.pdf'), context(secrets));
    assert.equal(out.status, 'IN_PROGRESS', JSON.stringify(out));
    assert.equal(analyze.started, started + 1);
    assert.deepEqual(analyze.sources.at(-1), { base64Source: pdf.toString('base64') });

    const reasonOf = (o: Awaited<ReturnType<typeof withBlobs.call>>) =>
      o.status === 'FAILED' || o.status === 'FAILED_WITH_TERMINAL_ERROR'
        ? `${o.status}: ${o.reason}`
        : o.status;
    assert.match(
      reasonOf(await withBlobs.call(input('payloads/task_output/missing.pdf'), context(secrets))),
      /^FAILED_WITH_TERMINAL_ERROR: .*no document at blob path payloads\/task_output\/missing\.pdf/,
    );
    for (const outside of ['archive/run.json.gz', 'payloads/../archive/x', '/etc/passwd', 42]) {
      assert.match(
        reasonOf(await withBlobs.call(input(outside), context(secrets))),
        /^FAILED_WITH_TERMINAL_ERROR: .*refused: blobPath must be a path inside the payload area \(payloads\/…\)/,
      );
    }
    await stored.put('payloads/task_output/big.pdf', Buffer.alloc(2048, 1));
    assert.match(
      reasonOf(await withBlobs.call(input('payloads/task_output/big.pdf'), context(secrets))),
      /^FAILED_WITH_TERMINAL_ERROR: .*2048 bytes, over BATON_PAYLOAD_MAX_BYTES \(1024\)/,
    );
    storageDown = true;
    assert.match(
      reasonOf(await withBlobs.call(input('payloads/task_output/doc.pdf'), context(secrets))),
      /^FAILED: .*blob storage does not answer reading payloads\/task_output\/doc\.pdf: connect ECONNREFUSED/,
    );
    assert.equal(analyze.started, started + 1, 'no refused document reached the service');
    // A server without blob storage says so.
    assert.match(
      reasonOf(await documents.call(input('payloads/task_output/doc.pdf'), context(secrets))),
      /^FAILED_WITH_TERMINAL_ERROR: .*no blob storage/,
    );
  });

  it('DOCUMENT_INTELLIGENCE registration refuses a literal blobPath outside the payload area', () => {
    const node = (blobPath: unknown) =>
      ({
        name: 'd',
        taskReferenceName: 'd',
        type: 'DOCUMENT_INTELLIGENCE',
        inputParameters: { service: 'docs', modelId: 'm', blobPath },
      }) as never;
    assert.deepEqual(documents.check(node('payloads/task_output/a.pdf'), 'tasks[0]'), []);
    assert.deepEqual(documents.check(node('${workflow.input.path}'), 'tasks[0]'), []);
    for (const bad of ['in/a.pdf', 'payloads/', 'payloads/../x', 7]) {
      const errors = documents.check(node(bad), 'tasks[0]');
      assert.equal(errors.length, 1, String(bad));
      assert.equal(errors[0]?.path, 'tasks[0].inputParameters.blobPath');
      assert.match(errors[0]?.message ?? '', /inside the payload area/);
    }
  });

  it('discover asks an MCP service for its tools (with its credentials) and can store them as methods', async () => {
    const fetch = ((input: string | URL, init?: RequestInit) =>
      undiciFetch(input, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: agent })) as never;
    const discovering = new RegistryService(opened.store, systemClock, (record) =>
      discoverTools(record, sessions, fetch, secrets),
    );
    const methods = await discovering.discover('tools', true);
    assert.deepEqual(methods.map((m) => m.operationName).sort(), ['echo', 'fail', 'slow', 'whoami']);
    const stored = await registry.find('tools');
    assert.deepEqual(stored?.methods.map((m) => m.operationName).sort(), ['echo', 'fail', 'slow', 'whoami']);
    await registry.put({ name: 'unreachable', kind: 'mcp', url: 'http://127.0.0.1:9/mcp' });
    await assert.rejects(
      discovering.discover('unreachable'),
      /Could not list the tools of service unreachable/,
    );
  });

  it('an open circuit fails calls at once; closing it lets them through', async () => {
    await registry.setCircuit('tools', 'OPEN');
    const before = mcp.requests;
    const out = await tools.call(
      systemCall('CALL_TOOL', { service: 'tools', tool: 'echo', arguments: { text: 'x' } }),
      context(secrets),
    );
    assert.match(out.status === 'FAILED' ? out.reason : '', /circuit breaker of service 'tools' is open/);
    assert.equal(mcp.requests, before);
    await registry.setCircuit('tools', 'CLOSED');
    const ok = await tools.call(
      systemCall('CALL_TOOL', { service: 'tools', tool: 'echo', arguments: { text: 'x' } }),
      context(secrets),
    );
    assert.equal(ok.status, 'COMPLETED');
  });
});
