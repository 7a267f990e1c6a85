import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { JsonObject } from '@baton/protocol';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/**
 * Real servers on 127.0.0.1 that the integration kinds call: an MCP server (the SDK's own
 * McpServer over Streamable HTTP), an HTTP API described by an OpenAPI document, and a server
 * speaking the Document Intelligence analyze protocol. Each counts the requests it gets.
 */

export interface LocalServer {
  url: string;
  /** Requests received so far. */
  requests: number;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export interface McpTestServer extends LocalServer {
  /** Sessions the server opened (initialize requests). */
  sessions: number;
  /** Authorization headers seen on tool calls. */
  authorizations: string[];
  /** Calls of the `slow` tool that were cancelled (the server's signal aborted). */
  cancelled: number;
  /** Calls of the `slow` tool that started. */
  slowStarted: number;
}

/** The SDK's McpServer with tools `echo`, `fail`, `whoami` and `slow`, stateful Streamable HTTP. */
export async function startMcpServer(): Promise<McpTestServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const state = { requests: 0, sessions: 0, authorizations: [] as string[], cancelled: 0, slowStarted: 0 };

  const makeServer = (): McpServer => {
    const mcp = new McpServer({ name: 'test-tools', version: '1.0.0' });
    mcp.registerTool(
      'echo',
      {
        description: 'Answers its text',
        inputSchema: { text: z.string() },
        outputSchema: { text: z.string(), length: z.number() },
      },
      ({ text }) => ({
        content: [{ type: 'text', text }],
        structuredContent: { text, length: text.length },
      }),
    );
    mcp.registerTool(
      'fail',
      { description: 'Always fails', inputSchema: { why: z.string() } },
      ({ why }) => ({
        content: [{ type: 'text', text: `cannot: ${why}` }],
        isError: true,
      }),
    );
    mcp.registerTool('whoami', { description: 'Answers the Authorization header it got' }, (extra) => {
      const auth = String(extra.requestInfo?.headers.authorization ?? '');
      state.authorizations.push(auth);
      return { content: [{ type: 'text', text: `you are ${auth}` }] };
    });
    mcp.registerTool(
      'slow',
      { description: 'Waits until cancelled', inputSchema: { seconds: z.number() } },
      async ({ seconds }, extra) => {
        state.slowStarted++;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, seconds * 1000);
          extra.signal.addEventListener('abort', () => {
            state.cancelled++;
            clearTimeout(timer);
            resolve();
          });
        });
        return { content: [{ type: 'text', text: 'done' }] };
      },
    );
    return mcp;
  };

  const server = createServer((req, res) => {
    state.requests++;
    void (async () => {
      const raw = req.method === 'POST' ? await readBody(req) : '';
      const body: unknown = raw ? JSON.parse(raw) : undefined;
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (!transport) {
        if (typeof sid === 'string' || !isInitializeRequest(body)) {
          json(res, typeof sid === 'string' ? 404 : 400, {
            jsonrpc: '2.0',
            error: { code: -32000, message: 'no session' },
            id: null,
          });
          return;
        }
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            state.sessions++;
            transports.set(id, created);
          },
        });
        created.onclose = () => {
          if (created.sessionId) transports.delete(created.sessionId);
        };
        await makeServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    })().catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: String(err) });
    });
  });
  const url = `${await listen(server)}/mcp`;
  return {
    url,
    get requests() {
      return state.requests;
    },
    get sessions() {
      return state.sessions;
    },
    get authorizations() {
      return state.authorizations;
    },
    get cancelled() {
      return state.cancelled;
    },
    get slowStarted() {
      return state.slowStarted;
    },
    close: async () => {
      for (const t of transports.values()) await t.close().catch(() => {});
      await closeServer(server);
    },
  };
}

/** The OpenAPI 3 document of the pet API served by `startConnectorServer`. */
export const PET_API: JsonObject = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1.0.0' },
  paths: {
    '/pets/{petId}': {
      get: {
        operationId: 'getPet',
        parameters: [
          { name: 'petId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
          { name: 'verbose', in: 'query', schema: { type: 'boolean' } },
          { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
        ],
        responses: { '200': { description: 'a pet' } },
      },
    },
    '/pets': {
      post: {
        operationId: 'createPet',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } },
        },
        responses: { '201': { description: 'created' } },
      },
    },
  },
  components: {
    schemas: {
      NewPet: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1 },
          tags: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
};

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface ConnectorTestServer extends LocalServer {
  received: RecordedRequest[];
}

