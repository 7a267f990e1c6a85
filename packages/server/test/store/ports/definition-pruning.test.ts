import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { RunRecord } from '@baton/protocol';

import type { DefinitionPrunePage, Store } from '../../../src/store/store.js';
import { storeCases } from '../../helpers/stores.js';
import { storeSuite } from '../../helpers/store-suite.js';
import { T0, run, uid, workflowDef } from '../fixtures.js';

/**
 * A run-definition snapshot is stored once per distinct text and shared by its runs; a pruning
 * pass marks one no run refers to and deletes it once it has stayed unused past the cutoff, on
 * every store. (PostgreSQL's lock between a start and a pass: test/store/pg-definition-pruning.test.ts.)
 */

const HOUR = 3_600_000;

/** Every page of a pass at `now` that deletes what was unused at `unusedBefore` or earlier. */
async function pass(
  store: Store,
  now: number,
  unusedBefore: number,
  limit = 100,
): Promise<{ marked: number; deleted: number; pages: DefinitionPrunePage[] }> {
  const pages: DefinitionPrunePage[] = [];
  let after: string | undefined;
  do {
    const page = await store.transaction((tx) =>
      tx.pruneRunDefinitions({ ...(after !== undefined && { after }), limit, now, unusedBefore }),
    );
    pages.push(page);
    after = page.next;
  } while (after !== undefined);
  return {
    marked: pages.reduce((n, p) => n + p.marked, 0),
    deleted: pages.reduce((n, p) => n + p.deleted, 0),
    pages,
  };
}

function runOf(definitionName: string): RunRecord {
  const name = uid('prune-');
  return run({ workflowName: name, workflowDefinition: workflowDef(definitionName) });
}

const insert = (store: Store, ...runs: RunRecord[]): Promise<void> =>
  store.transaction(async (tx) => {
    for (const r of runs) await tx.insertRun(r);
  });

const remove = (store: Store, ...runs: RunRecord[]): Promise<void> =>
  store.transaction(async (tx) => {
    for (const r of runs) await tx.deleteRunRows(r.workflowId);
  });

async function definitionOf(store: Store, r: RunRecord): Promise<unknown> {
  return (await store.read((tx) => tx.getRun(r.workflowId)))?.workflowDefinition;
}

for (const c of storeCases()) {
  void describe(`run definitions pruned (${c.name}): marked when unused, deleted once unused long enough`, () => {
    const { store } = storeSuite(c);

    void it('deletes the snapshot its last run left, and keeps the one other runs share', async () => {
      const alone = runOf(uid('alone-'));
      const sharedName = uid('shared-');
      const [first, second] = [runOf(sharedName), runOf(sharedName)];
      assert.ok(first && second);
      await insert(store, alone, first, second);
      assert.deepEqual(await pass(store, T0 + 1_000, T0 + 1_000 - HOUR), {
        marked: 0,
        deleted: 0,
        pages: [{ marked: 0, deleted: 0 }],
      });

      await remove(store, alone, first);
      const marking = await pass(store, T0 + 2_000, T0 + 2_000 - HOUR);
      assert.deepEqual([marking.marked, marking.deleted], [1, 0], 'the one no run refers to is marked');
      const early = await pass(store, T0 + 3_000, T0 + 1_999);
      assert.deepEqual([early.marked, early.deleted], [0, 0], 'unused since 2000: not yet due at 1999');
      const due = await pass(store, T0 + 4_000, T0 + 2_000);
      assert.deepEqual([due.marked, due.deleted], [0, 1]);

      assert.deepEqual(await definitionOf(store, second), second.workflowDefinition, 'the shared one stays');
      // The same text started again is stored again, and its run reads it whole.
      const again = { ...runOf('x'), workflowDefinition: alone.workflowDefinition };
      await insert(store, again);
      assert.deepEqual(await definitionOf(store, again), alone.workflowDefinition);
      const after = await pass(store, T0 + 5_000, T0 + 5_000);
      assert.deepEqual([after.marked, after.deleted], [0, 0]);
    });

    void it('unmarks a snapshot a run uses again, and counts its unused time afresh', async () => {
      const once = runOf(uid('reused-'));
      await insert(store, once);
      await remove(store, once);
      assert.equal((await pass(store, T0 + 10_000, T0 + 10_000 - HOUR)).marked, 1);

      const reuse = { ...runOf('y'), workflowDefinition: once.workflowDefinition };
      await insert(store, reuse);
      const kept = await pass(store, T0 + 20_000, T0 + 20_000);
      assert.deepEqual([kept.marked, kept.deleted], [0, 0], 'used again: neither deleted nor marked');
      assert.deepEqual(await definitionOf(store, reuse), once.workflowDefinition);

      await remove(store, reuse);
      const marked = await pass(store, T0 + 30_000, T0 + 25_000);
      assert.deepEqual([marked.marked, marked.deleted], [1, 0], 'the mark of 10,000 was cleared');
      const gone = await pass(store, T0 + 40_000, T0 + 30_000);
      assert.deepEqual([gone.marked, gone.deleted], [0, 1]);
    });

    void it('walks every snapshot in pages of its limit, each page naming where the next starts', async () => {
      const runs = Array.from({ length: 5 }, () => runOf(uid('paged-')));
      await insert(store, ...runs);
      await remove(store, ...runs);
      const marking = await pass(store, T0 + 50_000, T0 + 50_000 - HOUR, 2);
      assert.equal(marking.marked, 5);
      const last = marking.pages.at(-1);
      assert.ok(marking.pages.length >= 3 && last?.next === undefined);
      for (const page of marking.pages.slice(0, -1)) assert.equal(typeof page.next, 'string');
      const deleting = await pass(store, T0 + 60_000, T0 + 50_000, 2);
      assert.equal(deleting.deleted, 5);
      assert.equal((await pass(store, T0 + 70_000, T0 + 70_000, 2)).deleted, 0, 'nothing left to delete');
    });
  });
}
