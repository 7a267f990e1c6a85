import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { Store } from '../../../src/store/store.js';
import { storeCases } from '../../helpers/stores.js';
import { storeSuite } from '../../helpers/store-suite.js';
import { T0, uid, workflowDef } from '../fixtures.js';

for (const c of storeCases()) {
  void describe(`store definitions (${c.name})`, () => {
    const { store } = storeSuite(c);

    void it('reports its dialect and answers ping', async () => {
      assert.equal(store.dialect, c.name);
      await store.ping();
    });

    void it('inserts workflow definitions once per name and version', async () => {
      const name = uid('wf-');
      assert.equal(await store.transaction((tx) => tx.insertWorkflowDef(workflowDef(name, 1))), true);
      const dup = workflowDef(name, 1, { description: 'changed', createTime: T0 + 5, updateTime: T0 + 5 });
      assert.equal(await store.transaction((tx) => tx.insertWorkflowDef(dup)), false);
      const got = await store.read((tx) => tx.getWorkflowDef(name, 1));
      assert.deepEqual(got, workflowDef(name, 1));
    });

    void it('answers versions: latest, explicit, missing', async () => {
      const name = uid('wf-');
      await store.transaction(async (tx) => {
        for (const v of [1, 3, 2]) assert.equal(await tx.insertWorkflowDef(workflowDef(name, v)), true);
      });
      await store.read(async (tx) => {
        assert.equal(await tx.latestWorkflowVersion(name), 3);
        assert.equal((await tx.getWorkflowDef(name))?.version, 3);
        assert.equal((await tx.getWorkflowDef(name, 2))?.version, 2);
        assert.equal(await tx.getWorkflowDef(name, 9), undefined);
        assert.equal(await tx.getWorkflowDef(uid('none-')), undefined);
        assert.equal(await tx.latestWorkflowVersion(uid('none-')), undefined);
        const mine = (await tx.listWorkflowDefs()).filter((d) => d.name === name);
        assert.deepEqual(
          mine.map((d) => d.version),
          [1, 2, 3],
        );
      });
    });

    void it('upserts a workflow definition keeping its createTime, and deletes it', async () => {
      const name = uid('wf-');
      await store.transaction((tx) => tx.upsertWorkflowDef(workflowDef(name, 1)));
      const changed = workflowDef(name, 1, {
        description: 'v1 again',
        createTime: T0 + 1000,
        updateTime: T0 + 1000,
      });
      await store.transaction((tx) => tx.upsertWorkflowDef(changed));
      const got = await store.read((tx) => tx.getWorkflowDef(name, 1));
      assert.equal(got?.description, 'v1 again');
      assert.equal(got?.createTime, T0);
      assert.equal(got?.updateTime, T0 + 1000);
      assert.deepEqual(got?.tasks, changed.tasks);
      assert.equal(await store.transaction((tx) => tx.deleteWorkflowDef(name, 1)), true);
      assert.equal(await store.transaction((tx) => tx.deleteWorkflowDef(name, 1)), false);
      assert.equal(await store.read((tx) => tx.getWorkflowDef(name)), undefined);
    });

    void it('keeps unknown definition fields as given', async () => {
      const name = uid('wf-');
      const def = workflowDef(name, 1, { customField: { nested: [1, 'two', null] }, timeoutSeconds: 30 });
      await store.transaction((tx) => tx.insertWorkflowDef(def));
      assert.deepEqual(await store.read((tx) => tx.getWorkflowDef(name, 1)), def);
    });

    void it('upserts, reads in bulk, lists and deletes task definitions', async () => {
      const a = uid('td-a-');
      const b = uid('td-b-');
      await store.transaction(async (tx) => {
        await tx.upsertTaskDef({ name: a, retryCount: 3, createTime: T0, updateTime: T0 });
        await tx.upsertTaskDef({ name: b, responseTimeoutSeconds: 10, createTime: T0, updateTime: T0 });
      });
      await store.transaction((tx) =>
        tx.upsertTaskDef({
          name: a,
          retryCount: 5,
          ownerEmail: 'x@y.z',
          createTime: T0 + 9,
          updateTime: T0 + 9,
        }),
      );
      await store.read(async (tx) => {
        assert.deepEqual(await tx.getTaskDef(a), {
          name: a,
          retryCount: 5,
          ownerEmail: 'x@y.z',
          createTime: T0,
          updateTime: T0 + 9,
        });
        const many = await tx.getTaskDefs([a, b, uid('missing-'), a]);
        assert.deepEqual([...many.keys()].sort(), [a, b].sort());
        assert.equal(many.get(b)?.responseTimeoutSeconds, 10);
        assert.equal((await tx.getTaskDefs([])).size, 0);
        const listed = (await tx.listTaskDefs()).map((d) => d.name).filter((n) => n === a || n === b);
        assert.deepEqual(listed, [a, b].sort());
      });
      assert.equal(await store.transaction((tx) => tx.deleteTaskDef(a)), true);
      assert.equal(await store.transaction((tx) => tx.deleteTaskDef(a)), false);
      assert.equal(await store.read((tx) => tx.getTaskDef(a)), undefined);
    });

    void it('ensures queues idempotently and lists them sorted', async () => {
      const q1 = uid('q-b-');
      const q2 = uid('q-a-');
      await store.transaction((tx) => tx.ensureQueues([q1, q2, q1], T0));
      await store.transaction((tx) => tx.ensureQueues([q1], T0 + 1));
      const listed = (await store.read((tx) => tx.listQueues())).filter((q) => q === q1 || q === q2);
      assert.deepEqual(listed, [q1, q2].sort());
    });

    void it('refuses writes inside read() and use of a tx after its transaction ended', async () => {
      await assert.rejects(
        store.read((tx) => tx.upsertTaskDef({ name: uid('td-'), createTime: T0, updateTime: T0 })),
        /cannot run inside read/,
      );
      await assert.rejects(
        store.read((tx) => tx.notifyQueues(['q'])),
        /cannot run inside read/,
      );
      let leaked: Parameters<Parameters<Store['transaction']>[0]>[0] | undefined;
      await store.transaction(async (tx) => {
        leaked = tx;
        return Promise.resolve();
      });
      await assert.rejects(leaked!.listQueues(), /after its transaction ended/);
    });
  });
}
