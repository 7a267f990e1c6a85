import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  orkesConductorClient,
  SecretClient,
  ServiceRegistryClient,
  type ConductorLogger,
} from '@io-orkes/conductor-javascript';

import { appSuite } from '../helpers/app-suite.js';
import { PET_API } from '../helpers/integration-servers.js';
import { storeCases } from '../helpers/stores.js';

/** Orkes's own SDK clients (`SecretClient`, `ServiceRegistryClient`), used as shipped, against Baton. */

const silent: ConductorLogger = { info: () => {}, error: () => {}, debug: () => {} };

for (const storeCase of storeCases()) {
  describe(`Orkes SDK secret and registry clients on ${storeCase.name}`, () => {
    const t = appSuite(storeCase, { env: { BATON_SECRETS_KEY: Buffer.alloc(32, 8).toString('base64') } });

    it('puts, lists, checks and deletes secrets; a value is never read back', async () => {
      const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const client = await orkesConductorClient({ serverUrl: base, logger: silent });
      const secrets = new SecretClient(client);
      await secrets.putSecret('SDK_SECRET', 'sdk-value-123');
      assert.deepEqual(await secrets.listAllSecretNames(), ['SDK_SECRET']);
      assert.equal(await secrets.secretExists('SDK_SECRET'), true);
      const read = await secrets.getSecret('SDK_SECRET').catch((err: unknown) => err);
      assert.ok(!JSON.stringify(read).includes('sdk-value-123'), 'the value is not answered');
      await secrets.deleteSecret('SDK_SECRET');
      await assert.rejects(secrets.secretExists('SDK_SECRET'), 'a missing secret is a 404, as Orkes answers');

      const registry = new ServiceRegistryClient(client);
      await registry.addOrUpdateService({
        name: 'sdk-pets',
        type: 'HTTP',
        serviceURI: 'http://127.0.0.1:9',
        openApi: PET_API,
      } as never);
      await registry.addOrUpdateService({
        name: 'sdk-tools',
        type: 'MCP_REMOTE',
        serviceURI: 'http://127.0.0.1:9/mcp',
      } as never);
      const services = await registry.getRegisteredServices();
      assert.deepEqual(
        services.map((s) => [s.name, s.type]),
        [
          ['sdk-pets', 'HTTP'],
          ['sdk-tools', 'MCP_REMOTE'],
        ],
      );
      const pets = await registry.getService('sdk-pets');
      assert.deepEqual(
        pets?.methods?.map((m) => m.operationName),
        ['getPet', 'createPet'],
      );
      await registry.addOrUpdateServiceMethod('sdk-tools', {
        operationName: 'echo',
        methodName: 'echo',
        methodType: 'TOOL',
      });
      assert.deepEqual(
        (await registry.getService('sdk-tools'))?.methods?.map((m) => m.operationName),
        ['echo'],
      );
      await registry.removeMethod('sdk-tools', 'sdk-tools', 'echo', 'TOOL');
      assert.deepEqual((await registry.getService('sdk-tools'))?.methods, []);
      const opened = await registry.openCircuitBreaker('sdk-tools');
      assert.equal(opened.currentState, 'OPEN');
      assert.equal((await registry.getCircuitBreakerStatus('sdk-tools')).currentState, 'OPEN');
      assert.equal((await registry.closeCircuitBreaker('sdk-tools')).currentState, 'CLOSED');
      await registry.removeService('sdk-pets');
      assert.deepEqual(
        (await registry.getRegisteredServices()).map((s) => s.name),
        ['sdk-tools'],
      );
    });
  });
}
