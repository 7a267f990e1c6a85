import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { openPostgresStore } from '../../../src/store-postgres/postgres-store.js';
import type { ArchivedRun, RunQuery, Store, TaskQuery } from '../../../src/store/store.js';
import { storeCases } from '../../helpers/stores.js';
import { storeSuite } from '../../helpers/store-suite.js';
import { T0, message, run, task, uid } from '../fixtures.js';

/** The archive's part of the store port, and task search, on every store. */

const page = (query: Partial<RunQuery>): RunQuery => ({ start: 0, size: 100, sort: [], ...query });

function ended(name: string, endTime: number, extra: Parameters<typeof run>[0] = {}): ReturnType<typeof run> {
  return run({ workflowName: name, status: 'COMPLETED', endTime, updateTime: endTime, ...extra });
}

function indexRow(r: ReturnType<typeof run>, extra: Partial<ArchivedRun> = {}): ArchivedRun {
  return {
    workflowId: r.workflowId,
    workflowName: r.workflowName,
    workflowVersion: r.workflowVersion,
    status: r.status,
    priority: r.priority,
    createTime: r.createTime,
    updateTime: r.updateTime,
    endTime: r.endTime,
    links: r.links,
    blobKey: `archive/2026/01/${r.workflowId}.json.gz`,
    blobSha256: 'ab'.repeat(32),
    archivedAt: T0 + 99,
    ...(r.correlationId !== undefined && { correlationId: r.correlationId }),
    ...extra,
  };
}

async function claim(
  store: Store,
  now: number,
  endedBefore: number,
  node = 'n1',
  limit = 100,
): Promise<string[]> {
  return store.transaction((tx) =>
    tx.claimRunsToArchive({ endedBefore, now, leaseUntil: now + 1000, node, limit }),
  );
}