/** The pet API: GET /pets/{id} answers the pet (404 for 404), POST /pets answers 201 with the pet and the caller's auth. */
export async function startConnectorServer(): Promise<ConnectorTestServer> {
  const received: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://x');
      const pet = /^\/pets\/(\d+)$/.exec(url.pathname);
      if (req.method === 'GET' && pet) {
        if (pet[1] === '404') return json(res, 404, { message: 'no such pet' });
        return json(res, 200, {
          id: Number(pet[1]),
          name: 'Rex',
          verbose: url.searchParams.get('verbose'),
          trace: req.headers['x-trace'] ?? null,
        });
      }
      if (req.method === 'POST' && url.pathname === '/pets') {
        return json(res, 201, {
          ...(JSON.parse(body) as object),
          id: 7,
          seenAuthorization: req.headers.authorization ?? null,
        });
      }
      json(res, 404, { message: 'not found' });
    })();
  });
  const url = await listen(server);
  return {
    url,
    received,
    get requests() {
      return received.length;
    },
    close: () => closeServer(server),
  };
}

export interface AnalyzeTestServer extends LocalServer {
  /** Analyses started (POST …:analyze). */
  started: number;
  /** Status checks (GET of an operation). */
  checks: number;
  /** The subscription keys seen. */
  keys: string[];
  /** The JSON body of every analyze request, in order (`{urlSource}` or `{base64Source}`). */
  sources: unknown[];
}

/** The analyze protocol: POST → 202 + Operation-Location + Retry-After: 1; each GET `running` `runningChecks` times, then `succeeded`. */
export async function startAnalyzeServer(runningChecks = 2): Promise<AnalyzeTestServer> {
  const state = { requests: 0, started: 0, checks: 0, keys: [] as string[], sources: [] as unknown[] };
  const operations = new Map<string, { polls: number; source: unknown; model: string }>();
  const server = createServer((req, res) => {
    state.requests++;
    void (async () => {
      const body = await readBody(req);
      state.keys.push(String(req.headers['ocp-apim-subscription-key'] ?? ''));
      const url = new URL(req.url ?? '/', 'http://x');
      const start = /^\/documentintelligence\/documentModels\/([^/:]+):analyze$/.exec(url.pathname);
      if (req.method === 'POST' && start && url.searchParams.get('api-version')) {
        state.started++;
        const source: unknown = JSON.parse(body);
        state.sources.push(source);
        const id = randomUUID();
        operations.set(id, { polls: 0, source, model: start[1] ?? '' });
        res.writeHead(202, {
          'operation-location': `http://${req.headers.host}/documentintelligence/documentModels/${start[1]}/analyzeResults/${id}?api-version=${url.searchParams.get('api-version')}`,
          'retry-after': '1',
        });
        return res.end();
      }
      const poll = /^\/documentintelligence\/documentModels\/[^/]+\/analyzeResults\/([^/]+)$/.exec(
        url.pathname,
      );
      const op = poll ? operations.get(poll[1] ?? '') : undefined;
      if (req.method === 'GET' && op) {
        state.checks++;
        op.polls++;
        if (op.polls <= runningChecks)
          return json(
            res,
            200,
            { status: 'running', createdDateTime: '2026-01-01T00:00:00Z' },
            { 'retry-after': '1' },
          );
        return json(res, 200, {
          status: 'succeeded',
          createdDateTime: '2026-01-01T00:00:00Z',
          lastUpdatedDateTime: '2026-01-01T00:00:05Z',
          analyzeResult: {
            apiVersion: '2024-11-30',
            modelId: op.model,
            content: 'Invoice 42',
            pages: [{ pageNumber: 1 }],
            source: op.source,
          },
        });
      }
      json(res, 404, { error: { code: 'NotFound', message: 'no such operation' } });
    })();
  });
  const url = await listen(server);
  return {
    url,
    get requests() {
      return state.requests;
    },
    get started() {
      return state.started;
    },
    get checks() {
      return state.checks;
    },
    get keys() {
      return state.keys;
    },
    get sources() {
      return state.sources;
    },
    close: () => closeServer(server),
  };
}
