import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MAX_TIME_MS } from '../../src/bounds/ranges.js';
import { storeSuite } from '../helpers/store-suite.js';
import { storeCases } from '../helpers/stores.js';
import { enqueueTasks, message, run, task, uid } from './fixtures.js';

/**
 * What either store must take without a driver error, whatever computed it: text PostgreSQL
 * cannot hold (NUL, unpaired surrogates; a script's output may carry them), times past what a
 * column or a Date holds, and versions beyond 32 bits.
 */
const UNSTORABLE = 'a\u0000b\uD800c\uDC00d';
/** Each unstorable character comes back as itself or as U+FFFD (one to three of them). */
const NEAR = /^a.b.{1,3}c.{1,3}d$/su;

for (const storeCase of storeCases()) {
  describe(`store bounds (${storeCase.name})`, () => {
    const { store } = storeSuite(storeCase);

    it('stores NUL and unpaired surrogates in JSON and text, read back as themselves or U+FFFD', async () => {
      const r = run({ input: { [UNSTORABLE]: UNSTORABLE, list: [UNSTORABLE] }, correlationId: UNSTORABLE });
      const t = task(r.workflowId, 1, { outputData: { v: UNSTORABLE }, reasonForIncompletion: UNSTORABLE });
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertTasks([t]);
        await tx.appendTaskLogs([{ taskId: t.taskId, log: UNSTORABLE, createdTime: 1 }]);
      });
      const back = await store.read(async (tx) => ({
        run: await tx.getRun(r.workflowId),
        task: await tx.getTask(t.taskId),
        logs: await tx.getTaskLogs(t.taskId),
      }));
      const values = [
        back.run?.input.list,
        back.run?.correlationId,
        back.task?.outputData.v,
        back.task?.reasonForIncompletion,
        back.logs[0]?.log,
      ].flat();
      for (const v of values) {
        assert.equal(typeof v, 'string');
        assert.match(v as string, NEAR);
      }
      assert.equal(Object.keys(back.run?.input ?? {}).filter((k) => NEAR.test(k)).length, 1);
    });

    it('clamps times past year 9999 and NaN lock lengths instead of failing the write', async () => {
      const m = message(uid('q-'), { visibleAt: 1e308, lockMs: Number.POSITIVE_INFINITY });
      await store.transaction(async (tx) => {
        await enqueueTasks(tx, [m], 1);
        await tx.armTimers(
          [{ timerId: uid('t-'), workflowId: 'run-x', kind: 'WAIT', dueAt: Number.NaN, payload: {} }],
          1,
        );
      });
      const stored = await store.read((tx) => tx.getMessage(m.taskId));
      assert.equal(stored?.visibleAt, MAX_TIME_MS);
      await store.transaction(async (tx) => {
        assert.equal(await tx.requeueMessage(m.taskId, 2 ** 60), true);
        assert.equal(await tx.extendLock(m.taskId, -1), false);
      });
      assert.equal((await store.read((tx) => tx.getMessage(m.taskId)))?.visibleAt, MAX_TIME_MS);
    });

    it('answers "none" for versions no column can hold', async () => {
      await store.read(async (tx) => {
        assert.equal(await tx.getWorkflowDef('wf', 2 ** 31), undefined);
        assert.equal(await tx.getWorkflowDef('wf', 1e308), undefined);
        assert.equal(await tx.countRunsOfVersion('wf', 2 ** 53), 0);
      });
      await store.transaction(async (tx) => {
        assert.equal(await tx.deleteWorkflowDef('wf', 2 ** 40), false);
      });
    });
  });
}
