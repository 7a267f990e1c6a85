import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { RunRecord } from '@baton/protocol';

import type { RunQuery } from '../../src/store/store.js';
import { storeCases } from '../helpers/stores.js';
import { storeSuite } from '../helpers/store-suite.js';
import { T0, run, uid } from './fixtures.js';

const page = (query: Partial<RunQuery>): RunQuery => ({ start: 0, size: 100, sort: [], ...query });
const ids = (runs: RunRecord[]): string[] => runs.map((r) => r.workflowId).sort();

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
