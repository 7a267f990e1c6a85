import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import pg from 'pg';

import type { Query } from '../../src/store-postgres/sql.js';
import {
  TxPlans,
  WriteBehind,
  escapeLiteral,
  inline,
  literal,
  parameterCount,
  preparation,
  replanDue,
} from '../../src/store-postgres/write-behind.js';

void describe('deferred writes as SQL literals', () => {
  void it('quotes strings, numbers, booleans, nulls and arrays the way PostgreSQL reads them', () => {
    assert.equal(literal(null), 'NULL');
    assert.equal(literal(undefined), 'NULL');
    assert.equal(literal(42), '42');
    assert.equal(literal(-1.5), '-1.5');
    assert.equal(literal(true), 'TRUE');
    assert.equal(literal("it's"), "'it''s'");
    assert.equal(literal('a\\b'), " E'a\\\\b'");
    assert.equal(literal(['a', null, 'b"c', 'd,e']), ` E'{"a",NULL,"b\\\\"c","d,e"}'`);
    assert.equal(literal([1, 2]), `'{1,2}'`);
    assert.equal(literal([]), `'{}'`);
    assert.throws(() => literal(Number.NaN), /NaN/);
    assert.throws(() => literal({ a: 1 }), /object/);
  });

  void it('writes a string literal exactly as pg escapes it', () => {
    const record = JSON.stringify({
      note: 'it\'s \\ "quoted" \n',
      path: 'C:\\dir',
      emoji: '\u{1F600}',
      empty: '',
    });
    for (const text of [
      '',
      "'",
      "''",
      '\\',
      "\\'",
      "a'b\\c'd",
      'plain',
      'ünï €',
      '\u{1F600}',
      record,
      `${record}'${record}`,
    ])
      assert.equal(escapeLiteral(text), pg.escapeLiteral(text), JSON.stringify(text));
  });

  void it('replaces each placeholder once, $10 apart from $1, and never inside an inserted value', () => {
    const values = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
    values[0] = '$2';
    assert.equal(inline('SELECT $1, $2, $10::text', values), `SELECT '$2', 'v2', 'v10'::text`);
  });
});

