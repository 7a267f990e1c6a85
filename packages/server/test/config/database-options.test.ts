import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ConfigError, compileOptions } from '../../src/config/options.js';
import { openStore } from '../../src/open-store.js';
import type { PostgresStore } from '../../src/store-postgres/postgres-store.js';

void describe('database settings', () => {
  void it('group commit takes up to 64 members by default; 1 applies each transaction alone', () => {
    assert.equal(compileOptions({}, '/').dbGroupCommit, 64);
    assert.equal(compileOptions({ BATON_DB_GROUP_COMMIT: '1' }, '/').dbGroupCommit, 1);
    for (const bad of ['0', '-3', 'many', '1.5', '1001'])
      assert.throws(
        () => compileOptions({ BATON_DB_GROUP_COMMIT: bad }, '/'),
        (err: unknown) => err instanceof ConfigError && /BATON_DB_GROUP_COMMIT/.test(err.message),
        bad,
      );
  });

  void it('start-up wait for an absent database: 60 s by default, 0 exits at once, a bad value is refused', () => {
    assert.equal(compileOptions({}, '/').dbStartWaitMs, 60_000);
    assert.equal(compileOptions({ BATON_DB_START_WAIT_MS: '0' }, '/').dbStartWaitMs, 0);
    for (const bad of ['-1', 'later'])
      assert.throws(
        () => compileOptions({ BATON_DB_START_WAIT_MS: bad }, '/'),
        (err: unknown) => err instanceof ConfigError && /BATON_DB_START_WAIT_MS/.test(err.message),
        bad,
      );
  });

  void it('connection and statement bounds: 5 s and 30 s by default, 0 turns the statement bound off', () => {
    const defaults = compileOptions({}, '/');
    assert.equal(defaults.dbConnectTimeoutMs, 5_000);
    assert.equal(defaults.dbStatementTimeoutMs, 30_000);
    assert.equal(compileOptions({ BATON_DB_STATEMENT_TIMEOUT_MS: '0' }, '/').dbStatementTimeoutMs, 0);
    assert.equal(compileOptions({ BATON_DB_CONNECT_TIMEOUT_MS: '250' }, '/').dbConnectTimeoutMs, 250);
    for (const [name, bad] of [
      ['BATON_DB_CONNECT_TIMEOUT_MS', '0'],
      ['BATON_DB_CONNECT_TIMEOUT_MS', 'soon'],
      ['BATON_DB_STATEMENT_TIMEOUT_MS', '-1'],
      ['BATON_DB_STATEMENT_TIMEOUT_MS', '2.5'],
    ] as const)
      assert.throws(
        () => compileOptions({ [name]: bad }, '/'),
        (err: unknown) => err instanceof ConfigError && err.message.includes(name),
        `${name}=${bad}`,
      );
  });

  void it('the PostgreSQL store groups only when the setting is above 1', async () => {
    const url = 'postgres://nobody@127.0.0.1:1/none'; // never connected: the pool connects lazily
    const grouped = (await openStore({ databaseUrl: url, dataDir: '/tmp', groupCommit: 8 })) as PostgresStore;
    const alone = (await openStore({ databaseUrl: url, dataDir: '/tmp', groupCommit: 1 })) as PostgresStore;
    try {
      assert.ok(grouped.group);
      assert.equal(alone.group, undefined);
    } finally {
      await grouped.close();
      await alone.close();
    }
  });
});
