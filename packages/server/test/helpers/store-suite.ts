import assert from 'node:assert/strict';
import { after, before } from 'node:test';

import type { Store } from '../../src/store/store.js';
import type { OpenedStore, StoreCase } from './stores.js';

/**
 * A fresh store of `storeCase` for the enclosing suite: opened in `before`, cleaned up in
 * `after`. Both answers read through to it at each use, so a suite names them once and uses
 * them inside hooks and tests.
 */
export function storeSuite(storeCase: StoreCase): { store: Store; opened: OpenedStore } {
  let current: OpenedStore | undefined;
  before(async () => {
    current = await storeCase.open();
  });
  after(async () => {
    await current?.cleanup();
  });
  const open = (): OpenedStore => {
    assert.ok(current, 'the suite store is read before its before() hook ran');
    return current;
  };
  const opened: OpenedStore = {
    get store() {
      return open().store;
    },
    get url() {
      return open().url;
    },
    get file() {
      return open().file;
    },
    cleanup: () => open().cleanup(),
  };
  // Every member of the opened store, its methods bound to it.
  const store = new Proxy({} as Store, {
    get(_target, key) {
      const target = open().store;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store, opened };
}
