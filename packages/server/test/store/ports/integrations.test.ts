import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { storeSuite } from '../../helpers/store-suite.js';
import { storeCases } from '../../helpers/stores.js';

for (const storeCase of storeCases()) {
  void describe(`store: secrets and the service registry on ${storeCase.name}`, () => {
    const { store } = storeSuite(storeCase);

    void it('puts, reads, lists and deletes secrets, keeping the first create time', async () => {
      const secret = { name: 'b-key', sealed: 'c2VhbGVk', keyId: 'k1', createTime: 10, updateTime: 10 };
      await store.transaction((tx) => tx.putSecret(secret));
      await store.transaction((tx) =>
        tx.putSecret({ name: 'a-key', sealed: 'YQ==', keyId: 'k1', createTime: 5, updateTime: 5 }),
      );
      // A replace keeps the first create time.
      await store.transaction((tx) =>
        tx.putSecret({ ...secret, sealed: 'bmV3', keyId: 'k2', createTime: 30, updateTime: 30 }),
      );
      assert.deepEqual(await store.read((tx) => tx.getSecrets(['b-key', 'missing'])), [
        { name: 'b-key', sealed: 'bmV3', keyId: 'k2', createTime: 10, updateTime: 30 },
      ]);
      // The list never carries a sealed value.
      assert.deepEqual(await store.read((tx) => tx.listSecrets()), [
        { name: 'a-key', createTime: 5, updateTime: 5 },
        { name: 'b-key', createTime: 10, updateTime: 30 },
      ]);
      assert.equal(await store.transaction((tx) => tx.deleteSecret('a-key')), true);
      assert.equal(await store.transaction((tx) => tx.deleteSecret('a-key')), false);
      assert.deepEqual(
        (await store.read((tx) => tx.listSecrets())).map((s) => s.name),
        ['b-key'],
      );
    });

    void it('puts, reads, lists and deletes services, keeping the first create time', async () => {
      const service = {
        name: 'svc-b',
        record: { url: 'http://b', credentials: ['b-key'] },
        createTime: 10,
        updateTime: 10,
      };
      await store.transaction((tx) => tx.putService(service));
      await store.transaction((tx) =>
        tx.putService({ name: 'svc-a', record: { url: 'http://a' }, createTime: 5, updateTime: 5 }),
      );
      await store.transaction((tx) =>
        tx.putService({ ...service, record: { url: 'http://b2' }, createTime: 30, updateTime: 30 }),
      );
      assert.deepEqual(await store.read((tx) => tx.getService('svc-b')), {
        name: 'svc-b',
        record: { url: 'http://b2' },
        createTime: 10,
        updateTime: 30,
      });
      assert.equal(await store.read((tx) => tx.getService('missing')), undefined);
      assert.deepEqual(
        (await store.read((tx) => tx.listServices())).map((s) => s.name),
        ['svc-a', 'svc-b'],
      );
      assert.equal(await store.transaction((tx) => tx.deleteService('svc-a')), true);
      assert.equal(await store.transaction((tx) => tx.deleteService('svc-a')), false);
      assert.deepEqual(
        (await store.read((tx) => tx.listServices())).map((s) => s.name),
        ['svc-b'],
      );
    });
  });
}
