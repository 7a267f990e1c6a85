import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type pg from 'pg';

import type { RunQuery, Store } from '../../src/store/store.js';
import { planDatabase } from '../helpers/pg-plans.js';
import { enabledStores } from '../helpers/postgres.js';
import { run, uid } from './fixtures.js';

/**
 * PostgreSQL's free-text run index takes a run's words through a pending list of at most 64 kB
 * (schema step run-search-pending-list): a committed run is found by its words while they wait
 * there, the list is merged into the index by the writes that fill it, never grows past its
 * bound, and what was merged is found as before.
 */

const page = (freeText: string): RunQuery => ({ start: 0, size: 100, sort: [], freeText });

interface GinStats {
  pending_pages: number;
  pending_tuples: string;
}

if (enabledStores().includes('postgres')) {
  void describe('the free-text run index on PostgreSQL, through its bounded pending list', () => {
    let store: Store;
    let client: pg.Client;
    let close: () => Promise<void> = () => Promise.resolve();

    before(async () => {
      ({ store, client, close } = await planDatabase());
      // pgstatginindex: the pending list's pages and entries (contrib, shipped with the server).
      await client.query('CREATE EXTENSION IF NOT EXISTS pgstattuple');
    });

    after(async () => {
      await close();
    });

    const gin = async (): Promise<{ pages: number; tuples: number }> => {
      const { rows } = await client.query<GinStats>(
        "SELECT pending_pages, pending_tuples FROM pgstatginindex('runs_search_words')",
      );
      const row = rows[0];
      assert.ok(row);
      return { pages: row.pending_pages, tuples: Number(row.pending_tuples) };
    };
    const search = async (word: string): Promise<string[]> =>
      (await store.read((tx) => tx.searchRuns(page(word)))).results.map((r) => r.workflowId).sort();

    void it('is made with the pending list on and bounded at 64 kB', async () => {
      const { rows } = await client.query<{ reloptions: string[] | null }>(
        "SELECT reloptions FROM pg_class WHERE relname = 'runs_search_words'",
      );
      assert.deepEqual([...(rows[0]?.reloptions ?? [])].sort(), [
        'fastupdate=on',
        'gin_pending_list_limit=64',
      ]);
    });

    void it('finds runs by words waiting in the list and by words merged from it, and the list stays bounded', async () => {
      const first = run({ workflowId: uid('quokka-'), input: { animal: 'quokka', note: 'first of many' } });
      await store.transaction((tx) => tx.insertRun(first));
      const waiting = await gin();
      assert.ok(waiting.tuples > 0, 'the first run waits in the pending list');
      assert.deepEqual(await search('quokka'), [first.workflowId], 'found while waiting');

      // Runs with words of their own and shared ones, fifty a transaction, until the list has been
      // merged into the index twice (its entry count falls); never more than the bound's pages.
      let merges = 0;
      let before = waiting.tuples;
      let most = waiting.pages;
      let last = first;
      for (let batch = 0; merges < 2; batch++) {
        assert.ok(batch < 200, 'the pending list was never merged');
        const runs = Array.from({ length: 50 }, (_, i) =>
          run({
            workflowId: uid(`batch-${batch}-${i}-`),
            input: { order: `ord${batch}x${i}`, note: 'a small note that stands for a business payload' },
          }),
        );
        await store.transaction(async (tx) => {
          for (const r of runs) await tx.insertRun(r);
        });
        last = runs.at(-1) ?? last;
        const now = await gin();
        if (now.tuples < before) merges++;
        before = now.tuples;
        most = Math.max(most, now.pages);
      }
      // 64 kB is eight pages; the insert that passes the bound adds at most one before it merges.
      assert.ok(most <= 9, `the pending list reached ${most} pages`);
      assert.deepEqual(await search('quokka'), [first.workflowId], 'found once merged');
      const lastOrder = (last.input as { order: string }).order;
      assert.deepEqual(await search(lastOrder), [last.workflowId], 'a later run by a word of its own');
    });
  });
}
