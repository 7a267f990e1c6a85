import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { storeCases, type OpenedStore } from '../../helpers/stores.js';

/** Run mailboxes and idempotency-key claims, the same on every store. */
for (const storeCase of storeCases()) {
  void describe(`run mailboxes and idempotency keys on ${storeCase.name}`, () => {
    let opened: OpenedStore;
    before(async () => {
      opened = await storeCase.open();
    });
    after(async () => {
      await opened.cleanup();
    });

    void it('appends messages, reads them oldest first within a limit, and deletes taken ones', async () => {
      const { store } = opened;
      await store.transaction(async (tx) => {
        for (const [id, n] of [
          ['m-b', 1],
          ['m-a', 2],
          ['m-c', 3],
        ] as const) {
          await tx.appendRunMessage({
            id,
            workflowId: 'run-1',
            payload: { n, nested: { ok: true } },
            receivedAt: n,
          });
        }
        await tx.appendRunMessage({ id: 'other', workflowId: 'run-2', payload: {}, receivedAt: 1 });
      });
      const firstTwo = await store.read((tx) => tx.getRunMessages('run-1', 2));
      assert.deepEqual(firstTwo, [
        { id: 'm-b', workflowId: 'run-1', payload: { n: 1, nested: { ok: true } }, receivedAt: 1 },
        { id: 'm-a', workflowId: 'run-1', payload: { n: 2, nested: { ok: true } }, receivedAt: 2 },
      ]);
      await store.transaction(async (tx) => {
        await tx.deleteRunMessages('run-1', ['m-b', 'm-a', 'other']);
        await tx.deleteRunMessages('run-1', []);
      });
      assert.deepEqual(
        (await store.read((tx) => tx.getRunMessages('run-1', 10))).map((m) => m.id),
        ['m-c'],
      );
      assert.deepEqual(
        (await store.read((tx) => tx.getRunMessages('run-2', 10))).map((m) => m.id),
        ['other'],
        'a delete names its run: messages of other runs stay',
      );
      await assert.rejects(
        store.read((tx) => tx.appendRunMessage({ id: 'x', workflowId: 'r', payload: {}, receivedAt: 0 })),
      );
    });

    void it('claims an idempotency key once per definition name and answers the holder afterwards', async () => {
      const { store } = opened;
      assert.equal(
        await store.transaction((tx) => tx.claimIdempotencyKey('wf', 'k1', 'run-a', 1)),
        undefined,
      );
      assert.equal(await store.transaction((tx) => tx.claimIdempotencyKey('wf', 'k1', 'run-b', 2)), 'run-a');
      assert.equal(
        await store.transaction((tx) => tx.claimIdempotencyKey('other', 'k1', 'run-c', 3)),
        undefined,
      );
      // A claim rolled back with its transaction leaves the key free.
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.claimIdempotencyKey('wf', 'k2', 'run-d', 4);
          throw new Error('start failed');
        }),
      );
      assert.equal(
        await store.transaction((tx) => tx.claimIdempotencyKey('wf', 'k2', 'run-e', 5)),
        undefined,
      );
    });

    void it('gives one claim to concurrent transactions racing for one key', async () => {
      const { store } = opened;
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.transaction((tx) => tx.claimIdempotencyKey('race', 'k', `run-${i}`, i)),
        ),
      );
      const winners = answers.filter((a) => a === undefined);
      assert.equal(winners.length, 1);
      const holder = answers.find((a) => a !== undefined);
      assert.ok(answers.every((a) => a === undefined || a === holder));
    });
  });
}
