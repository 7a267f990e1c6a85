import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import pg from 'pg';

import { DeadlineClient } from '../../src/store-postgres/answer-deadline.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { testServerUrl } from '../helpers/postgres.js';

// Connections that keep their queries' answer deadline themselves (store-postgres/answer-deadline.ts),
// on a real server: every form of `query` answers as node-postgres's own does; a query whose answer
// does not come fails with node-postgres's error once the deadline has passed, and only once; and
// node-postgres is never given the deadline, so it never sets a query's callback after the fact.

type Answer = pg.QueryResult | pg.QueryResult[];

function rowsOf(answer: Answer): unknown[] {
  return (Array.isArray(answer) ? answer : [answer]).map((r) => r.rows);
}

function callbackForm(client: pg.Client, text: string, values?: unknown[]): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, result: Answer): void => (err ? reject(err) : resolve(result));
    if (values === undefined) void client.query(text, done as never);
    else void client.query(text, values, done as never);
  });
}

void describe('a connection that keeps its answer deadline (store-postgres/answer-deadline.ts)', () => {
  let plain: pg.Client;
  let kept: DeadlineClient;
  before(async () => {
    plain = new pg.Client({ connectionString: testServerUrl() });
    kept = new DeadlineClient({ connectionString: testServerUrl(), query_timeout: 10_000 });
    await plain.connect();
    await kept.connect();
  });
  after(async () => {
    await plain.end();
    await kept.end();
  });

  void it('answers every form of query as node-postgres does', async () => {
    const text = 'SELECT $1::int + 1 AS n, $2::text AS t';
    const several = "SELECT 1 AS a; SELECT 'x' AS b, 2 AS c; SELECT 1 WHERE false";
    assert.deepEqual(rowsOf(await kept.query(text, [1, 'a'])), rowsOf(await plain.query(text, [1, 'a'])));
    assert.deepEqual(rowsOf(await kept.query(several)), rowsOf(await plain.query(several)));
    const named = { name: 'deadline_named', text, values: [2, 'b'] };
    assert.deepEqual(rowsOf(await kept.query(named)), rowsOf(await plain.query(named)));
    assert.deepEqual(
      rowsOf(await callbackForm(kept, text, [3, 'c'])),
      rowsOf(await plain.query(text, [3, 'c'])),
    );
    assert.deepEqual(rowsOf(await callbackForm(kept, several)), rowsOf(await plain.query(several)));
    await assert.rejects(kept.query('SELECT * FROM no_such_table'), /no_such_table/);
    await assert.rejects(callbackForm(kept, 'SELECT 1/0'), /division by zero/);
    // The connection goes on answering after an error.
    assert.deepEqual((await kept.query('SELECT 7 AS n')).rows, [{ n: 7 }]);
  });

  void it('leaves node-postgres without a deadline of its own', () => {
    assert.equal(kept.answerDeadlineMs, 10_000);
    const parameters = (kept as unknown as { connectionParameters: { query_timeout?: number | false } })
      .connectionParameters;
    // node-postgres's default: no deadline of its own (`false`).
    assert.equal(parameters.query_timeout, false);
  });

  void it('fails a query whose answer does not come once its deadline has passed, and only once', async () => {
    const target = new URL(testServerUrl());
    const proxy = new FaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.listen();
    const client = new DeadlineClient({
      connectionString: proxy.urlFor(testServerUrl()),
      query_timeout: 300,
    });
    client.on('error', () => {});
    try {
      await client.connect();
      assert.deepEqual((await client.query('SELECT 1 AS n')).rows, [{ n: 1 }]);
      proxy.blackhole();
      let calls = 0;
      const started = performance.now();
      const outcome = await new Promise<Error | null>((resolve) => {
        client.query('SELECT 2 AS n', (err: Error | null) => {
          calls++;
          resolve(err);
        });
      });
      const waited = performance.now() - started;
      assert.match(String(outcome?.message), /^Query read timeout$/);
      // Node's timers may fire a millisecond early, never a deadline early.
      assert.ok(waited >= 290, `failed after ${waited.toFixed(0)} ms, before its 300 ms deadline`);
      // A query's own deadline wins over the connection's.
      const started2 = performance.now();
      await assert.rejects(
        client.query({ text: 'SELECT 3 AS n', query_timeout: 600 } as pg.QueryConfig),
        /^Error: Query read timeout$/,
      );
      assert.ok(performance.now() - started2 >= 590);
      // The connection is cut off: node-postgres fails the queries it still holds, and the one
      // that already failed is not answered again.
      proxy.heal();
      await new Promise<void>((resolve) => {
        if ((client as unknown as { _ended?: boolean })._ended) resolve();
        else client.once('end', () => resolve());
      });
      assert.equal(calls, 1);
    } finally {
      await client.end().catch(() => {});
      await proxy.close();
    }
  });
});
