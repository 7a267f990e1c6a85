import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { StoreUnavailable, storeFault } from '../../src/store/store-faults.js';

/** Which errors count as "the database is away" (503 with Retry-After) and which are the request's. */
void describe('store faults', () => {
  const coded = (message: string, code: string): Error => Object.assign(new Error(message), { code });

  void it('a lost, refused or silent PostgreSQL connection is a fault', () => {
    for (const err of [
      new Error('Connection terminated unexpectedly'),
      new Error('Query read timeout'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection terminated due to connection timeout'),
      new Error('Client has encountered a connection error and is not queryable'),
      coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      coded('read ECONNRESET', 'ECONNRESET'),
      coded('terminating connection due to administrator command', '57P01'),
      coded('the database system is starting up', '57P03'),
      coded('connection failure', '08006'),
      coded('canceling statement due to statement timeout', '57014'),
      coded('cannot execute INSERT in a read-only transaction', '25006'),
      coded('could not extend file: No space left on device', '53100'),
      new StoreUnavailable('PostgreSQL at db1:5432 is not a writable primary'),
    ])
      assert.ok(storeFault(err) !== undefined, err.message);
  });

  void it('a full disk, a read-only file and an I/O error of SQLite are faults, with the reason', () => {
    assert.match(storeFault(coded('database or disk is full', 'SQLITE_FULL')) ?? '', /full.*SQLITE_FULL/);
    assert.match(
      storeFault(coded('attempt to write a readonly database', 'SQLITE_READONLY')) ?? '',
      /readonly.*SQLITE_READONLY/,
    );
    assert.ok(storeFault(coded('disk I/O error', 'SQLITE_IOERR_WRITE')) !== undefined);
  });

  void it('is found through the cause chain', () => {
    const inner = new Error('Connection terminated unexpectedly');
    assert.ok(storeFault(new Error('PostgreSQL migration 3 failed', { cause: inner })) !== undefined);
  });

  void it("the request's own errors are not faults", () => {
    for (const err of [
      coded('duplicate key value violates unique constraint', '23505'),
      coded('could not serialize access', '40001'),
      coded('syntax error', '42601'),
      coded('UNIQUE constraint failed', 'SQLITE_CONSTRAINT_UNIQUE'),
      new Error('Workflow not found'),
      'a string',
      undefined,
    ])
      assert.equal(storeFault(err), undefined, String(err));
  });
});
