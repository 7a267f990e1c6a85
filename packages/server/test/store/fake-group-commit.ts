import type pg from 'pg';

import { GroupCommit, type MemberLocks } from '../../src/store-postgres/group-commit.js';
import type { Tx } from '../../src/store/store.js';

/**
 * A group commit over a connection that answers every message at once, for tests of its
 * scheduling alone (pg-group-commit.test.ts holds the same rules against PostgreSQL). A member's
 * function gets a `FakeTx`: the claim of its batch (as `lockRun` claims its run), or none alone.
 */
export interface FakeTx {
  claim(key: string): void;
  alone: boolean;
}

export function fakeClient(): pg.PoolClient {
  const client = {
    query: (text: string) => Promise.resolve(text.split(';\n').map(() => ({ rows: [], rowCount: 0 }))),
    release: () => undefined,
  };
  return client as unknown as pg.PoolClient;
}

export function fakeGroupCommit(connect: () => Promise<pg.PoolClient> = () => Promise.resolve(fakeClient())) {
  return new GroupCommit({
    connect,
    prepared: () => new Map(),
    tx: (_q, _state, _notified, _writes, locks: MemberLocks) =>
      ({ claim: (key: string) => locks.claim(key), alone: false }) satisfies FakeTx as unknown as Tx,
    alone: (fn) => fn({ claim: () => undefined, alone: true } satisfies FakeTx as unknown as Tx),
    notify: () => undefined,
  });
}
