import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { PET_API } from '../helpers/integration-servers.js';
import { storeCases } from '../helpers/stores.js';

/** `/api/secrets` and `/api/registry/service` through the real routes, and registration checks that need the registry. */

const KEY = Buffer.alloc(32, 3).toString('base64');
const VALUE = 'v4lue-that-must-never-come-back';

const toolWorkflow = (service: string, tool: string) => ({
  name: `uses_${service}_${tool}`.replace(/[^A-Za-z0-9_]/g, '_'),
  ownerEmail: 'a@b.c',
  tasks: [
    {
      name: 'call',
      taskReferenceName: 'call',
      type: 'CALL_TOOL',
      inputParameters: { service, tool, arguments: { text: 'x' } },
    },
  ],
});

for (const storeCase of storeCases()) {
  describe(`secrets and registry routes on ${storeCase.name}`, () => {
    const t = appSuite(storeCase, { env: { BATON_SECRETS_KEY: KEY } });

    it('stores secrets, lists names only, never answers a value', async () => {
      const created = await call(t.app, 'PUT', '/api/secrets/API_TOKEN', JSON.stringify(VALUE), {
        'content-type': 'application/json',
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.name, 'API_TOKEN');
      const replaced = await call(t.app, 'PUT', '/api/secrets/API_TOKEN', { value: VALUE });
      assert.equal(replaced.status, 200, replaced.text);
      const text = await call(t.app, 'PUT', '/api/secrets/OTHER', 'plain-text-value');
      assert.equal(text.status, 201, text.text);
      const answers = [
        created,
        replaced,
        await call(t.app, 'GET', '/api/secrets'),
        await call(t.app, 'POST', '/api/secrets'),
        await call(t.app, 'GET', '/api/secrets-v2'),
        await call(t.app, 'GET', '/api/secrets/API_TOKEN'),
        await call(t.app, 'GET', '/api/secrets/API_TOKEN/exists'),
      ];
      assert.deepEqual(answers[2]?.body, ['API_TOKEN', 'OTHER']);
      assert.deepEqual(answers[3]?.body, ['API_TOKEN', 'OTHER']);
      assert.equal(answers[6]?.body, true);
      assert.equal((await call(t.app, 'GET', '/api/secrets/NOPE/exists')).status, 404);
      for (const a of answers) assert.ok(!a.text.includes(VALUE), `a value came back: ${a.text}`);
      assert.equal((await call(t.app, 'DELETE', '/api/secrets/OTHER')).status, 200);
      assert.equal((await call(t.app, 'DELETE', '/api/secrets/OTHER')).status, 404);
      assert.equal((await call(t.app, 'GET', '/api/secrets/OTHER')).status, 404);
    });

    it('refuses bad secret names and empty or oversized values with the field named', async () => {
      const badName = await call(t.app, 'PUT', '/api/secrets/has.dot', { value: 'x' });
      assert.equal(badName.status, 400);
      assert.match(badName.body.validationErrors[0].path, /params\.name/);
      assert.equal((await call(t.app, 'PUT', '/api/secrets/EMPTY', { value: '' })).status, 400);
      assert.equal((await call(t.app, 'PUT', '/api/secrets/BIG', { value: 'x'.repeat(70_000) })).status, 400);
      assert.equal((await call(t.app, 'PUT', '/api/secrets/NUM', { value: 5 })).status, 400);
      assert.deepEqual((await call(t.app, 'GET', '/api/secrets')).body, ['API_TOKEN']);
    });

    it("registers services in Orkes's shape and in Baton's, and checks them", async () => {
      const mcp = await call(t.app, 'POST', '/api/registry/service', {
        name: 'tools',
        type: 'MCP_REMOTE',
        serviceURI: 'http://127.0.0.1:9/mcp',
        circuitBreakerEnabled: true,
        auth: { type: 'bearer', secret: 'API_TOKEN' },
      });
      assert.equal(mcp.status, 200, mcp.text);
      assert.equal(mcp.body.kind, 'mcp');
      assert.equal(mcp.body.url, 'http://127.0.0.1:9/mcp');
      const connector = await call(t.app, 'POST', '/api/registry/service', {
        name: 'pets',
        kind: 'connector',
        url: 'http://127.0.0.1:9',
        openApi: PET_API,
      });
      assert.equal(connector.status, 200, connector.text);
      assert.equal(connector.body.type, 'HTTP');
      assert.deepEqual(
        connector.body.methods.map((m: { operationName: string }) => m.operationName),
        ['getPet', 'createPet'],
      );
      const list = await call(t.app, 'GET', '/api/registry/service');
      assert.deepEqual(
        list.body.map((s: { name: string }) => s.name),
        ['pets', 'tools'],
      );
      assert.equal(
        (await call(t.app, 'GET', '/api/registry/service/pets')).body.serviceURI,
        'http://127.0.0.1:9',
      );
      assert.equal((await call(t.app, 'GET', '/api/registry/service/nope')).status, 404);

      const bad = [
        [{ name: 'x', kind: 'mcp' }, 'body.url'],
        [{ name: 'x', kind: 'mcp', url: 'ftp://a' }, 'body.url'],
        [{ name: 'x', kind: 'mcp', url: 'http://u:p@a' }, 'body.url'],
        [{ name: 'x', url: 'http://a' }, 'body.kind'],
        [{ name: 'x', kind: 'mcp', type: 'HTTP', url: 'http://a' }, 'body.type'],
        [{ name: 'x', kind: 'connector', url: 'http://a' }, 'body.openApi'],
        [{ name: 'x', kind: 'connector', url: 'http://a', openApi: { openapi: '3.0.0' } }, 'body.openApi'],
        [
          { name: 'x', kind: 'connector', url: 'http://a', openApi: { swagger: '2.0', info: {}, paths: {} } },
          'body.openApi',
        ],
        [
          {
            name: 'x',
            kind: 'connector',
            url: 'http://a',
            openApi: {
              ...PET_API,
              paths: {
                '/a': {
                  get: {
                    operationId: 'a',
                    responses: { 200: { description: 'x' } },
                    parameters: [{ $ref: 'http://127.0.0.1:9/p.json' }],
                  },
                },
              },
            },
          },
          'body.openApi',
        ],
        [
          { name: 'x', kind: 'mcp', url: 'http://a', auth: { type: 'bearer', secret: 'bad name' } },
          'body.auth.secret',
        ],
        [
          { name: 'x', kind: 'mcp', url: 'http://a', auth: { type: 'bearer', secret: 'S', token: 'inline' } },
          'body.auth',
        ],
        [
          { name: 'x', kind: 'mcp', url: 'http://a', auth: { type: 'apiKey', secret: 'S' } },
          'body.auth.header',
        ],
        [
          { name: 'x', kind: 'mcp', url: 'http://a', headers: { Authorization: 'Bearer inline' } },
          'body.headers.Authorization',
        ],
      ] as const;
      for (const [body, path] of bad) {
        const res = await call(t.app, 'POST', '/api/registry/service', body);
        assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.text}`);
        assert.ok(
          res.body.validationErrors.some((e: { path: string }) => e.path.startsWith(path)),
          `${JSON.stringify(body)} should name ${path}: ${res.text}`,
        );
      }
      assert.equal((await call(t.app, 'GET', '/api/registry/service/x')).status, 404);
    });

    it('methods, discovery and the circuit breaker (Orkes paths)', async () => {
      const added = await call(t.app, 'POST', '/api/registry/service/tools/methods', {
        operationName: 'echo',
        methodType: 'TOOL',
        description: 'echoes',
      });
      assert.equal(added.status, 200, added.text);
      assert.deepEqual(
        added.body.methods.map((m: { operationName: string }) => m.operationName),
        ['echo'],
      );
      // Discovery asks the MCP service itself: nothing listens there, so 503 and nothing changes.
      const unreachable = await call(t.app, 'GET', '/api/registry/service/tools/discover?create=true');
      assert.equal(unreachable.status, 503, unreachable.text);
      assert.match(unreachable.body.message, /Could not list the tools of service tools/);
      assert.equal(unreachable.body.retryable, true);
      assert.deepEqual(
        (await call(t.app, 'GET', '/api/registry/service/pets/discover')).body
          .map((m: { operationName: string }) => m.operationName)
          .sort(),
        ['createPet', 'getPet'],
      );
      assert.equal((await call(t.app, 'GET', '/api/registry/service/tools')).body.methods.length, 1);
      assert.equal(
        (await call(t.app, 'POST', '/api/registry/service/pets/methods', { operationName: 'x' })).status,
        409,
      );
      const opened = await call(t.app, 'POST', '/api/registry/service/tools/circuit-breaker/open');
      assert.equal(opened.status, 200);
      assert.equal(opened.body.previousState, 'CLOSED');
      assert.equal(opened.body.currentState, 'OPEN');
      assert.equal(
        (await call(t.app, 'GET', '/api/registry/service/tools/circuit-breaker/status')).body.currentState,
        'OPEN',
      );
      assert.equal(
        (await call(t.app, 'POST', '/api/registry/service/tools/circuit-breaker/close')).body.currentState,
        'CLOSED',
      );
      assert.equal(
        (await call(t.app, 'POST', '/api/registry/service/nope/circuit-breaker/open')).status,
        404,
      );
      // A replaced record keeps its discovered methods and circuit state.
      await call(t.app, 'POST', '/api/registry/service', {
        name: 'tools',
        kind: 'mcp',
        url: 'http://127.0.0.1:9/mcp',
      });
      assert.equal((await call(t.app, 'GET', '/api/registry/service/tools')).body.methods.length, 1);
    });

    it('registration refuses definitions naming unknown services, tools, connectors or operations, with the path', async () => {
      const cases = [
        [toolWorkflow('nope', 'echo'), 'tasks[0].inputParameters.service', /not registered/],
        [toolWorkflow('tools', 'nope'), 'tasks[0].inputParameters.tool', /has no tool 'nope'/],
        [toolWorkflow('pets', 'echo'), 'tasks[0].inputParameters.service', /connector service/],
        [
          {
            name: 'c1',
            ownerEmail: 'a@b.c',
            tasks: [
              {
                name: 'c',
                taskReferenceName: 'c',
                type: 'CONNECTOR',
                inputParameters: { connector: 'pets', operation: 'deletePet' },
              },
            ],
          },
          'tasks[0].inputParameters.operation',
          /no operation 'deletePet'/,
        ],
        [
          {
            name: 'c2',
            ownerEmail: 'a@b.c',
            tasks: [
              {
                name: 'f',
                taskReferenceName: 'f',
                type: 'FORK_JOIN',
                forkTasks: [
                  [
                    {
                      name: 'c',
                      taskReferenceName: 'c',
                      type: 'CONNECTOR',
                      inputParameters: { connector: 'gone', operation: 'getPet' },
                    },
                  ],
                ],
              },
              { name: 'j', taskReferenceName: 'j', type: 'JOIN', joinOn: ['c'] },
            ],
          },
          'tasks[0].forkTasks[0][0].inputParameters.connector',
          /not registered/,
        ],
        [
          {
            name: 'c3',
            ownerEmail: 'a@b.c',
            tasks: [
              {
                name: 'c',
                taskReferenceName: 'c',
                type: 'CONNECTOR',
                inputParameters: { operation: 'getPet' },
              },
            ],
          },
          'tasks[0].inputParameters.connector',
          /CONNECTOR needs connector/,
        ],
        [
          {
            name: 'd1',
            ownerEmail: 'a@b.c',
            tasks: [
              {
                name: 'd',
                taskReferenceName: 'd',
                type: 'DOCUMENT_INTELLIGENCE',
                inputParameters: { service: 'tools', modelId: 'm', urlSource: 'https://a' },
              },
            ],
          },
          'tasks[0].inputParameters.service',
          /needs document-intelligence/,
        ],
        [
          {
            name: 'm1',
            ownerEmail: 'a@b.c',
            tasks: [
              {
                name: 'm',
                taskReferenceName: 'm',
                type: 'CALL_MCP_TOOL',
                inputParameters: { arguments: {} },
              },
            ],
          },
          'tasks[0].inputParameters.mcpServer',
          /mcpServer/,
        ],
      ] as const;
      for (const [def, path, message] of cases) {
        for (const route of ['/api/metadata/workflow', '/api/metadata/workflow/validate']) {
          const res = await call(t.app, 'POST', route, def);
          assert.equal(res.status, 400, `${route} ${def.name}: ${res.text}`);
          const hit = res.body.validationErrors.find((e: { path: string }) => e.path === path);
          assert.ok(hit, `${def.name} should name ${path}: ${res.text}`);
          assert.match(hit.message, message);
        }
        const bulk = await call(t.app, 'PUT', '/api/metadata/workflow', [def]);
        assert.equal(bulk.status, 400);
        assert.ok(
          bulk.body.validationErrors.some((e: { path: string }) => e.path === `[0].${path}`),
          bulk.text,
        );
      }
      // Known names register; expressions are checked at call time.
      for (const def of [
        toolWorkflow('tools', 'echo'),
        { ...toolWorkflow('${workflow.input.service}', 'echo'), name: 'dynamic_service' },
        {
          name: 'c_ok',
          ownerEmail: 'a@b.c',
          tasks: [
            {
              name: 'c',
              taskReferenceName: 'c',
              type: 'CONNECTOR',
              inputParameters: { connector: 'pets', operation: 'getPet', parameters: { petId: 1 } },
            },
          ],
        },
      ]) {
        const res = await call(t.app, 'POST', '/api/metadata/workflow', def);
        assert.equal(res.status, 200, `${def.name}: ${res.text}`);
      }
    });
  });

  describe(`secrets without BATON_SECRETS_KEY on ${storeCase.name}`, () => {
    const t = appSuite(storeCase);

    // On SQLite the node seals with a key it made in its data dir (integration-catalog.test.ts).
    if (storeCase.name !== 'sqlite')
      it('answers 409 saying how to set the key, and changes nothing', async () => {
        const res = await call(t.app, 'PUT', '/api/secrets/API_TOKEN', { value: 'x' });
        assert.equal(res.status, 409, res.text);
        assert.match(res.body.message, /BATON_SECRETS_KEY/);
        assert.match(res.body.message, /openssl rand -base64 32/);
        assert.deepEqual((await call(t.app, 'GET', '/api/secrets')).body, []);
        const config = await call(t.app, 'GET', '/api/admin/config');
        assert.equal(config.body.BATON_SECRETS_KEY, '(unset)');
      });
  });
}
