import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { storeCases } from '../helpers/stores.js';

/**
 * Every call Conductor's SDK IntegrationClient suite makes, in its order, through the real routes:
 * provider and model CRUD with key values, discovery, tags on both, prompt association, deletion
 * and the "No such" answers. Then the same provider without BATON_SECRETS_KEY.
 */

const KEY = Buffer.alloc(32, 7).toString('hex');
const PLAIN_KEY = 'test-key-placeholder';
const P = 'sdkProvider';
const M = 'sdkApi';
const PROMPT = 'sdkPrompt';
const base = `/api/integrations/provider/${P}`;

for (const storeCase of storeCases()) {
  describe(`integration catalog as the SDK calls it on ${storeCase.name}`, () => {
    const t = appSuite(storeCase, { env: { BATON_SECRETS_KEY: KEY } });
    const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
      call(t.app, method, url, body);

    it('saves and reads a provider and a model, never answering a key value', async () => {
      for (const description of ['Test provider', 'Updated provider']) {
        const saved = await api('POST', base, {
          category: 'AI_MODEL',
          type: 'openai',
          description,
          enabled: true,
          configuration: { api_key: PLAIN_KEY },
        });
        assert.equal(saved.status, 200, saved.text);
      }
      const provider = await api('GET', base);
      assert.equal(provider.body.name, P);
      assert.equal(provider.body.description, 'Updated provider');
      assert.ok(!provider.text.includes(PLAIN_KEY), 'the key value is never answered');
      const providers = await api('GET', '/api/integrations/provider');
      assert.ok(providers.body.some((p: { name: string }) => p.name === P));

      for (const description of ['Test API', 'Updated API']) {
        const saved = await api('POST', `${base}/integration/${M}`, {
          description,
          enabled: true,
          configuration: { api_key: PLAIN_KEY },
        });
        assert.equal(saved.status, 200, saved.text);
      }
      const model = await api('GET', `${base}/integration/${M}`);
      assert.equal(model.status, 200, model.text);
      assert.equal(model.body.api, M);
      assert.equal(model.body.description, 'Updated API');
      assert.equal(model.body.configuration.api_key, `\${workflow.secrets.LLM_${P}_${M}_API_KEY}`);
      assert.ok(!model.text.includes(PLAIN_KEY), 'a model key value is sealed, not kept');
      assert.equal((await api('GET', `/api/secrets/LLM_${P}_${M}_API_KEY/exists`)).body, true);
      const models = await api('GET', `${base}/integration`);
      assert.equal(models.body.length, 1);
    });

    it('answers the discovery routes', async () => {
      const all = await api('GET', '/api/integrations/');
      assert.equal(all.status, 200, all.text);
      assert.ok(all.body.some((p: { name: string }) => p.name === P));
      const defs = await api('GET', '/api/integrations/def');
      assert.equal(defs.status, 200, defs.text);
      assert.ok(defs.body.length > 0);
      assert.ok(
        defs.body.some(
          (d: { type: string; category: string }) => d.type === 'openai' && d.category === 'AI_MODEL',
        ),
      );
      const pairs = await api('GET', '/api/integrations/all');
      assert.deepEqual(pairs.body, [`${P}:${M}`]);
      assert.deepEqual((await api('GET', '/api/integrations/all?type=anthropic')).body, []);
      assert.equal((await api('GET', '/api/registry/service')).body.length, 0, 'none of these is a service');
    });

    it('sets, reads and removes tags on a provider and on a model', async () => {
      for (const url of [`${base}/tags`, `${base}/integration/${M}/tags`]) {
        const set = await api('PUT', url, [
          { key: 'category', type: 'METADATA', value: 'ai' },
          { key: 'priority', type: 'METADATA', value: 'high' },
        ]);
        assert.equal(set.status, 200, set.text);
        // Adding a tag already there keeps it once.
        await api('PUT', url, [{ key: 'category', type: 'METADATA', value: 'ai' }]);
        assert.deepEqual(
          (await api('GET', url)).body.map(
            (tag: { key: string; value: string }) => `${tag.key}=${tag.value}`,
          ),
          ['category=ai', 'priority=high'],
        );
        const removed = await api('DELETE', url, [{ key: 'priority', type: 'METADATA', value: 'high' }]);
        assert.equal(removed.status, 200, removed.text);
        assert.deepEqual(
          (await api('GET', url)).body.map((tag: { key: string }) => tag.key),
          ['category'],
        );
        const bad = await api('PUT', url, [{ key: 'k' }]);
        assert.equal(bad.status, 400, bad.text);
        assert.equal((await api('GET', url)).body.length, 1, 'a refused change changes nothing');
      }
      // Saving the provider or model again keeps their tags.
      await api('POST', base, { type: 'openai', configuration: { api_key: PLAIN_KEY } });
      await api('POST', `${base}/integration/${M}`, { description: 'again' });
      assert.equal((await api('GET', `${base}/tags`)).body.length, 1);
      assert.equal((await api('GET', `${base}/integration/${M}/tags`)).body.length, 1);
      assert.equal((await api('GET', '/api/integrations/provider/nope/tags')).status, 404);
    });

    it('saves a prompt as the SDK sends it and associates it with the model', async () => {
      const template = 'Hello {{name}}, your order ${orderId} is ready.';
      // The SDK sends the template as a JSON string; text is taken too.
      const saved = await call(
        t.app,
        'POST',
        `/api/prompts/${PROMPT}?description=Test%20prompt`,
        JSON.stringify(template),
        {
          'content-type': 'application/json',
        },
      );
      assert.equal(saved.status, 200, saved.text);
      const prompt = await api('GET', `/api/prompts/${PROMPT}`);
      assert.equal(prompt.body.template, template);
      assert.equal(prompt.body.description, 'Test prompt');
      assert.deepEqual(prompt.body.variables, ['orderId']);
      assert.equal((await api('POST', '/api/prompts/textPrompt?description=d', 'plain text')).status, 200);
      assert.equal((await api('GET', '/api/prompts')).body.length, 2);

      const missing = await api('POST', `${base}/integration/${M}/prompt/nope`);
      assert.equal(missing.status, 404, missing.text);
      assert.match(missing.body.message, /No such prompt/);
      assert.equal((await api('GET', `${base}/integration/${M}/prompt`)).body.length, 0);
      const linked = await api('POST', `${base}/integration/${M}/prompt/${PROMPT}`);
      assert.equal(linked.status, 200, linked.text);
      const prompts = await api('GET', `${base}/integration/${M}/prompt`);
      assert.deepEqual(
        prompts.body.map((p: { name: string }) => p.name),
        [PROMPT],
      );
      const tagsUrl = `/api/prompts/${PROMPT}/tags`;
      assert.equal(
        (
          await api('PUT', tagsUrl, [
            { key: 'category', type: 'METADATA', value: 'ai' },
            { key: 'env', type: 'METADATA', value: 'test' },
          ])
        ).status,
        200,
      );
      assert.equal(
        (await api('DELETE', tagsUrl, [{ key: 'env', type: 'METADATA', value: 'test' }])).status,
        200,
      );
      // A new version keeps the prompt's tags.
      await api('PUT', `/api/prompts/${PROMPT}?description=Test%20prompt`, 'v2 ${orderId}');
      assert.equal((await api('GET', `/api/prompts/${PROMPT}`)).body.version, 2);
      assert.deepEqual(
        (await api('GET', tagsUrl)).body.map((tag: { key: string }) => tag.key),
        ['category'],
      );
      assert.equal((await api('GET', '/api/prompts/nope/tags')).status, 404);
      assert.equal((await api('DELETE', '/api/prompts/textPrompt')).status, 200);
      assert.equal((await api('DELETE', '/api/prompts/textPrompt')).status, 404);
    });

    it('deletes the model and the provider, then answers "No such" for them', async () => {
      assert.equal((await api('DELETE', `${base}/integration/${M}`)).status, 200);
      const model = await api('GET', `${base}/integration/${M}`);
      assert.equal(model.status, 404);
      assert.match(model.body.message, /^No such integration/);
      assert.equal((await api('DELETE', base)).status, 200);
      const provider = await api('GET', base);
      assert.equal(provider.status, 404);
      assert.match(provider.body.message, /^No such integration provider/);
      for (const [method, url] of [
        ['GET', '/api/integrations/provider/nonexistent_provider_999999'],
        ['GET', '/api/integrations/provider/nonexistent_provider_999999/integration/nonexistent_api_999999'],
        ['DELETE', '/api/integrations/provider/nonexistent_provider_999999'],
        ['DELETE', `${base}/integration/${M}`],
      ] as const) {
        const res = await api(method, url);
        assert.equal(res.status, 404, `${method} ${url}`);
        assert.match(res.body.message, /No such/);
      }
    });
  });

  describe(`integration catalog without BATON_SECRETS_KEY on ${storeCase.name}`, () => {
    // On SQLite the node makes its own key in the data dir; PostgreSQL nodes must share one.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'baton-catalog-'));
    const t = appSuite(storeCase, { env: { BATON_DATA_DIR: dataDir } });
    after(() => rmSync(dataDir, { recursive: true, force: true }));

    if (storeCase.name === 'sqlite')
      it('seals a key value with the key the node made in its data dir, and never answers it', async () => {
        const keyed = await call(t.app, 'POST', `/api/integrations/provider/${P}`, {
          type: 'openai',
          configuration: { api_key: PLAIN_KEY },
        });
        assert.equal(keyed.status, 200, keyed.text);
        const file = path.join(dataDir, 'secrets.key');
        assert.equal(statSync(file).mode & 0o777, 0o600, 'only the owner reads the key');
        assert.equal(Buffer.from(readFileSync(file, 'utf8'), 'base64').length, 32);
        const read = await call(t.app, 'GET', `/api/integrations/provider/${P}`);
        assert.equal(read.status, 200, read.text);
        assert.ok(!read.text.includes(PLAIN_KEY), 'the key value is never answered');
      });

    if (storeCase.name !== 'sqlite')
      it('saves a provider without a key; one with a key value is refused naming BATON_SECRETS_KEY', async () => {
        const free = await call(t.app, 'POST', '/api/integrations/provider/local', {
          type: 'ollama',
          configuration: { endpoint: 'http://127.0.0.1:11434' },
        });
        assert.equal(free.status, 200, free.text);
        const keyed = await call(t.app, 'POST', `/api/integrations/provider/${P}`, {
          type: 'openai',
          configuration: { api_key: PLAIN_KEY },
        });
        assert.equal(keyed.status, 409, keyed.text);
        assert.match(keyed.body.message, /BATON_SECRETS_KEY/);
        assert.ok(!keyed.text.includes(PLAIN_KEY));
        assert.equal(
          (await call(t.app, 'GET', `/api/integrations/provider/${P}`)).status,
          404,
          'nothing was stored',
        );
        const model = await call(t.app, 'POST', '/api/integrations/provider/local/integration/m', {
          configuration: { api_key: PLAIN_KEY },
        });
        assert.equal(model.status, 409, model.text);
        assert.equal(
          (await call(t.app, 'GET', '/api/integrations/provider/local/integration')).body.length,
          0,
        );
      });
  });
}
