import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { EVENTS_ACCESS } from '../../src/store/ports/events.js';
import type { Tx } from '../../src/store/store.js';
import { TX_ACCESS } from '../../src/store/tx-access.js';
import { storeCases } from '../helpers/stores.js';
import { storeSuite } from '../helpers/store-suite.js';

type Methods = Record<string, () => Promise<unknown>>;

/** Every port method, named by the tables the guard is built from (ports/*.ts). */
const txMethods = Object.entries(TX_ACCESS);
const eventMethods = Object.entries(EVENTS_ACCESS);

for (const c of storeCases()) {
  void describe(`store transaction access (${c.name})`, () => {
    const { store } = storeSuite(c);

    void it('refuses every port method after its transaction ended, naming the method', async () => {
      let leaked: Tx | undefined;
      await store.transaction((tx) => {
        leaked = tx;
        return Promise.resolve();
      });
      assert.ok(leaked);
      const tx = leaked as unknown as Methods;
      const events = leaked.events as unknown as Methods;
      for (const [name] of txMethods)
        await assert.rejects(
          () => tx[name]!(),
          new RegExp(`^Error: store: ${name} called after its transaction ended$`),
        );
      for (const [name] of eventMethods)
        await assert.rejects(
          () => events[name]!(),
          new RegExp(`^Error: store: ${name} called after its transaction ended$`),
        );
    });

    void it('refuses every write method inside read(), naming the method', async () => {
      const writes = [...txMethods, ...eventMethods].filter(([, access]) => access === 'write');
      assert.ok(writes.length > 40);
      await store.read(async (readTx) => {
        const tx = readTx as unknown as Methods;
        const events = readTx.events as unknown as Methods;
        for (const [name, access] of txMethods)
          if (access === 'write')
            await assert.rejects(
              () => tx[name]!(),
              new RegExp(`^Error: store: ${name} is a write and cannot run inside read\\(\\)$`),
            );
        for (const [name, access] of eventMethods)
          if (access === 'write')
            await assert.rejects(
              () => events[name]!(),
              new RegExp(`^Error: store: ${name} is a write and cannot run inside read\\(\\)$`),
            );
      });
    });

    void it('lets read methods run inside read()', async () => {
      await store.read(async (tx) => {
        assert.deepEqual(await tx.listTimers({ workflowId: 'none' }), []);
        assert.equal(await tx.getRun('none'), undefined);
        assert.deepEqual(await tx.events.listEventHandlers(), []);
      });
    });
  });
}
