import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { storeSuite } from '../../helpers/store-suite.js';
import { storeCases } from '../../helpers/stores.js';

for (const storeCase of storeCases()) {
  void describe(`store: authentication records and run actions on ${storeCase.name}`, () => {
    const { store } = storeSuite(storeCase);

    void it('inserts once per kind and id, reads, lists, updates and deletes', async () => {
      const record = {
        kind: 'application' as const,
        id: 'a1',
        doc: { name: 'one', roles: ['admin'] },
        createTime: 10,
        updateTime: 10,
      };
      assert.equal(await store.transaction((tx) => tx.insertAuthRecord(record)), true);
      // The same kind and id again: nothing written, the first stays (a start-up race has one winner).
      assert.equal(
        await store.transaction((tx) =>
          tx.insertAuthRecord({ ...record, doc: { name: 'two' }, createTime: 20 }),
        ),
        false,
      );
      // Another kind with the same id is another record.
      assert.equal(
        await store.transaction((tx) =>
          tx.insertAuthRecord({ ...record, kind: 'access_key', doc: { k: 1 } }),
        ),
        true,
      );
      assert.deepEqual(await store.read((tx) => tx.getAuthRecord('application', 'a1')), record);
      assert.equal(await store.read((tx) => tx.getAuthRecord('application', 'nope')), undefined);
      await store.transaction((tx) =>
        tx.insertAuthRecord({
          kind: 'application',
          id: 'a0',
          doc: { name: 'zero' },
          createTime: 5,
          updateTime: 5,
        }),
      );
      assert.deepEqual(
        (await store.read((tx) => tx.listAuthRecords('application'))).map((r) => r.id),
        ['a0', 'a1'],
      );
      assert.equal(
        await store.transaction((tx) =>
          tx.updateAuthRecord('application', 'a1', { name: 'renamed', roles: [] }, 30),
        ),
        true,
      );
      const updated = await store.read((tx) => tx.getAuthRecord('application', 'a1'));
      assert.deepEqual(updated, { ...record, doc: { name: 'renamed', roles: [] }, updateTime: 30 });
      assert.equal(
        await store.transaction((tx) => tx.updateAuthRecord('application', 'nope', {}, 30)),
        false,
      );
      assert.equal(await store.transaction((tx) => tx.deleteAuthRecord('application', 'a1')), true);
      assert.equal(await store.transaction((tx) => tx.deleteAuthRecord('application', 'a1')), false);
      assert.ok(await store.read((tx) => tx.getAuthRecord('access_key', 'a1')));
    });

    void it('a transaction that fails writes no record', async () => {
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.insertAuthRecord({
            kind: 'signing_key',
            id: 'current',
            doc: { kid: 'x' },
            createTime: 1,
            updateTime: 1,
          });
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal(await store.read((tx) => tx.getAuthRecord('signing_key', 'current')), undefined);
    });

    void it('keeps a run’s operator actions in order, with and without detail', async () => {
      await store.transaction(async (tx) => {
        await tx.appendRunAction({ workflowId: 'w1', action: 'pause', actor: 'alice', at: 100 });
        await tx.appendRunAction({ workflowId: 'w2', action: 'pause', actor: 'bob', at: 101 });
        await tx.appendRunAction({
          workflowId: 'w1',
          action: 'terminate',
          actor: 'bob',
          at: 102,
          detail: { reason: 'done' },
        });
      });
      assert.deepEqual(await store.read((tx) => tx.getRunActions('w1')), [
        { workflowId: 'w1', action: 'pause', actor: 'alice', at: 100 },
        { workflowId: 'w1', action: 'terminate', actor: 'bob', at: 102, detail: { reason: 'done' } },
      ]);
      assert.deepEqual(await store.read((tx) => tx.getRunActions('none')), []);
    });
  });
}
