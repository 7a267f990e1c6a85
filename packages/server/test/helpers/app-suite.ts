import assert from 'node:assert/strict';
import { after, before } from 'node:test';

import type { FastifyInstance } from 'fastify';

import { type TestApp, call, testApp } from './app.js';
import type { OpenedStore, StoreCase } from './stores.js';

/**
 * A Baton app on a fresh store of `storeCase` for the enclosing suite: both opened in `before`
 * and closed in `after`. The answer reads through to that app, so use it inside hooks and tests
 * (hooks the suite adds afterwards run once it is open).
 */
export function appSuite(storeCase: StoreCase, options: Parameters<typeof testApp>[1] = {}): TestApp {
  let opened: OpenedStore | undefined;
  let current: TestApp | undefined;
  before(async () => {
    opened = await storeCase.open();
    current = await testApp(opened.store, options);
  });
  after(async () => {
    await current?.close();
    await opened?.cleanup();
  });
  const open = (): TestApp => {
    assert.ok(current, 'the suite app is read before its before() hook ran');
    return current;
  };
  return {
    get server() {
      return open().server;
    },
    get app() {
      return open().app;
    },
    get store() {
      return open().store;
    },
    close: () => open().close(),
  };
}

/** Registers task definitions (when any) and then each workflow, asserting every answer is 200. */
export async function register(
  app: FastifyInstance,
  workflows: ReadonlyArray<Record<string, unknown>>,
  taskDefs: ReadonlyArray<Record<string, unknown>> = [],
): Promise<void> {
  if (taskDefs.length > 0) {
    const res = await call(app, 'POST', '/api/metadata/taskdefs', taskDefs);
    assert.equal(res.status, 200, res.text);
  }
  for (const def of workflows) {
    const res = await call(app, 'POST', '/api/metadata/workflow', def);
    assert.equal(res.status, 200, `${String(def.name)}: ${res.text}`);
  }
}
