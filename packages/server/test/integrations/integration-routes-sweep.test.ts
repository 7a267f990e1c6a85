import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { PET_API } from '../helpers/integration-servers.js';
import { storeCases } from '../helpers/stores.js';

/** Malformed input to every secrets, registry and LLM-provider route answers 4xx with the error body, never 5xx. */

const KEY = Buffer.alloc(32, 4).toString('hex');
const deep = (n: number): unknown => (n === 0 ? {} : { a: deep(n - 1) });

const bodies: unknown[] = [
  null,
  5,
  'text',
  [],
  [1, 2],
  {},
  { name: 5 },
  { name: '' },
  { name: 'x'.repeat(500) },
  { name: 'ok', kind: 'nope' },
  { name: 'ok', kind: 'mcp', url: 5 },
  { name: 'ok', kind: 'mcp', url: 'http://a', auth: 'bearer' },
  { name: 'ok', kind: 'mcp', url: 'http://a', auth: { type: 'bearer' } },
  { name: 'ok', kind: 'mcp', url: 'http://a', headers: { 'bad header': 'x' } },
  { name: 'ok', kind: 'mcp', url: 'http://a', headers: { h: 5 } },
  { name: 'ok', kind: 'mcp', url: 'http://a', methods: [5] },
  { name: 'ok', kind: 'mcp', url: 'http://a', methods: [{ operationName: 5 }] },
  { name: 'ok', kind: 'connector', url: 'http://a', openApi: 'x' },
  { name: 'ok', kind: 'connector', url: 'http://a', openApi: { openapi: 3 } },
  { name: 'ok', kind: 'connector', url: 'http://a', openApi: { openapi: '3.0.0', info: 5, paths: 5 } },
  {
    name: 'ok',
    kind: 'connector',
    url: 'http://a',
    openApi: {
      ...PET_API,
      paths: { '/a': { get: { operationId: 'a', parameters: [{ $ref: '#/nope' }], responses: {} } } },
    },
  },
  { name: 'ok', kind: 'connector', url: 'http://a', openApi: { ...PET_API, components: deep(300) } },
  {
    name: 'ok',
    kind: 'connector',
    url: 'http://a',
    openApi: { ...PET_API, paths: { '/a': { get: { operationId: 'a' }, post: { operationId: 'a' } } } },
  },
  { name: 'ok', kind: 'grpc', url: 'not a url' },
  { name: 'ok', kind: 'mcp', url: 'http://a', description: 'nul \u0000 here' },
  { name: 'ok', kind: 'mcp', url: 'http://a', headers: { k: '\u0000' } },
];

