import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { WorkflowDef } from '@baton/protocol';

import { systemClock } from '../../src/clock.js';
import type { EngineSettings } from '../../src/engine/index.js';
import { noScripts } from '../../src/engine/scripts.js';
import { asyncScripts } from '../../src/scripting/async-scripts.js';
import { afterCommit, DecisionApplier } from '../../src/decisions/decision-applier.js';
import { renewAttempt } from '../../src/decisions/after-commit.js';
import { storeSuite } from '../helpers/store-suite.js';
import { storeCases } from '../helpers/stores.js';

/**
 * A decision that throws (a fault of the engine, or data it cannot handle) would throw again on
 * every attempt of the same event, and its run would stay RUNNING for good. On both stores, with
 * the interpreter made to throw through its settings (the one input the test can break without
 * reaching into the engine), the run fails with the error as its reason instead, its open tasks
 * canceled and its timers gone, and the fault is reported once, when its transaction has
 * committed (`afterCommitted`): an attempt that rolled back reports nothing.
 */

/** Engine settings whose byte bound throws while `armed`: read when a task's input is checked. */
function breakableSettings(): { settings: EngineSettings; arm(on: boolean): void } {
  let armed = false;
  const settings: EngineSettings = {
    highPriorityThreshold: 50,
    maxForkBranches: 10_000,
    get maxOutputBytes(): number {
      if (armed) throw new TypeError('a bug in the interpreter');
      return 64 * 1024 * 1024;
    },
  };
  return { settings, arm: (on) => (armed = on) };
}

/** These tests queue no worker to wake. */
const noWake = { wake: (): void => undefined };

const definition: WorkflowDef = {
  name: 'faulted',
  version: 1,
  timeoutSeconds: 3600,
  timeoutPolicy: 'TIME_OUT_WF',
  tasks: [
    { name: 'first', taskReferenceName: 'first', type: 'SIMPLE' },
    { name: 'second', taskReferenceName: 'second', type: 'SIMPLE' },
  ],
  createTime: 0,
  updateTime: 0,
};

for (const c of storeCases()) {
  void describe(`a decision that throws fails its run (${c.name})`, () => {
    const { store } = storeSuite(c);
    const { settings, arm } = breakableSettings();
    const faults: Array<{ workflowId: string; event: string; error: unknown }> = [];
    const executor = new DecisionApplier(
      systemClock,
      settings,
      asyncScripts(noScripts),
      Math.random,
      undefined,
      undefined,
      { onFault: (workflowId, event, error) => faults.push({ workflowId, event, error }) },
    );

    void it('fails the run with the error, cancels its open task and its timers, and reports it once', async () => {
      const run = await store.transaction((tx) =>
        executor.startRun(tx, { definition, input: {}, priority: 0, taskToDomain: {} }, afterCommit()),
      );
      const first = (await store.read((tx) => tx.getRunTasks(run.workflowId)))[0];
      assert.ok(first);
      assert.ok((await store.read((tx) => tx.nextTimerDueAt())) !== undefined, 'the run timeout is armed');
      arm(true);
      const committed = afterCommit();
      try {
        // Completing `first` schedules `second`, whose input check reads the broken setting.
        await store.transaction((tx) =>
          executor.handle(
            tx,
            run.workflowId,
            {
              type: 'TASK_RESULT',
              result: { taskId: first.taskId, workflowInstanceId: run.workflowId, status: 'COMPLETED' },
            },
            committed,
          ),
        );
      } finally {
        arm(false);
      }
      assert.equal(faults.length, 0, 'nothing is reported before the commit is known');
      executor.afterCommitted(committed, noWake);
      const after = await store.read((tx) => tx.getRun(run.workflowId));
      assert.equal(after?.status, 'FAILED');
      assert.equal(
        after?.reasonForIncompletion,
        'A decision on this run failed (TASK_RESULT): TypeError: a bug in the interpreter. The run was failed so that it does not wait for good; retry it once the cause is fixed',
      );
      assert.ok(after?.endTime !== undefined);
      const tasks = await store.read((tx) => tx.getRunTasks(run.workflowId));
      assert.deepEqual(
        tasks.map((t) => [t.referenceTaskName, t.status]),
        [['first', 'CANCELED']],
        'the result that met the fault is not recorded; nothing after it was made',
      );
      assert.equal(await store.read((tx) => tx.getMessage(first.taskId)), undefined, 'off its queue');
      const timers = await store.read((tx) => tx.nextTimerDueAt());
      assert.equal(timers, undefined, 'no timer of the run is left');
      assert.equal(faults.length, 1);
      assert.equal(faults[0]?.workflowId, run.workflowId);
      assert.equal(faults[0]?.event, 'TASK_RESULT');
      assert.match(String(faults[0]?.error), /a bug in the interpreter/);
    });

    void it('a run that faults as it starts is made FAILED, not left half started', async () => {
      faults.length = 0;
      arm(true);
      let run;
      const after = afterCommit();
      try {
        run = await store.transaction((tx) =>
          executor.startRun(tx, { definition, input: {}, priority: 0, taskToDomain: {} }, after),
        );
      } finally {
        arm(false);
      }
      executor.afterCommitted(after, noWake);
      assert.equal(run.status, 'FAILED');
      const stored = await store.read((tx) => tx.getRun(run.workflowId));
      assert.equal(stored?.status, 'FAILED');
      assert.match(
        stored?.reasonForIncompletion ?? '',
        /^A decision on this run failed \(START\): TypeError/,
      );
      assert.deepEqual(await store.read((tx) => tx.getRunTasks(run.workflowId)), []);
      assert.equal(faults.length, 1);
    });

    void it('an attempt that faulted and rolled back reports nothing; the attempt that commits, its own', async () => {
      faults.length = 0;
      const input = { definition, input: {}, priority: 0, taskToDomain: {} };
      // One AfterCommit across the attempts of a transaction, as the services keep it.
      const after = afterCommit();
      arm(true);
      await assert.rejects(
        store.transaction(async (tx) => {
          renewAttempt(after);
          try {
            assert.equal((await executor.startRun(tx, input, after)).status, 'FAILED');
          } finally {
            arm(false);
          }
          throw new Error('rolled back after the decision');
        }),
        /rolled back after the decision/,
      );
      assert.equal(after.faults.length, 1, 'the attempt holds its fault until it commits');
      // The transaction run again, as a retried one is; this attempt does not fault.
      const run = await store.transaction(async (tx) => {
        renewAttempt(after);
        return executor.startRun(tx, input, after);
      });
      executor.afterCommitted(after, noWake);
      assert.equal(run.status, 'RUNNING');
      assert.equal(faults.length, 0, "the rolled-back attempt's fault is not reported");
    });
  });
}
