import assert from 'node:assert/strict';
import { after, afterEach, before } from 'node:test';

import { call, testApp, type TestApp } from '../helpers/app.js';
import { workerTaskDefs } from '../helpers/definitions.js';
import type { StoreCase } from '../helpers/stores.js';

/**
 * What the Conductor scenario suites share: a server on one store with Baton's own worker types
 * registered, and the moves of a test that plays the workers through the poll and result routes.
 *
 * Worker types, with the settings Conductor's integration specs give theirs:
 * - `cs_task_0` … `cs_task_20`: retryCount 1, timeoutSeconds 120, responseTimeoutSeconds 120;
 * - `cs_task_rt_1` … `cs_task_rt_4`: the same with retryCount 0;
 * - `cs_child_task`: the one task of the child workflows, retryCount 0.
 */
export function scenarioTaskDefs(): Array<Record<string, unknown>> {
  const timed = { timeoutSeconds: 120, responseTimeoutSeconds: 120, retryDelaySeconds: 60 };
  return [
    ...workerTaskDefs(
      Array.from({ length: 21 }, (_, i) => `cs_task_${i}`),
      { ...timed, retryCount: 1 },
    ),
    ...workerTaskDefs(
      [1, 2, 3, 4].map((i) => `cs_task_rt_${i}`),
      timed,
    ),
    ...workerTaskDefs(['cs_child_task']),
  ];
}

export interface Scenarios {
  t(): TestApp;
  /** Registers workflow definitions (each must be new). */
  register(defs: Array<Record<string, unknown>>): Promise<void>;
  /** Starts version 1 of `name`; the run is terminated after the test if still open. */
  start(name: string, input: Record<string, unknown>, correlationId?: string): Promise<string>;
  /** Remembers a run started otherwise (a retry, a child), to clean it up after the test. */
  track(id: string): void;
  run(id: string): Promise<any>;
  /** Waits, with a bound, until the run's status is one of `statuses`; answers the run. */
  until(id: string, statuses: string[]): Promise<any>;
  /** Polls one task of `type` and completes it with `output`; answers the polled task. */
  complete(type: string, output?: Record<string, unknown>): Promise<any>;
  /** Polls one task of `type` and ends it with `status` and `reason`; answers the polled task. */
  fail(type: string, reason: string, status?: string): Promise<any>;
  /** Completes a task that is not polled (WAIT) by its id, through the result route. */
  completeById(runId: string, taskId: string): Promise<void>;
  /** Replaces one worker type's definition for the body of `fn`, then restores it. */
  withTaskDef(name: string, change: Record<string, unknown>, fn: () => Promise<void>): Promise<void>;
}

/** [taskType, status] of every task of a run, in order. */
export const shape = (wf: any): Array<[string, string]> =>
  wf.tasks.map((task: any) => [task.taskType, task.status]);

/** Sets up the server for the suite of `describe` it is called in. */
export function scenarioHarness(storeCase: StoreCase, defs: Array<Record<string, unknown>>): Scenarios {
  let app: TestApp | undefined;
  let cleanup: () => Promise<void> = async () => {};
  const open: string[] = [];
  const t = (): TestApp => {
    assert.ok(app, 'the server is up');
    return app;
  };

  const register = async (list: Array<Record<string, unknown>>) => {
    for (const def of list) {
      const res = await call(t().app, 'POST', '/api/metadata/workflow', def);
      assert.equal(res.status, 200, `${String(def.name)}: ${res.text}`);
    }
  };

  before(async () => {
    const opened = await storeCase.open();
    cleanup = opened.cleanup;
    app = await testApp(opened.store);
    const res = await call(app.app, 'POST', '/api/metadata/taskdefs', scenarioTaskDefs());
    assert.equal(res.status, 200, res.text);
    await register(defs);
  });
  afterEach(async () => {
    // No open task outlives its test: another test polls the same worker types.
    for (const id of open.splice(0)) {
      const status = await call(t().app, 'GET', `/api/workflow/${id}/status`);
      if (status.body?.status === 'RUNNING' || status.body?.status === 'PAUSED') {
        await call(t().app, 'DELETE', `/api/workflow/${id}?reason=cleanup`);
      }
    }
  });
  after(async () => {
    await app?.close();
    await cleanup();
  });

  const run = async (id: string) => {
    const res = await call(t().app, 'GET', `/api/workflow/${id}`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  const poll = async (type: string) => {
    const polled = await call(t().app, 'GET', `/api/tasks/poll/${type}?workerid=cs-worker`);
    assert.equal(polled.status, 200, `a ${type} task to poll: ${polled.status} ${polled.text}`);
    assert.equal(polled.body.status, 'IN_PROGRESS');
    return polled.body;
  };

  const result = async (task: any, body: Record<string, unknown>) => {
    const res = await call(t().app, 'POST', '/api/tasks', {
      taskId: task.taskId,
      workflowInstanceId: task.workflowInstanceId,
      ...body,
    });
    assert.equal(res.status, 200, res.text);
  };

  return {
    t,
    register,
    async start(name, input, correlationId) {
      const res = await call(t().app, 'POST', `/api/workflow/${name}`, {
        version: 1,
        input,
        ...(correlationId !== undefined && { correlationId }),
      });
      assert.equal(res.status, 200, res.text);
      open.push(res.text);
      return res.text;
    },
    track(id) {
      open.push(id);
    },
    run,
    async until(id, statuses) {
      for (let i = 0; i < 300; i++) {
        const wf = await run(id);
        if (statuses.includes(wf.status)) return wf;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return run(id);
    },
    async complete(type, output = {}) {
      const task = await poll(type);
      await result(task, { status: 'COMPLETED', outputData: output });
      return task;
    },
    async fail(type, reason, status = 'FAILED') {
      const task = await poll(type);
      await result(task, { status, reasonForIncompletion: reason, outputData: {} });
      return task;
    },
    async completeById(runId, taskId) {
      await result({ taskId, workflowInstanceId: runId }, { status: 'COMPLETED' });
    },
    async withTaskDef(name, change, fn) {
      const original = scenarioTaskDefs().find((def) => def.name === name);
      assert.ok(original, name);
      const changed = await call(t().app, 'PUT', '/api/metadata/taskdefs', { ...original, ...change });
      assert.equal(changed.status, 200, changed.text);
      try {
        await fn();
      } finally {
        const restored = await call(t().app, 'PUT', '/api/metadata/taskdefs', original);
        assert.equal(restored.status, 200, restored.text);
      }
    },
  };
}

/** A worker task of type `name` with reference `ref`. */
export const worker = (name: string, ref: string, inputParameters?: Record<string, unknown>) => ({
  name,
  taskReferenceName: ref,
  type: 'SIMPLE',
  ...(inputParameters && { inputParameters }),
});

/** A task of `type` named and referenced `ref`, with the kind's other fields. */
export const task = (type: string, ref: string, fields: Record<string, unknown> = {}) => ({
  name: ref,
  taskReferenceName: ref,
  type,
  ...fields,
});