for (const storeCase of storeCases()) {
  describe(`integration routes under malformed input on ${storeCase.name}`, () => {
    const t = appSuite(storeCase, { env: { BATON_SECRETS_KEY: KEY } });

    it('never answers 5xx', async () => {
      const sends: Array<[method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown]> = [];
      for (const body of bodies) {
        sends.push(['POST', '/api/registry/service', body]);
        sends.push(['PUT', '/api/secrets/S1', body]);
        sends.push(['POST', '/api/registry/service/nope/methods', body]);
        sends.push(['POST', '/api/integrations/provider/p1', body]);
        sends.push(['POST', '/api/integrations/provider/nope/integration/m1', body]);
        sends.push(['PUT', '/api/integrations/provider/p1/tags', body]);
        sends.push(['DELETE', '/api/integrations/provider/p1/tags', body]);
        sends.push(['PUT', '/api/integrations/provider/p1/integration/m1/tags', body]);
        sends.push(['POST', '/api/prompts/pr1', body]);
        sends.push(['PUT', '/api/prompts/pr1/tags', body]);
      }
      for (const tags of [
        [{ key: 5, value: 'v' }],
        [{ key: 'k', value: '' }],
        [{ key: 'k', value: 'v', type: 5 }],
      ])
        sends.push(['PUT', '/api/integrations/provider/p1/tags', tags]);
      sends.push(['POST', '/api/prompts/pr1?models=x', '']);
      sends.push(['POST', '/api/prompts/pr1?version=zero', 'text']);
      for (const configuration of [
        5,
        { api_key: 'a-plain-key' },
        { api_key: '${workflow.secrets.bad name}' },
        { api_key_secret: 5 },
        { endpoint: 'ftp://x' },
        { endpoint: 'not a url' },
      ]) {
        sends.push(['POST', '/api/integrations/provider/p1', { type: 'openai', configuration }]);
      }
      sends.push(['POST', '/api/integrations/provider/p1', { category: 'VECTOR_DB' }]);
      sends.push(['GET', '/api/integrations/provider?activeOnly=maybe']);
      for (const name of ['%00', 'a%2Fb', 'x'.repeat(300), '..', '%F0%9F%92%A9']) {
        sends.push(['GET', `/api/secrets/${name}`]);
        sends.push(['PUT', `/api/secrets/${name}`, { value: 'v' }]);
        sends.push(['DELETE', `/api/secrets/${name}`]);
        sends.push(['GET', `/api/secrets/${name}/exists`]);
        sends.push(['GET', `/api/registry/service/${name}`]);
        sends.push(['DELETE', `/api/registry/service/${name}`]);
        sends.push(['GET', `/api/registry/service/${name}/discover?create=maybe`]);
        sends.push(['POST', `/api/registry/service/${name}/circuit-breaker/open`]);
        sends.push(['GET', `/api/registry/service/${name}/circuit-breaker/status`]);
        sends.push(['DELETE', `/api/registry/service/${name}/methods?method=`]);
        sends.push(['DELETE', `/api/registry/service/${name}/methods`]);
        sends.push(['GET', `/api/integrations/provider/${name}`]);
        sends.push(['POST', `/api/integrations/provider/${name}`, { type: 'openai' }]);
        sends.push(['DELETE', `/api/integrations/provider/${name}`]);
        sends.push(['GET', `/api/integrations/provider/${name}/integration`]);
        sends.push(['GET', `/api/integrations/provider/${name}/integration/${name}`]);
        sends.push(['POST', `/api/integrations/provider/${name}/integration/${name}`, {}]);
        sends.push(['DELETE', `/api/integrations/provider/${name}/integration/${name}`]);
        sends.push(['GET', `/api/integrations/provider/${name}/tags`]);
        sends.push(['GET', `/api/integrations/provider/${name}/integration/${name}/tags`]);
        sends.push(['GET', `/api/integrations/provider/${name}/integration/${name}/prompt`]);
        sends.push(['POST', `/api/integrations/provider/${name}/integration/${name}/prompt/${name}`]);
        sends.push(['GET', `/api/prompts/${name}`]);
        sends.push(['POST', `/api/prompts/${name}`, 'text']);
        sends.push(['DELETE', `/api/prompts/${name}`]);
      }
      for (const [method, url, body] of sends) {
        const res = await call(t.app, method, url, body);
        assert.ok(
          res.status < 500,
          `${method} ${url} ${JSON.stringify(body)?.slice(0, 200)} → ${res.status} ${res.text}`,
        );
        // 414: Fastify refuses a path parameter over its maxParamLength before any route runs.
        if (res.status >= 400 && res.status !== 414) {
          assert.equal(typeof res.body?.message, 'string', `${method} ${url}: ${res.text}`);
          assert.equal(res.body.status, res.status);
        }
      }
      assert.deepEqual(
        (await call(t.app, 'GET', '/api/registry/service')).body.filter(
          (s: { name: string }) => s.name !== 'ok',
        ),
        [],
      );
      const providers = (await call(t.app, 'GET', '/api/integrations/provider')).body;
      assert.deepEqual(
        // `{}` is a valid body (an OpenAI-compatible provider with no key): only p1 may exist.
        providers.map((p: { name: string }) => p.name).filter((n: string) => n !== 'p1'),
        [],
        'no malformed provider was stored',
      );
    });

    it('lists the routes in the OpenAPI document', async () => {
      const doc = await call(t.app, 'GET', '/api/openapi.json');
      for (const path of [
        '/api/secrets',
        '/api/secrets/{name}',
        '/api/secrets/{name}/exists',
        '/api/registry/service',
        '/api/registry/service/{name}',
        '/api/registry/service/{registryName}/methods',
        '/api/registry/service/{name}/circuit-breaker/status',
        '/api/integrations/provider',
        '/api/integrations/provider/{name}',
        '/api/integrations/provider/{name}/integration',
        '/api/integrations/',
        '/api/integrations/all',
        '/api/integrations/def',
        '/api/integrations/provider/{name}/tags',
        '/api/integrations/provider/{name}/integration/{integration_name}/tags',
        '/api/integrations/provider/{integration_provider}/integration/{integration_name}/prompt',
        '/api/prompts',
        '/api/prompts/{name}',
        '/api/prompts/{name}/tags',
        '/api/integrations/provider/{name}/integration/{integration_name}',
      ]) {
        assert.ok(doc.body.paths[path], `${path} is in the OpenAPI document`);
      }
    });
  });
}
