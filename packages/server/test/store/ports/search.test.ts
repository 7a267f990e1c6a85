import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { RunRecord } from '@baton/protocol';

import type { RunQuery, Store } from '../../../src/store/store.js';
import { type OpenedStore, storeCases } from '../../helpers/stores.js';
import { storeSuite } from '../../helpers/store-suite.js';
import { T0, run, uid } from '../fixtures.js';

const page = (query: Partial<RunQuery>): RunQuery => ({ start: 0, size: 100, sort: [], ...query });
const ids = (runs: RunRecord[]): string[] => runs.map((r) => r.workflowId).sort();
const idsInOrder = (runs: RunRecord[]): string[] => runs.map((r) => r.workflowId);

/**
 * Free-text run search: the id by prefix, the correlation id whole, and words (as word prefixes)
 * of the name, failure reason, input and output, from each store's indexes. The searchable text
 * is written when a run is made and when it ends, never on a step in between.
 */
for (const c of storeCases()) {
  void describe(`free-text run search (${c.name})`, () => {
    const { store } = storeSuite(c);
    const search = async (freeText: string): Promise<string[]> =>
      ids((await store.read((tx) => tx.searchRuns(page({ freeText })))).results);

    void it('finds a run by an id prefix, a word of its failure reason, and words of its input and output', async () => {
      const failed = run({ workflowId: uid('ft-7c1e-'), input: { customer: 'Grace Hopper' } });
      const other = run({ workflowId: uid('ft-9d2f-'), input: { customer: 'Ada' } });
      await store.transaction(async (tx) => {
        await tx.insertRun(failed);
        await tx.insertRun(other);
      });
      assert.deepEqual(await search(failed.workflowId.slice(0, 12)), [failed.workflowId], 'an id prefix');
      assert.deepEqual(await search('ft-9d2f'), [other.workflowId]);
      assert.deepEqual(await search('hopper'), [failed.workflowId], 'an input word, any case');
      assert.deepEqual(await search('grace hop'), [failed.workflowId], 'every word, each as a prefix');
      assert.deepEqual(await search('econnrefused'), [], 'no reason yet');

      // A step (still RUNNING) changes no searchable text; the end writes it.
      await store.transaction((tx) =>
        tx.updateRun({ ...failed, output: { partial: 'marmalade' }, updateTime: T0 + 5 }),
      );
      assert.deepEqual(await search('marmalade'), [], 'a step does not write the word index');
      const reason = "Task fetch failed with status: FAILED and reason: 'connect ECONNREFUSED 10.0.0.7:443'";
      await store.transaction((tx) =>
        tx.updateRun({
          ...failed,
          status: 'FAILED',
          reasonForIncompletion: reason,
          output: { partial: 'marmalade' },
          updateTime: T0 + 9,
          endTime: T0 + 9,
        }),
      );
      assert.deepEqual(await search('econnrefused'), [failed.workflowId], 'a word of the reason');
      assert.deepEqual(await search('ECONNREF'), [failed.workflowId], 'a word prefix, any case');
      assert.deepEqual(await search('marmalade'), [failed.workflowId], 'an output word, once ended');
      assert.deepEqual(await search('connect econnrefused'), [failed.workflowId]);
      assert.deepEqual(await search('econnrefused nowhere'), [], 'every word must match');
      assert.deepEqual(await search('%'), [], 'LIKE wildcards are literal');
      assert.deepEqual(await search('ft-_'), [], 'LIKE wildcards are literal');
    });

    void it('a run leaves the word index when it is removed', async () => {
      const gone = run({ workflowId: uid('ft-gone-'), input: { token: 'quixotic' } });
      await store.transaction((tx) => tx.insertRun(gone));
      assert.deepEqual(await search('quixotic'), [gone.workflowId]);
      await store.transaction((tx) => tx.deleteRunRows(gone.workflowId));
      assert.deepEqual(await search('quixotic'), []);
    });
  });
}

