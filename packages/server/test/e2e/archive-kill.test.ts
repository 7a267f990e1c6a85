import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import type { Workflow } from '@baton/protocol';
import pg from 'pg';

import {
  type BatonProcess,
  getJson,
  httpOk,
  mapLimit,
  postText,
  startBaton,
  waitFor,
} from '../helpers/baton-process.js';
import { workflowDef } from '../helpers/definitions.js';
import { createTestDatabase, enabledStores } from '../helpers/postgres.js';

/**
 * The archiver of a real Baton process is killed with SIGKILL while it moves runs (PostgreSQL,
 * blobs in the data dir), then Baton starts again on the same data. Every run ends up archived
 * exactly once, reads back exactly as it did before the move (plus `archived: true`), and no
 * hot row is left behind.
 */

const RUNS = 300;
const definition = workflowDef(
  'kill_arch_flow',
  [
    {
      name: 'note',
      taskReferenceName: 'note',
      type: 'SET_VARIABLE',
      inputParameters: { n: '${workflow.input.n}' },
    },
    { name: 'noop', taskReferenceName: 'done', type: 'NOOP', inputParameters: { n: '${workflow.input.n}' } },
  ],
  { n: '${workflow.variables.n}' },
);

async function count(client: pg.Client, sql: string): Promise<number> {
  const { rows } = await client.query<{ n: string }>(sql);
  return Number(rows[0]?.n ?? 0);
}

if (enabledStores().includes('postgres')) {
  void describe('e2e: kill -9 of Baton while it archives', () => {
    void it(`loses nothing and leaves nothing half-moved (${RUNS} runs)`, { timeout: 240_000 }, async () => {
      const db = await createTestDatabase('baton_e2e_archive');
      const dataDir = mkdtempSync(path.join(tmpdir(), 'baton-e2e-archive-'));
      const client = new pg.Client({ connectionString: db.url });
      let baton: BatonProcess | undefined;
      try {
        // 1. Runs end while the archiver is off; their answers are the reference.
        baton = await startBaton({ name: 'before', databaseUrl: db.url, dataDir });
        await httpOk('POST', `${baton.url}/api/metadata/workflow`, definition);
        const base = baton.url;
        const ids = await mapLimit(
          Array.from({ length: RUNS }, (_, n) => n),
          8,
          (n) =>
            postText(`${base}/api/workflow/kill_arch_flow`, { input: { n }, correlationId: `c-${n % 10}` }),
        );
        const reference = await mapLimit(ids, 8, (id) => getJson<Workflow>(`${base}/api/workflow/${id}`));
        assert.ok(reference.every((r) => r.status === 'COMPLETED'));
        await baton.stop();
        await client.connect();

        // 2. Archiving on (small batches, so the kill finds a move under way), killed mid-way.
        const archiveEnv = {
          BATON_ARCHIVE_AFTER: '1ms',
          BATON_ARCHIVE_INTERVAL_MS: '20',
          BATON_ARCHIVE_BATCH: '3',
        };
        baton = await startBaton({ name: 'archiving', databaseUrl: db.url, dataDir, env: archiveEnv });
        await waitFor(
          async () =>
            (await count(client, 'SELECT count(*) AS n FROM archived_runs')) >= 30 ? true : undefined,
          {
            timeoutMs: 60_000,
            intervalMs: 5,
            what: 'the archiver to move some runs',
          },
        );
        baton.kill();
        await baton.exited;
        const movedAtKill = await count(client, 'SELECT count(*) AS n FROM archived_runs');
        assert.ok(movedAtKill < RUNS, `the kill came before the archiver was done (${movedAtKill} moved)`);
        // Whatever the kill interrupted, every run is in exactly one place.
        const hotAtKill = await count(client, 'SELECT count(*) AS n FROM runs');
        assert.equal(hotAtKill + movedAtKill, RUNS, 'every run is hot or archived, none both, none lost');
        await baton.stop();

        // 3. Started again: the claims of the dead node lapse (5 min) or were never taken, so
        //    lapse them now rather than wait, as time would.
        await client.query('UPDATE archive_claims SET claimed_until = 0');
        baton = await startBaton({ name: 'after', databaseUrl: db.url, dataDir, env: archiveEnv });
        await waitFor(
          async () => ((await count(client, 'SELECT count(*) AS n FROM runs')) === 0 ? true : undefined),
          {
            timeoutMs: 120_000,
            what: 'the archiver to move every run',
          },
        );
        assert.equal(await count(client, 'SELECT count(*) AS n FROM archived_runs'), RUNS);
        for (const table of [
          'tasks',
          'task_logs',
          'task_latest',
          'queue_messages',
          'timers',
          'run_messages',
          'archive_claims',
        ]) {
          assert.equal(await count(client, `SELECT count(*) AS n FROM ${table}`), 0, `${table} is empty`);
        }
        const after = baton.url;
        const read = await mapLimit(ids, 8, (id) => getJson<Workflow>(`${after}/api/workflow/${id}`));
        read.forEach((run, i) => {
          assert.equal(run.archived, true);
          const { archived: _a, ...rest } = run;
          assert.deepEqual(rest, reference[i], `run ${run.workflowId}`);
        });
        const search = await getJson<{ totalHits: number }>(
          `${after}/api/workflow/search?name=kill_arch_flow&size=1`,
        );
        assert.equal(search.totalHits, RUNS);
      } finally {
        await baton?.stop();
        await client.end().catch(() => {});
        await db.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