void describe('deferred writes as prepared statements', () => {
  const named = { name: 'baton_insert_tasks', text: 'INSERT INTO t (a, b) VALUES ($1, $2)' };
  const other = { name: 'baton_delete_task_def', text: 'DELETE FROM t WHERE a = ANY($1)' };
  /** A connection that records each message (split into statements) and fails when told to. */
  function connection(fail = false): { q: Query; sent: string[][] } {
    const sent: string[][] = [];
    const q = ((text: string) => {
      sent.push(text.split(';\n'));
      return fail ? Promise.reject(new Error('boom')) : Promise.resolve({ rows: [] });
    }) as unknown as Query;
    return { q, sent };
  }

  void it('prepares a statement once per connection, then executes its generic plan', async () => {
    const prepared = new Map<string, { first: number; at: number }>();
    const first = connection();
    const a = new WriteBehind(first.q, prepared);
    a.later('BEGIN', []);
    a.later(named, ["it's", 2]);
    a.later(named, ['x', 3]);
    await a.flush('COMMIT');
    assert.deepEqual(first.sent, [
      [
        'BEGIN',
        'SET LOCAL plan_cache_mode = force_generic_plan',
        'SET LOCAL enable_seqscan = off',
        'SET LOCAL jit = off',
        'PREPARE wb_baton_insert_tasks AS INSERT INTO t (a, b) VALUES ($1, $2)',
        'EXPLAIN EXECUTE wb_baton_insert_tasks(NULL, NULL)',
        'SET LOCAL enable_seqscan TO DEFAULT',
        'SET LOCAL jit TO DEFAULT',
        "EXECUTE wb_baton_insert_tasks('it''s', 2)",
        "EXECUTE wb_baton_insert_tasks('x', 3)",
        'COMMIT',
      ],
    ]);
    assert.deepEqual([...prepared.keys()], ['wb_baton_insert_tasks']);
    assert.equal(a.uncertain, false);
    const second = connection();
    const b = new WriteBehind(second.q, prepared);
    b.later('BEGIN', []);
    b.later(named, ['y', null]);
    await b.flush('COMMIT');
    assert.deepEqual(second.sent, [
      [
        'BEGIN',
        'SET LOCAL plan_cache_mode = force_generic_plan',
        "EXECUTE wb_baton_insert_tasks('y', NULL)",
        'COMMIT',
      ],
    ]);
  });

  void it('transactions sharing plans send what sets up a write with the first message, whoever sends it', async () => {
    const plans = new TxPlans(new Map(), true);
    const c = connection();
    const a = new WriteBehind(c.q, plans);
    const b = new WriteBehind(c.q, plans);
    a.later(named, ['a', 1]);
    b.later(named, ['b', 2]);
    await b.flush();
    await a.flush();
    assert.deepEqual(c.sent, [
      [
        'SET LOCAL plan_cache_mode = force_generic_plan',
        ...preparation('wb_baton_insert_tasks', named.text),
        "EXECUTE wb_baton_insert_tasks('b', 2)",
      ],
      ["EXECUTE wb_baton_insert_tasks('a', 1)"],
    ]);
    assert.deepEqual([...plans.prepared.keys()], ['wb_baton_insert_tasks']);
  });

  void it('a failed batch leaves its statements unprepared and the connection in doubt', async () => {
    const prepared = new Map<string, { first: number; at: number }>();
    const c = connection(true);
    const w = new WriteBehind(c.q, prepared);
    w.later(named, ['a', 1]);
    await assert.rejects(w.flush('COMMIT'), /boom/);
    assert.equal(w.uncertain, true);
    assert.equal(prepared.size, 0);
  });

  void it('answers of queries sent with writes are theirs, not those of PREPARE or SET', async () => {
    const sent: string[][] = [];
    const q = ((text: string) => {
      const statements = text.split(';\n');
      sent.push(statements);
      return Promise.resolve(statements.map((s) => ({ rows: [{ s }] })));
    }) as unknown as Query;
    const w = new WriteBehind(q, new Map());
    w.later('BEGIN', []);
    const [x, y] = await w.queryMany([
      { sql: { name: 'baton_lock_run', text: 'SELECT $1' }, values: [1] },
      { sql: { name: 'baton_decide_tasks', text: 'SELECT $1' }, values: [2] },
    ]);
    assert.deepEqual(x?.rows, [{ s: 'EXECUTE wb_baton_lock_run(1)' }]);
    assert.deepEqual(y?.rows, [{ s: 'EXECUTE wb_baton_decide_tasks(2)' }]);
  });

  void it('keeps the other statements inlined, planned for their values', async () => {
    const c = connection();
    const w = new WriteBehind(c.q, new Map());
    w.later(other, [['a', 'b']]);
    await w.flush();
    assert.deepEqual(c.sent, [[`DELETE FROM t WHERE a = ANY('{"a","b"}')`]]);
  });

  void it('plans again after as long as the statement has been prepared, from 1 s to a minute', () => {
    const t = 1_000_000;
    assert.equal(replanDue({ first: t, at: t }, t + 999), false);
    assert.equal(replanDue({ first: t, at: t }, t + 1_000), true);
    assert.equal(replanDue({ first: t, at: t + 1_000 }, t + 1_999), false);
    assert.equal(replanDue({ first: t, at: t + 4_000 }, t + 8_000), true);
    assert.equal(replanDue({ first: t, at: t + 4_000 }, t + 7_999), false);
    assert.equal(replanDue({ first: t, at: t + 3_600_000 }, t + 3_659_999), false);
    assert.equal(replanDue({ first: t, at: t + 3_600_000 }, t + 3_660_000), true);
  });

  void it('prepares a statement again once its plan is due', async () => {
    const prepared = new Map([
      ['wb_baton_insert_tasks', { first: Date.now() - 600_000, at: Date.now() - 61_000 }],
    ]);
    const c = connection();
    const w = new WriteBehind(c.q, prepared);
    w.later(named, ['a', 1]);
    await w.flush();
    assert.deepEqual(c.sent[0]?.slice(1), [
      'DEALLOCATE wb_baton_insert_tasks',
      ...preparation('wb_baton_insert_tasks', named.text),
      "EXECUTE wb_baton_insert_tasks('a', 1)",
    ]);
    const plan = prepared.get('wb_baton_insert_tasks');
    assert.ok(plan !== undefined && plan.at > Date.now() - 5_000);
    assert.ok(plan.first < Date.now() - 500_000, 'when it was first prepared is kept');
  });
});

void describe('a statement prepared with its plan', () => {
  void it('counts the parameters PREPARE takes from the highest $n', () => {
    assert.equal(parameterCount('SELECT 1'), 0);
    assert.equal(parameterCount('SELECT $2, $1, $10 WHERE a = $2'), 10);
  });

  void it('makes the generic plan at once, sequential scans and JIT off for that planning alone', () => {
    assert.deepEqual(preparation('wb_x', 'SELECT $1, $2'), [
      'SET LOCAL enable_seqscan = off',
      'SET LOCAL jit = off',
      'PREPARE wb_x AS SELECT $1, $2',
      'EXPLAIN EXECUTE wb_x(NULL, NULL)',
      'SET LOCAL enable_seqscan TO DEFAULT',
      'SET LOCAL jit TO DEFAULT',
    ]);
    assert.equal(preparation('wb_y', 'SELECT 1')[3], 'EXPLAIN EXECUTE wb_y');
  });
});
