import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';

import type pg from 'pg';

import { taskSearchSql } from '../../src/store-postgres/search.js';
import { DECIDE_TASKS } from '../../src/store-postgres/decide-set.js';
import { SQL } from '../../src/store-postgres/sql.js';
import type { Store, TaskQuery } from '../../src/store/store.js';
import { toTaskQuery } from '../../src/search/task-search.js';
import { indexesRead, type PlanNode, planDatabase, planNodes } from '../helpers/pg-plans.js';
import { enabledStores } from '../helpers/postgres.js';

/**
 * Task search on a large PostgreSQL store (100,000 tasks) is served from indexes: the query
 * plan of every filtered search has no sequential scan of `tasks`. Timings are reported as
 * diagnostics, never asserted.
 */

const TASKS = 100_000;

/** Index scans with no key condition: the whole index (or a partial index's whole) read. */
const unkeyedIndexScans = (plan: PlanNode): string[] =>
  planNodes(plan).flatMap((n) => (n['Index Name'] && !n['Index Cond'] ? [n['Index Name']] : []));

const seqScansOfTasks = (plan: PlanNode): string[] =>
  planNodes(plan)
    .filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'tasks')
    .map(() => 'Seq Scan on tasks');

if (enabledStores().includes('postgres')) {
  describe('task search plans on PostgreSQL (100,000 tasks)', () => {
    let store: Store;
    let client: pg.Client;
    let close: () => Promise<void> = () => Promise.resolve();

    before(async () => {
      ({ store, client, close } = await planDatabase());
      // 100,000 tasks over 10,000 runs of 20 definitions, 50 task types, 5 statuses.
      await client.query(
        `INSERT INTO tasks (task_id, workflow_id, seq, reference_task_name, task_type, status, update_time, record)
         SELECT 't' || i, 'w' || (i / 10), i % 10, 'ref' || (i % 10), 'type_' || (i % 50), s.status,
                1700000000000 + i * 1000,
                jsonb_build_object('taskId', 't' || i, 'workflowInstanceId', 'w' || (i / 10),
                  'workflowType', 'flow_' || (i % 20), 'taskType', 'type_' || (i % 50), 'status', s.status,
                  'startTime', 1700000000000 + i * 1000 - 500, 'scheduledTime', 1700000000000 + i * 1000 - 900,
                  'endTime', 1700000000000 + i * 1000, 'updateTime', 1700000000000 + i * 1000,
                  'inputData', jsonb_build_object('n', i), 'outputData', jsonb_build_object('word', 'w' || i))
           FROM generate_series(1, ${TASKS}) AS i
           CROSS JOIN LATERAL (SELECT (ARRAY['COMPLETED','FAILED','SCHEDULED','IN_PROGRESS','CANCELED'])[1 + i % 5] AS status) s`,
      );
      await client.query('ANALYZE tasks');
    });

    after(async () => {
      await close();
    });

    const cases: Array<[string, TaskQuery]> = [
      ['type and status', toTaskQuery({ taskType: 'type_5', status: 'COMPLETED' })],
      [
        'query form: types and status and start time',
        toTaskQuery({
          query: 'taskType IN (type_10,type_15) AND status IN (COMPLETED) AND startTime > 1700050000000',
        }),
      ],
      ['status only', toTaskQuery({ status: 'FAILED' })],
      ['run id', toTaskQuery({ workflowId: 'w42' })],
      ['run name', toTaskQuery({ workflowType: 'flow_3' })],
      ['start time range', toTaskQuery({ from: '1700010000000', to: '1700011000000' })],
      ['type with free text', toTaskQuery({ taskType: 'type_9', freeText: 'w109' })],
      // Free text alone reads every row once, in key order a chunk at a time (never past skipped rows).
      ['free text alone', toTaskQuery({ freeText: 'w4242' })],
      ['type, sorted by start time', toTaskQuery({ taskType: 'type_4', sort: 'startTime:DESC' })],
    ];

    for (const [name, query] of cases) {
      it(`${name}: no sequential scan of tasks`, async (t) => {
        const sql = taskSearchSql(query);
        const statements: Array<readonly [string, readonly unknown[]]> =
          sql.kind === 'page'
            ? [
                [sql.count, sql.filterParams],
                [sql.page, sql.pageParams],
              ]
            : [
                [sql.scan, sql.params],
                [sql.page, [['t109', 't1090'], query.size, query.start]],
              ];
        for (const [text, params] of statements) {
          const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
            `EXPLAIN (FORMAT JSON) ${text}`,
            [...params],
          );
          const plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
          assert.ok(plan);
          assert.deepEqual(seqScansOfTasks(plan), [], `${text}\n${JSON.stringify(plan, null, 1)}`);
        }
        const started = performance.now();
        const answer = await store.read((tx) => tx.searchTasks(query));
        t.diagnostic(`${name}: ${answer.totalHits} hits in ${(performance.now() - started).toFixed(1)} ms`);
      });
    }

    // The hot statements run prepared, and PostgreSQL runs such a statement from a generic plan
    // (the write-behind forces one; a named statement switches to one after five executions).
    // Each must find its rows by key alone. ANDed with the status index, the open-task write read
    // every open entry to update one row; that plan was chosen where the statistics saw few open
    // tasks (every step's task ends soon after it starts), as set up here. Each entry lists the
    // indexes a statement may read (the statistics decide between a run's indexes), each by its key.
    const hot: Array<[string, string, string[]]> = [
      ['getTask', SQL.getTask.text, ['tasks_pkey']],
      ['getTasks', SQL.getTasks.text, ['tasks_pkey']],
      ['lockRun', SQL.lockRun.text, ['runs_pkey']],
      [
        'decide set',
        DECIDE_TASKS.text,
        ['task_latest_pkey', 'tasks_pkey', 'tasks_to_decide', 'tasks_workflow_seq'],
      ],
      ['updateTasks', SQL.updateTasks.text, ['tasks_pkey']],
      ['updateOpenTasks', SQL.updateOpenTasks.text, ['tasks_pkey']],
    ];
    for (const [name, text, allowed] of hot) {
      it(`${name}: a generic plan reads by key only`, async () => {
        await client.query('BEGIN');
        try {
          await client.query(
            `UPDATE tasks SET status = 'COMPLETED' WHERE status IN ('SCHEDULED', 'IN_PROGRESS') AND task_id <> 't3'`,
          );
          await client.query('ANALYZE tasks'); // rolled back with the rest
          await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
          await client.query(`PREPARE hot_plan AS ${text}`);
          const { rows: types } = await client.query<{ n: number }>(
            `SELECT cardinality(parameter_types) AS n FROM pg_prepared_statements WHERE name = 'hot_plan'`,
          );
          const nulls = Array.from({ length: types[0]?.n ?? 0 }, () => 'NULL').join(', ');
          const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
            `EXPLAIN (FORMAT JSON) EXECUTE hot_plan(${nulls})`,
          );
          const plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
          assert.ok(plan);
          const read = [...new Set(indexesRead(plan))].sort();
          assert.ok(read.length > 0, JSON.stringify(plan, null, 1));
          assert.deepEqual(
            read.filter((index) => !allowed.includes(index)),
            [],
            JSON.stringify(plan, null, 1),
          );
          assert.deepEqual(unkeyedIndexScans(plan), [], JSON.stringify(plan, null, 1));
          assert.deepEqual(seqScansOfTasks(plan), [], JSON.stringify(plan, null, 1));
        } finally {
          await client.query('ROLLBACK');
          await client.query('DEALLOCATE ALL');
        }
      });
    }
  });
}
