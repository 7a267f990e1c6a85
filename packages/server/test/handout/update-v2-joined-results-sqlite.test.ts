import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';

import { openSqliteStore, type SqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import { type TestApp, call, testApp } from '../helpers/app.js';
import { whileWriterHeld } from '../helpers/sqlite-writer.js';
import { enabledStores } from '../helpers/postgres.js';
import { joinedResultsCases, registerJoinedResultsWorkflow } from './joined-results-cases.js';

/**
 * On SQLite, as on PostgreSQL (update-v2-joined-results.test.ts): the results of one run's
 * branches that wait for the writer together are decided together (store-sqlite/join-queue.ts),
 * one decide-set read and one decision, each worker answered as if its result had gone alone.
 * The writer is held by a transaction until every result waits for it.
 */
if (enabledStores().includes('sqlite')) {
  describe('update-v2: results of one run decided together on SQLite', () => {
    let dir: string;
    let store: SqliteStore;
    let t: TestApp;

    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'baton-joined-results-'));
      store = openSqliteStore({ file: path.join(dir, 'baton.db'), synchronous: 'NORMAL' });
      await store.migrate();
      t = await testApp(store);
      await registerJoinedResultsWorkflow(t.app);
    });
    after(async () => {
      await t?.close();
      await store?.close();
      await rm(dir, { recursive: true, force: true });
    });

    const joined = () => store.commitCounts.joined ?? 0;

    /** Posts `bodies` as update-v2s that all wait for the writer together; answers their responses in order. */
    const together = async (bodies: ReadonlyArray<Record<string, unknown>>) =>
      Promise.all(
        await whileWriterHeld(store, bodies.length, () =>
          bodies.map((body) => call(t.app, 'POST', '/api/tasks/update-v2', body)),
        ),
      );

    joinedResultsCases({ app: () => t.app, together, joined });
  });
}
