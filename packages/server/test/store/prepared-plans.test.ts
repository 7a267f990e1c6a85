import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type pg from 'pg';

import { DECIDE_TASKS } from '../../src/store-postgres/decide-set.js';
import { SQL, type Sql } from '../../src/store-postgres/sql.js';
import { nullArguments, PREPARED_STATEMENTS, preparation } from '../../src/store-postgres/write-behind.js';
import { type PlanNode, planDatabase, planNodes } from '../helpers/pg-plans.js';
import { enabledStores } from '../helpers/postgres.js';

/**
 * A batch's statements run as generic plans prepared once per connection. A plan prepared on a
 * fresh database, while its tables were empty, once read the whole `tasks` table on every step as
 * it filled (the task update's hash join over a sequential scan), until the statement was prepared
 * again. Prepared as the write-behind prepares them, their plans find rows by index whatever the
 * tables held when they were made.
 */

/** The tables a step's statements touch many rows of, once a database has run for a while. */
const GROWING = ['tasks', 'queue_messages', 'task_latest'];
const ROWS = 20_000;

const statements: Sql[] = [...Object.values(SQL), DECIDE_TASKS].filter((s) =>
  PREPARED_STATEMENTS.has(s.name),
);

if (enabledStores().includes('postgres')) {
  describe('prepared plans of a fresh database, once its tables have grown', () => {
    let client: pg.Client;
    let close: () => Promise<void> = () => Promise.resolve();
    /** The growing tables PostgreSQL's own plans scan, as they were made on the empty tables. */
    const plainScans: string[] = [];

    before(async () => {
      ({ client, close } = await planDatabase());
      // A database whose statistics lag, as PostgreSQL's own plans meet it: an auto-analyze of a
      // grown table would invalidate the plain plans below and replan them on the new statistics.
      for (const table of GROWING)
        await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
      // Prepared while every table is empty: as the write-behind prepares them, and as PostgreSQL
      // would on its own (the plan of the first EXECUTE kept).
      await client.query('SET plan_cache_mode = force_generic_plan');
      await client.query('BEGIN');
      for (const sql of statements) {
        for (const statement of preparation(`kept_${sql.name}`, sql.text)) await client.query(statement);
        await client.query(`PREPARE plain_${sql.name} AS ${sql.text}`);
        await client.query(`EXPLAIN EXECUTE plain_${sql.name}${nullArguments(sql.text)}`);
      }
      await client.query('COMMIT');
      // PostgreSQL's own plans, read while the tables are still empty: the plans it keeps from here
      // on. Read later, a plan can be made again in between (an invalidation of the connection's
      // caches, which other sessions' catalog changes can set off at any time) from the grown tables.
      for (const sql of statements) plainScans.push(...(await scans(`plain_${sql.name}`, sql.text)));
      await client.query(
        `INSERT INTO tasks (task_id, workflow_id, seq, reference_task_name, task_type, status, update_time, record)
         SELECT 't' || i, 'w' || (i / 10), i % 10, 'r' || (i % 10), 'step', 'COMPLETED', i, '{}'::jsonb
         FROM generate_series(1, ${ROWS}) AS i`,
      );
      await client.query(
        `INSERT INTO queue_messages (task_id, queue_name, workflow_id, task_ref, attempt, priority, visible_at, lock_ms, created_at)
         SELECT 't' || i, 'step', 'w' || (i / 10), 'r', 0, 0, i, 300000, i FROM generate_series(1, ${ROWS}) AS i`,
      );
      await client.query(
        `INSERT INTO task_latest (workflow_id, name, seq, task_id)
         SELECT 'w' || (i / 10), 'r' || (i % 10), i % 10, 't' || i FROM generate_series(1, ${ROWS}) AS i`,
      );
    });

    after(async () => {
      await close();
    });

    async function scans(name: string, text: string): Promise<string[]> {
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (FORMAT JSON) EXECUTE ${name}${nullArguments(text)}`,
      );
      const plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
      assert.ok(plan, name);
      return planNodes(plan).flatMap((n) =>
        n['Node Type'] === 'Seq Scan' && GROWING.includes(n['Relation Name'] ?? '')
          ? [n['Relation Name'] ?? '']
          : [],
      );
    }

    it('covers the statements that touch the growing tables', () => {
      for (const name of [
        'baton_update_tasks',
        'baton_remove_messages',
        'baton_decide_tasks',
        'baton_claim',
      ]) {
        assert.ok(
          statements.some((s) => s.name === name),
          name,
        );
      }
    });

    it('a plan prepared on empty tables as PostgreSQL makes it scans them (what the test guards against)', () => {
      assert.ok(plainScans.includes('tasks'), `sequential scans: ${plainScans.join(', ')}`);
    });

    it('every statement prepared as the write-behind prepares it reads the grown tables by index', async () => {
      for (const sql of statements) assert.deepEqual(await scans(`kept_${sql.name}`, sql.text), [], sql.name);
    });

    it('the plan is made without JIT, though ruling out sequential scans raises its cost', async () => {
      // baton_lock_run reads task_defs_version, a table of one row and no index: still a sequential scan.
      const lockRun = statements.find((s) => s.name === 'baton_lock_run');
      assert.ok(lockRun);
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ JIT?: unknown }> }>(
        `EXPLAIN (FORMAT JSON) EXECUTE kept_${lockRun.name}${nullArguments(lockRun.text)}`,
      );
      assert.equal(rows[0]?.['QUERY PLAN'][0]?.JIT, undefined);
    });
  });
}