for (const c of storeCases()) {
  void describe(`store run search (${c.name})`, () => {
    let h: OpenedStore;
    let store: Store;
    const runs: RunRecord[] = [];
    // Six runs on a fresh database, so totalHits is exact.
    before(async () => {
      h = await c.open();
      store = h.store;
      const specs: Array<Partial<RunRecord>> = [
        {
          workflowName: 'orders',
          status: 'RUNNING',
          correlationId: 'c-a',
          createTime: T0 + 1,
          updateTime: T0 + 60,
        },
        {
          workflowName: 'orders',
          status: 'COMPLETED',
          correlationId: 'c-b',
          createTime: T0 + 2,
          updateTime: T0 + 50,
          endTime: T0 + 50,
          output: { receipt: 'Zürich-ÄBC-42' },
        },
        {
          workflowName: 'orders',
          status: 'FAILED',
          createTime: T0 + 3,
          updateTime: T0 + 40,
          endTime: T0 + 40,
        },
        {
          workflowName: 'payments',
          status: 'RUNNING',
          correlationId: 'c-a',
          createTime: T0 + 4,
          updateTime: T0 + 30,
          input: { customer: 'ACME Corp' },
        },
        {
          workflowName: 'payments',
          status: 'TERMINATED',
          createTime: T0 + 5,
          updateTime: T0 + 20,
          endTime: T0 + 20,
        },
        { workflowName: 'Shipping_Flow', status: 'PAUSED', createTime: T0 + 6, updateTime: T0 + 10 },
      ];
      for (const [i, spec] of specs.entries()) runs.push(run({ workflowId: `run-${i}`, ...spec }));
      await store.transaction(async (tx) => {
        for (const r of runs) await tx.insertRun(r);
      });
    });
    after(async () => {
      await h.cleanup();
    });
    const search = (q: Partial<RunQuery>) => store.read((tx) => tx.searchRuns(page(q)));
    const runId = (i: number): string => runs[i]!.workflowId;

    void it('returns everything newest first by default', async () => {
      const all = await search({});
      assert.equal(all.totalHits, 6);
      assert.deepEqual(idsInOrder(all.results), [5, 4, 3, 2, 1, 0].map(runId));
      assert.deepEqual(all.results[1], runs[4], 'whole records, definition included');
      assert.equal((await search({ freeText: '*' })).totalHits, 6);
      assert.equal((await search({ freeText: '  ' })).totalHits, 6);
    });

    void it('filters by name, statuses, correlation id and an inclusive time range', async () => {
      assert.deepEqual(idsInOrder((await search({ name: 'orders' })).results), [2, 1, 0].map(runId));
      assert.deepEqual(
        idsInOrder((await search({ status: ['RUNNING', 'PAUSED'] })).results),
        [5, 3, 0].map(runId),
      );
      assert.equal((await search({ status: [] })).totalHits, 6);
      assert.deepEqual(idsInOrder((await search({ correlationId: 'c-a' })).results), [3, 0].map(runId));
      assert.deepEqual(
        idsInOrder((await search({ from: T0 + 2, to: T0 + 4 })).results),
        [3, 2, 1].map(runId),
      );
      assert.deepEqual(
        idsInOrder((await search({ name: 'payments', status: ['RUNNING'], correlationId: 'c-a' })).results),
        [runId(3)],
      );
      assert.equal((await search({ name: 'nope' })).totalHits, 0);
    });

    void it('matches free text on id, correlation id, name and input/output text', async () => {
      assert.deepEqual(idsInOrder((await search({ freeText: 'run-2' })).results), [runId(2)]);
      assert.deepEqual(idsInOrder((await search({ freeText: 'c-b' })).results), [runId(1)]);
      assert.deepEqual(
        idsInOrder((await search({ freeText: 'shipping' })).results),
        [runId(5)],
        'name, case-insensitive',
      );
      assert.deepEqual(
        idsInOrder((await search({ freeText: 'acme corp' })).results),
        [runId(3)],
        'input text',
      );
      assert.deepEqual(
        idsInOrder((await search({ freeText: 'zürich-äbc' })).results),
        [runId(1)],
        'output text, unicode case',
      );
      assert.deepEqual(idsInOrder((await search({ freeText: "'; DROP TABLE runs; --" })).results), []);
      assert.equal((await search({})).totalHits, 6);
    });

    void it('sorts by the allowed fields and pages with a total', async () => {
      assert.deepEqual(
        idsInOrder((await search({ sort: [{ field: 'updateTime', order: 'ASC' }] })).results),
        [5, 4, 3, 2, 1, 0].map(runId),
      );
      assert.deepEqual(
        idsInOrder(
          (
            await search({
              sort: [
                { field: 'workflowType', order: 'ASC' },
                { field: 'createTime', order: 'DESC' },
              ],
            })
          ).results,
        ),
        [5, 2, 1, 0, 4, 3].map(runId),
        'byte order on both stores: upper case sorts first',
      );
      assert.deepEqual(
        idsInOrder((await search({ sort: [{ field: 'workflowId', order: 'DESC' }] })).results),
        [5, 4, 3, 2, 1, 0].map(runId),
      );
      assert.deepEqual(
        idsInOrder(
          (
            await search({
              sort: [
                { field: 'status', order: 'ASC' },
                { field: 'createTime', order: 'ASC' },
              ],
            })
          ).results,
        ),
        [1, 2, 5, 0, 3, 4].map(runId),
      );
      assert.equal(
        (await search({ sort: [{ field: 'endTime', order: 'DESC' }] })).results[0]?.workflowId,
        runId(1),
      );

      const p1 = await search({ start: 0, size: 4, sort: [{ field: 'createTime', order: 'ASC' }] });
      const p2 = await search({ start: 4, size: 4, sort: [{ field: 'createTime', order: 'ASC' }] });
      assert.equal(p1.totalHits, 6);
      assert.equal(p2.totalHits, 6);
      assert.deepEqual(idsInOrder(p1.results), [0, 1, 2, 3].map(runId));
      assert.deepEqual(idsInOrder(p2.results), [4, 5].map(runId));
      const beyond = await search({ start: 10, size: 4, name: 'orders' });
      assert.deepEqual(beyond, { totalHits: 3, results: [] });
    });

    void it('refuses a sort field outside the allow-list', async () => {
      const bad = { field: 'workflow_id; DROP TABLE runs' as 'workflowId', order: 'ASC' as const };
      await assert.rejects(search({ sort: [bad] }), /cannot sort runs/);
    });
  });
}
