import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { Store } from '../../src/store/store.js';
import { call, testApp } from '../helpers/app.js';
import { workflowDef } from '../helpers/definitions.js';
import { overridingTx } from '../helpers/store-proxy.js';
import { storeCases } from '../helpers/stores.js';

/**
 * A decision loads only the decide set (open tasks, ended tasks not yet acted on, the latest of
 * each expression name). This runs a long loop with a fork, inline steps and retries inside on
 * the real routes twice, once as shipped and once on a store whose decide set is every task of
 * the run (what decisions loaded before), and asserts both runs end the same.
 */

// 100 iterations are some 500 tasks with two retried failures: no decide-set rule depends on the
// run's size, so more iterations only repeat the same decisions.
const ITERATIONS = 100;

const definition = workflowDef(
  'ds_loop',
  [
    {
      name: 'loop',
      taskReferenceName: 'loop',
      type: 'DO_WHILE',
      loopCondition: `$.loop['iteration'] < ${ITERATIONS}`,
      loopOver: [
        {
          name: 'fork',
          taskReferenceName: 'fork',
          type: 'FORK_JOIN',
          forkTasks: [
            [
              {
                name: 'ds_work',
                taskReferenceName: 'a',
                type: 'SIMPLE',
                inputParameters: { i: '${loop.output.iteration}' },
              },
            ],
            [
              {
                name: 'b',
                taskReferenceName: 'b',
                type: 'INLINE',
                inputParameters: {
                  evaluatorType: 'javascript',
                  expression: '$.i * 2',
                  i: '${loop.output.iteration}',
                },
              },
              {
                name: 'ds_work',
                taskReferenceName: 'b2',
                type: 'SIMPLE',
                inputParameters: { i: '${b.output.result}' },
              },
            ],
          ],
        },
        { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['a', 'b2'] },
        {
          name: 'c',
          taskReferenceName: 'c',
          type: 'INLINE',
          inputParameters: {
            evaluatorType: 'javascript',
            expression: '$.a + $.b2',
            a: '${a.output.v}',
            b2: '${b2.output.v}',
          },
        },
      ],
    },
    {
      name: 'last',
      taskReferenceName: 'last',
      type: 'INLINE',
      inputParameters: { evaluatorType: 'javascript', expression: '$.c', c: '${c.output.result}' },
    },
  ],
  { last: '${last.output.result}', iterations: '${loop.output.iteration}', a: '${a.output.v}' },
);

/** The store as decisions saw it before the decide set: every task of the run. */
function loadingEverything(store: Store): Store {
  return overridingTx(store, (tx) => ({ getDecideTasks: (workflowId) => tx.getRunTasks(workflowId) }));
}

/** Runs the loop to its end with a worker that fails the first attempt of every 50th `a`. */
async function runLoop(store: Store): Promise<any> {
  const t = await testApp(store);
  try {
    const defs = await call(t.app, 'POST', '/api/metadata/taskdefs', [
      {
        name: 'ds_work',
        retryCount: 1,
        retryDelaySeconds: 0,
        totalTimeoutSeconds: 3600,
        responseTimeoutSeconds: 60,
        ownerEmail: 'dev@baton.test',
      },
    ]);
    assert.equal(defs.status, 200, defs.text);
    const reg = await call(t.app, 'POST', '/api/metadata/workflow', definition);
    assert.equal(reg.status, 200, reg.text);
    const started = await call(t.app, 'POST', '/api/workflow/ds_loop', { input: {} });
    assert.equal(started.status, 200, started.text);
    const id = started.text;
    for (let round = 0; round < ITERATIONS * 3; round++) {
      const polled = await call(t.app, 'GET', '/api/tasks/poll/batch/ds_work?count=10&timeout=0&workerid=w1');
      assert.equal(polled.status, 200, polled.text);
      const tasks = polled.body as any[];
      if (tasks.length === 0) break;
      for (const task of tasks) {
        const i = Number(task.inputData.i);
        const fail = task.referenceTaskName.startsWith('a__') && i % 50 === 0 && task.retryCount === 0;
        const done = await call(t.app, 'POST', '/api/tasks', {
          taskId: task.taskId,
          workflowInstanceId: task.workflowInstanceId,
          status: fail ? 'FAILED' : 'COMPLETED',
          outputData: fail ? {} : { v: i },
        });
        assert.equal(done.status, 200, done.text);
      }
    }
    const res = await call(t.app, 'GET', `/api/workflow/${id}?includeTasks=true`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  } finally {
    await t.close();
  }
}

/** What must not differ: everything but ids and times. */
function shape(run: any): unknown {
  return {
    status: run.status,
    output: run.output,
    reason: run.reasonForIncompletion,
    tasks: (run.tasks as any[]).map((task) => ({
      seq: task.seq,
      ref: task.referenceTaskName,
      type: task.taskType,
      status: task.status,
      iteration: task.iteration,
      retryCount: task.retryCount,
      retried: task.retried,
      executed: task.executed,
      input: task.taskType === 'DO_WHILE' || task.taskType === 'SIMPLE' ? task.inputData : undefined,
      output: task.outputData,
    })),
  };
}

for (const c of storeCases()) {
  void describe(`a long loop decided on the decide set (${c.name})`, () => {
    void it(`${ITERATIONS} iterations with a fork and retries end as they do with every task loaded`, async () => {
      const shipped = await c.open();
      const reference = await c.open();
      try {
        const got = await runLoop(shipped.store);
        const want = await runLoop(loadingEverything(reference.store));
        assert.equal(got.status, 'COMPLETED', JSON.stringify(got.reasonForIncompletion));
        assert.deepEqual(got.output, { last: ITERATIONS * 3, iterations: ITERATIONS, a: ITERATIONS });
        // Every 50th `a` failed once and was retried.
        assert.equal((got.tasks as any[]).filter((t) => t.status === 'FAILED').length, ITERATIONS / 50);
        assert.deepEqual(shape(got), shape(want));
      } finally {
        await shipped.cleanup();
        await reference.cleanup();
      }
    });
  });
}
