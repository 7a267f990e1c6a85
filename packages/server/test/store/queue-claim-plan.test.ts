import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import Database from 'better-sqlite3';
import type pg from 'pg';

import { SQL } from '../../src/store-postgres/sql.js';
import { NEXT_VISIBLE } from '../../src/store-sqlite/queue.js';
import { CLAIM_PICK } from '../../src/store-sqlite/sql.js';
import { openSqliteStore } from '../../src/store-sqlite/sqlite-store.js';
import { type PlanNode, planDatabase, planNodes } from '../helpers/pg-plans.js';
import { enabledStores } from '../helpers/postgres.js';

/**
 * A poll with a long queue waiting: the claim walks queue_messages_claim in its order and stops at
 * its LIMIT, whatever the planner believes about the table. Both stores once took the
 * next-visible index for it instead, with statistics that lagged a burst of enqueues (PostgreSQL)
 * or none at all (SQLite), and sorted the whole queue on every poll.
 */

// Enough that the claim's index (wider: it holds the task id) is a level deeper than the
// next-visible one: the shape in which PostgreSQL's planner, believing the queue held a row, chose
// the shallower index and a sort.
const WAITING = 50_000;

if (enabledStores().includes('postgres')) {
  describe('the claim plan on PostgreSQL, with statistics that lag the queue', () => {
    let client: pg.Client;
    let close: () => Promise<void> = () => Promise.resolve();

    before(async () => {
      ({ client, close } = await planDatabase());
      await client.query(
        `INSERT INTO queue_messages (task_id, queue_name, workflow_id, task_ref, attempt, priority, visible_at, lock_ms, created_at)
         SELECT md5(i::text)::uuid::text, 'busy', md5('w' || i)::uuid::text, 'wait', 0, 0, 1000 + i, 300000, 1000 + i FROM generate_series(1, ${WAITING}) AS i`,
      );
      // The planner as a burst leaves it: the table and its indexes never counted, no column
      // statistics (what a database sees before its first ANALYZE; autovacuum may be minutes behind).
      await client.query(`DELETE FROM pg_statistic WHERE starelid = 'queue_messages'::regclass`);
      await client.query(
        `UPDATE pg_class SET reltuples = -1, relpages = 0
         WHERE relname IN ('queue_messages', 'queue_messages_claim', 'queue_messages_visible')`,
      );
    });

    after(async () => {
      await close();
    });

    async function planOf(sql: string, params: unknown[], mode: string): Promise<PlanNode[]> {
      await client.query(`SET plan_cache_mode = ${mode}`);
      await client.query('DEALLOCATE ALL');
      const types = params.map((p) => (typeof p === 'number' ? 'bigint' : 'text'));
      const literals = params.map((p) => (typeof p === 'number' ? String(p) : `'${String(p)}'`));
      const list = (items: string[]): string => (items.length === 0 ? '' : `(${items.join(', ')})`);
      await client.query(`PREPARE probe${list(types)} AS ${sql}`);
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (FORMAT JSON) EXECUTE probe${list(literals)}`,
      );
      const plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
      assert.ok(plan);
      return planNodes(plan);
    }

    it('the next visible time is the earliest of any priority, of unlocked messages only', async () => {
      await client.query(
        `INSERT INTO queue_messages (task_id, queue_name, workflow_id, task_ref, attempt, priority, visible_at, lock_ms, created_at, locked_until)
         VALUES ('m1', 'mixed', 'w', 'r', 0, 5, 300, 1, 0, NULL), ('m2', 'mixed', 'w', 'r', 0, 0, 100, 1, 0, NULL),
                ('m3', 'mixed', 'w', 'r', 0, 9, 200, 1, 0, NULL), ('m4', 'mixed', 'w', 'r', 0, 1, 50, 1, 0, 999)`,
      );
      try {
        const next = async (names: string[]): Promise<unknown> =>
          (await client.query<{ v: string | null }>(SQL.nextVisibleAt.text, [names])).rows[0]?.v ?? null;
        assert.equal(await next(['mixed']), '100');
        assert.equal(await next(['mixed', 'busy']), '100');
        assert.equal(await next(['busy']), '1001');
        assert.equal(await next(['nothing']), null);
      } finally {
        await client.query(`DELETE FROM queue_messages WHERE queue_name = 'mixed'`);
      }
    });

    for (const mode of ['force_custom_plan', 'force_generic_plan']) {
      it(`a claim reads queue_messages_claim in order and sorts nothing (${mode})`, async () => {
        const nodes = await planOf(SQL.claim.text, ['busy', 10 ** 15, 1, 'token', 'worker'], mode);
        const indexes = nodes.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : []));
        assert.ok(indexes.includes('queue_messages_claim'), `indexes read: ${indexes.join(', ')}`);
        assert.ok(!indexes.includes('queue_messages_visible'), `indexes read: ${indexes.join(', ')}`);
        assert.deepEqual(
          nodes.filter((n) => n['Node Type'] === 'Sort').map((n) => n['Node Type']),
          [],
        );
      });

      // A task type's two queues in one statement, as a batch sends it prepared (write-behind.ts).
      it(`a claim of a queue pair reads queue_messages_claim for each and sorts nothing (${mode})`, async () => {
        const nodes = await planOf(
          SQL.claimPair.text,
          ['busy-high', 'busy', 10 ** 15, 1, 'token', 'worker'],
          mode,
        );
        const indexes = nodes.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : []));
        assert.equal(
          indexes.filter((i) => i === 'queue_messages_claim').length,
          2,
          `indexes read: ${indexes.join(', ')}`,
        );
        assert.ok(!indexes.includes('queue_messages_visible'), `indexes read: ${indexes.join(', ')}`);
        // No sort, and no scan of a whole table but the one-row task_defs_version.
        const whole = nodes.filter(
          (n) =>
            n['Node Type'] === 'Sort' ||
            (n['Node Type'] === 'Seq Scan' && n['Relation Name'] !== 'task_defs_version'),
        );
        assert.deepEqual(
          whole.map((n) => `${n['Node Type']} ${n['Relation Name'] ?? ''}`),
          [],
        );
      });

      it(`the next visible time is a seek of queue_messages_claim per priority, no sort (${mode})`, async () => {
        const nodes = await planOf(SQL.nextVisibleAt.text.replace('$1::text[]', "ARRAY['busy']"), [], mode);
        const indexes = nodes.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : []));
        assert.deepEqual(indexes, ['queue_messages_claim', 'queue_messages_claim']);
        assert.deepEqual(
          nodes
            .filter((n) => n['Node Type'] === 'Sort' || n['Node Type'] === 'Seq Scan')
            .map((n) => n['Node Type']),
          [],
        );
      });
    }
  });
}

if (enabledStores().includes('sqlite')) {
  describe('the claim plan on SQLite, which keeps no statistics', () => {
    let dir: string;
    let sqlite: Database.Database;

    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'baton-claim-plan-'));
      const file = path.join(dir, 'baton.db');
      const store = openSqliteStore({ file, synchronous: 'NORMAL' });
      await store.migrate();
      await store.close();
      sqlite = new Database(file);
      const insert = sqlite.prepare(
        `INSERT INTO queue_messages (task_id, queue_name, workflow_id, task_ref, attempt, priority, visible_at, lock_ms, created_at)
         VALUES (?, 'busy', ?, 'wait', 0, 0, ?, 300000, ?)`,
      );
      sqlite.transaction(() => {
        for (let i = 1; i <= WAITING; i++) insert.run(`t${i}`, `w${i}`, 1000 + i, 1000 + i);
      })();
    });

    after(async () => {
      sqlite?.close();
      await rm(dir, { recursive: true, force: true });
    });

    const planOf = (sql: string, ...params: unknown[]): string[] =>
      (sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map(
        (r) => r.detail,
      );

    it('a claim reads queue_messages_claim in order and sorts nothing', () => {
      const plan = planOf(CLAIM_PICK, 'busy', 10 ** 15, 1);
      assert.ok(
        plan.some((d) => d.includes('USING INDEX queue_messages_claim')),
        plan.join(' | '),
      );
      assert.ok(!plan.some((d) => d.includes('TEMP B-TREE')), plan.join(' | '));
      assert.deepEqual(sqlite.prepare(CLAIM_PICK).all('busy', 10 ** 15, 2), [
        { task_id: 't1', priority: 0, visible_at: 1001 },
        { task_id: 't2', priority: 0, visible_at: 1002 },
      ]);
    });

    it('the next visible time is one seek of queue_messages_visible', () => {
      const plan = planOf(NEXT_VISIBLE, 'busy');
      assert.ok(
        plan.some(
          (d) =>
            d.includes('USING COVERING INDEX queue_messages_visible') ||
            d.includes('USING INDEX queue_messages_visible'),
        ),
        plan.join(' | '),
      );
      assert.deepEqual(sqlite.prepare(NEXT_VISIBLE).get('busy'), { v: 1001 });
    });
  });
}