for (const c of storeCases()) {
  void describe(`store archive (${c.name})`, () => {
    const { store, opened } = storeSuite(c);

    void it('claims ended runs due for the archive, oldest end first, each once while its claim holds', async () => {
      const name = uid('claim-');
      const a = ended(name, T0 + 10);
      const b = ended(name, T0 + 5);
      const late = ended(name, T0 + 500);
      const open = run({ workflowName: name });
      await store.transaction(async (tx) => {
        for (const r of [a, b, late, open]) await tx.insertRun(r);
      });
      const first = await claim(store, T0 + 1000, T0 + 100);
      assert.deepEqual(
        first.filter((id) => [a, b, late, open].some((r) => r.workflowId === id)),
        [b.workflowId, a.workflowId],
      );
      assert.deepEqual(await claim(store, T0 + 1500, T0 + 100), [], 'held by the first claim');
      const again = await claim(store, T0 + 2001, T0 + 100, 'n2');
      assert.deepEqual(
        again.filter((id) => id === a.workflowId || id === b.workflowId).sort(),
        [a.workflowId, b.workflowId].sort(),
        'the lease lapsed',
      );
    });

    void it('deletes every hot row of a run, and only that run', async () => {
      const r = ended(uid('del-'), T0 + 1);
      const keep = ended(uid('keep-'), T0 + 1);
      const t1 = task(r.workflowId, 1, { status: 'COMPLETED' });
      const kept = task(keep.workflowId, 1);
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertRun(keep);
        await tx.insertTasks([t1, kept]);
        await tx.appendTaskLogs([{ taskId: t1.taskId, log: 'one', createdTime: T0 }]);
        await tx.appendTaskLogs([{ taskId: kept.taskId, log: 'kept', createdTime: T0 }]);
        await tx.appendRunMessage({
          id: uid('m-'),
          workflowId: r.workflowId,
          payload: { a: 1 },
          receivedAt: T0,
        });
        await tx.enqueue([message('q-del', { taskId: t1.taskId, workflowId: r.workflowId })], T0);
        await tx.armTimers(
          [{ timerId: uid('tm-'), workflowId: r.workflowId, kind: 'WAIT', dueAt: T0 + 5, payload: {} }],
          T0,
        );
      });
      assert.deepEqual(
        (await store.read((tx) => tx.getRunLogs(r.workflowId))).map((l) => l.log),
        ['one'],
      );
      await store.transaction(async (tx) => {
        await tx.lockRun(r.workflowId);
        await tx.deleteRunRows(r.workflowId);
      });
      await store.read(async (tx) => {
        assert.equal(await tx.getRun(r.workflowId), undefined);
        assert.deepEqual(await tx.getRunTasks(r.workflowId), []);
        assert.deepEqual(await tx.getRunLogs(r.workflowId), []);
        assert.deepEqual(await tx.getRunMessages(r.workflowId, 10), []);
        assert.equal(await tx.getMessage(t1.taskId), undefined);
        assert.deepEqual(await tx.listTimers({ workflowId: r.workflowId }), []);
        assert.deepEqual(await tx.getDecideTasks(r.workflowId), []);
        assert.ok(await tx.getRun(keep.workflowId));
        assert.deepEqual(
          (await tx.getTaskLogs(kept.taskId)).map((l) => l.log),
          ['kept'],
        );
      });
    });

    void it("keeps a run's idempotency key and actions once its hot rows are gone, and deletes them as its traces", async () => {
      const name = uid('traces-');
      const [gone, kept] = [ended(name, T0 + 1), ended(name, T0 + 1)];
      const action = (workflowId: string) => ({ workflowId, action: 'terminate', actor: 'ops', at: T0 });
      await store.transaction(async (tx) => {
        for (const [r, key] of [
          [gone, 'key-gone'],
          [kept, 'key-kept'],
        ] as const) {
          await tx.insertRun(r);
          assert.equal(await tx.claimIdempotencyKey(name, key, r.workflowId, T0), undefined);
          await tx.appendRunAction(action(r.workflowId));
        }
      });
      // Archived (its hot rows gone): a repeated key still finds the run, its actions still show.
      await store.transaction((tx) => tx.deleteRunRows(gone.workflowId));
      await store.read(async (tx) => {
        assert.equal(await tx.getRun(gone.workflowId), undefined);
        assert.equal((await tx.getRunActions(gone.workflowId)).length, 1);
      });
      await store.transaction(async (tx) => {
        assert.equal(await tx.claimIdempotencyKey(name, 'key-gone', 'someone-else', T0), gone.workflowId);
      });

      await store.transaction((tx) => tx.deleteRunTraces(gone.workflowId));
      assert.deepEqual(await store.read((tx) => tx.getRunActions(gone.workflowId)), []);
      await store.transaction(async (tx) => {
        assert.equal(
          await tx.claimIdempotencyKey(name, 'key-gone', 'next-run', T0),
          undefined,
          'the key is free',
        );
        assert.equal(await tx.claimIdempotencyKey(name, 'key-kept', 'next-run', T0), kept.workflowId);
      });
      assert.equal(
        (await store.read((tx) => tx.getRunActions(kept.workflowId))).length,
        1,
        'the other run keeps its own',
      );
    });

    void it('keeps, finds, links and deletes archived index rows', async () => {
      const name = uid('arch-');
      const r1 = ended(name, T0 + 20, { correlationId: 'corr', createTime: T0 + 1 });
      const r2 = ended(name, T0 + 30, { correlationId: 'corr', createTime: T0 + 2, status: 'FAILED' });
      await store.transaction(async (tx) => {
        await tx.insertArchivedRun(indexRow(r1));
        await tx.insertArchivedRun(indexRow(r2, { parentWorkflowId: 'parent-1' }));
      });
      assert.deepEqual(await store.read((tx) => tx.getArchivedRun(r1.workflowId)), indexRow(r1));
      const found = await store.read((tx) =>
        tx.searchArchivedRuns(page({ name, sort: [{ field: 'createTime', order: 'ASC' }] })),
      );
      assert.equal(found.totalHits, 2);
      assert.deepEqual(
        found.results.map((x) => x.workflowId),
        [r1.workflowId, r2.workflowId],
      );
      const filtered = await store.read((tx) =>
        tx.searchArchivedRuns(
          page({
            filter: {
              kind: 'and',
              items: [
                { kind: 'compare', field: 'workflowType', op: '=', value: name },
                { kind: 'in', field: 'status', values: ['FAILED'], negate: false },
                { kind: 'compare', field: 'endTime', op: '>', value: T0 + 25 },
              ],
            },
          }),
        ),
      );
      assert.deepEqual(
        filtered.results.map((x) => x.parentWorkflowId),
        ['parent-1'],
      );
      assert.equal(
        (await store.read((tx) => tx.searchArchivedRuns(page({ freeText: r2.workflowId })))).totalHits,
        1,
      );
      assert.deepEqual(
        (await store.read((tx) => tx.archivedRunsByCorrelationId(name, 'corr'))).map((x) => x.workflowId),
        [r1.workflowId, r2.workflowId],
      );
      await store.transaction((tx) => tx.updateArchivedRunLinks(r1.workflowId, { restarted_by: ['new-1'] }));
      assert.deepEqual((await store.read((tx) => tx.getArchivedRun(r1.workflowId)))?.links, {
        restarted_by: ['new-1'],
      });
      assert.equal(await store.transaction((tx) => tx.deleteArchivedRun(r1.workflowId)), true);
      assert.equal(await store.transaction((tx) => tx.deleteArchivedRun(r1.workflowId)), false);
      assert.equal(await store.read((tx) => tx.getArchivedRun(r1.workflowId)), undefined);
    });

    void it('searches tasks by filter, free text, page and sort', async () => {
      const r = run({ workflowName: uid('ts-') });
      const tasks = [
        task(r.workflowId, 1, {
          taskType: 'ts_a',
          status: 'COMPLETED',
          updateTime: T0 + 3,
          startTime: T0 + 1,
          outputData: { word: 'Needle' },
        }),
        task(r.workflowId, 2, { taskType: 'ts_a', status: 'FAILED', updateTime: T0 + 2, startTime: T0 + 2 }),
        task(r.workflowId, 3, {
          taskType: 'ts_b',
          status: 'COMPLETED',
          updateTime: T0 + 1,
          startTime: T0 + 3,
        }),
      ];
      await store.transaction(async (tx) => {
        await tx.insertRun(r);
        await tx.insertTasks(tasks.map((t) => ({ ...t, workflowType: r.workflowName })));
      });
      const search = (query: Partial<TaskQuery>) =>
        store.read((tx) => tx.searchTasks({ start: 0, size: 10, sort: [], ...query }));
      const byRun = await search({
        filter: { kind: 'compare', field: 'workflowType', op: '=', value: r.workflowName },
      });
      assert.deepEqual(
        byRun.results.map((t) => t.seq),
        [1, 2, 3],
        'latest update first',
      );
      const done = await search({
        filter: {
          kind: 'and',
          items: [
            { kind: 'compare', field: 'workflowId', op: '=', value: r.workflowId },
            { kind: 'in', field: 'status', values: ['COMPLETED'], negate: false },
          ],
        },
        sort: [{ field: 'startTime', order: 'ASC' }],
      });
      assert.deepEqual(
        done.results.map((t) => t.seq),
        [1, 3],
      );
      const text = await search({
        filter: { kind: 'compare', field: 'workflowId', op: '=', value: r.workflowId },
        freeText: 'needle',
      });
      assert.deepEqual(
        text.results.map((t) => t.seq),
        [1],
      );
      const either = await search({
        filter: {
          kind: 'and',
          items: [
            { kind: 'compare', field: 'workflowId', op: '=', value: r.workflowId },
            {
              kind: 'or',
              items: [
                { kind: 'compare', field: 'taskType', op: '=', value: 'ts_b' },
                { kind: 'compare', field: 'startTime', op: '<=', value: T0 + 1 },
              ],
            },
          ],
        },
        start: 1,
        size: 1,
      });
      assert.equal(either.totalHits, 2);
      assert.equal(either.results.length, 1);
    });

    if (c.name === 'postgres') {
      void it('two nodes claiming at once never claim the same run', async () => {
        const name = uid('nodes-');
        const runs = Array.from({ length: 40 }, (_, i) => ended(name, T0 + i));
        await store.transaction(async (tx) => {
          for (const r of runs) await tx.insertRun(r);
        });
        const url = opened.url;
        assert.ok(url);
        const other = openPostgresStore({ url, poolSize: 4 });
        try {
          const now = T0 + 10_000_000;
          // Eight claimers at once, in rounds until none finds work: SKIP LOCKED lets a claimer
          // come back short while others hold rows (and other suites' ended runs share the
          // store), so "every run once" is checked over the rounds, "never twice" in each.
          const mine: string[] = [];
          for (let round = 0; round < 50; round++) {
            const claims = await Promise.all(
              Array.from({ length: 8 }, (_, i) =>
                claim(i % 2 === 0 ? store : other, now, now, `node-${round}-${i}`, 7),
              ),
            );
            const flat = claims.flat();
            mine.push(...flat.filter((id) => runs.some((r) => r.workflowId === id)));
            if (flat.length === 0) break;
          }
          assert.equal(new Set(mine).size, mine.length, 'no run claimed twice');
          assert.equal(mine.length, 40, 'every due run claimed once');
        } finally {
          await other.close();
        }
      });
    }
  });
}
