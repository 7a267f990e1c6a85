import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import pg from 'pg';

import { settledTypes } from '../../src/store-postgres/result-fields.js';
import { testServerUrl } from '../helpers/postgres.js';

// Results whose columns are described once per shape (store-postgres/result-fields.ts) read
// exactly as node-postgres's own path reads them, on a real server: the same rows, the same
// parsers, whatever the shape; a client that sets parsers of its own keeps them.

const STATEMENTS = [
  `SELECT 1::int AS a, 'x'::text AS b, NULL::text AS c, '{"k":[1,2]}'::jsonb AS d, 42::bigint AS e,
     '\\x0102'::bytea AS f, true AS g, 1.5::float8 AS h`,
  // Same first column and count, another type: a shape of its own.
  `SELECT 'one'::text AS a, 2::int AS b, 'x'::text AS c, '[]'::jsonb AS d, 7::bigint AS e,
     NULL::bytea AS f, false AS g, 2.5::float8 AS h`,
  // A name twice: one key, the last value, as node-postgres answers it.
  'SELECT 1::int AS a, 2::int AS a',
  // Several rows, and a multi-statement message with a result of each shape.
  'SELECT g AS n, g::text AS t FROM generate_series(1, 5) AS g',
  "SELECT 1::int AS a; SELECT 'z'::text AS a, 3::bigint AS b; SELECT 1 AS n WHERE false",
];

function types(): pg.CustomTypesConfig {
  const t = new pg.TypeOverrides();
  t.setTypeParser(20, (value: string) => Number(value));
  return t;
}

async function connected(config: pg.ClientConfig): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: testServerUrl(), ...config });
  await client.connect();
  return client;
}

function rowsOf(answer: pg.QueryResult | pg.QueryResult[]): unknown[] {
  return (Array.isArray(answer) ? answer : [answer]).map((r) => ({
    rows: r.rows,
    fields: r.fields.map((f) => [f.name, f.dataTypeID]),
  }));
}

void describe('result columns described once per shape (store-postgres/result-fields.ts)', () => {
  let plain: pg.Client;
  let settled: pg.Client;
  before(async () => {
    plain = await connected({ types: types() });
    settled = await connected({ types: settledTypes(types()) });
  });
  after(async () => {
    await plain.end();
    await settled.end();
  });

  void it('answers the same rows as node-postgres, each time, by text and by prepared statement', async () => {
    for (let round = 0; round < 3; round++) {
      for (const text of STATEMENTS) {
        const expected = rowsOf(await plain.query(text));
        assert.deepEqual(rowsOf(await settled.query(text)), expected, text);
      }
      const named = { name: 'result_fields_test', text: STATEMENTS[0] as string };
      assert.deepEqual(rowsOf(await settled.query(named)), rowsOf(await plain.query(named)));
    }
    const [row] = (await settled.query(STATEMENTS[0] as string)).rows as Array<Record<string, unknown>>;
    assert.equal(row?.e, 42, 'the settled types parse bigint as a number');
    assert.deepEqual(row?.d, { k: [1, 2] });
    assert.deepEqual(row?.f, Buffer.from([1, 2]));
    assert.deepEqual(Object.keys(row ?? {}), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
  });

  void it('gives every row an object of its own', async () => {
    const { rows } = await settled.query<{ n: number; t: string }>(STATEMENTS[3] as string);
    assert.equal(rows.length, 5);
    (rows[0] as { n: number }).n = 99;
    assert.equal(rows[1]?.n, 2);
    const again = await settled.query<{ n: number }>(STATEMENTS[3] as string);
    assert.equal(again.rows[0]?.n, 1);
  });

  void it('leaves a client that sets its own parsers on its own path', async () => {
    const client = await connected({ types: settledTypes(types()) });
    try {
      await client.query(STATEMENTS[0] as string);
      client.setTypeParser(23, (value: string) => `int:${value}`);
      const { rows } = await client.query<{ a: unknown }>(STATEMENTS[0] as string);
      assert.equal(rows[0]?.a, 'int:1');
    } finally {
      await client.end();
    }
  });
});
