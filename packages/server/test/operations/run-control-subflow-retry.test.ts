import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import type { RunRecord, TaskRecord, WorkflowDef, WorkflowTask } from '@baton/protocol';

import { newRunRecord } from '../../src/engine/new-run.js';
import { appSuite } from '../helpers/app-suite.js';
import { storeCases } from '../helpers/stores.js';
import { RunDriver } from './run-control-driver.js';

/**
 * Retry reaches into sub-workflows: a failed SUB_WORKFLOW task whose child run failed is not
 * started over; the child is retried (reusing its completed tasks) and the parent's new run
 * waits on that retried child. The runs are written straight into the store, as a parent and
 * child that failed would have left them.
 */
const T0 = Date.UTC(2026, 0, 1);

function task(
  run: RunRecord,
  node: WorkflowTask,
  seq: number,
  status: TaskRecord['status'],
  extra: Partial<TaskRecord> = {},
): TaskRecord {
  return {
    taskId: `${run.workflowId}-t${seq}`,
    workflowInstanceId: run.workflowId,
    workflowType: run.workflowName,
    taskType: node.type === 'SIMPLE' ? node.name : String(node.type),
    taskDefName: node.name,
    referenceTaskName: node.taskReferenceName,
    status,
    seq,
    retryCount: 0,
    inputData: {},
    outputData: {},
    pollCount: 1,
    scheduledTime: T0,
    startTime: T0,
    endTime: T0 + 1,
    updateTime: T0 + 1,
    startDelayInSeconds: 0,
    callbackAfterSeconds: 0,
    responseTimeoutSeconds: 60,
    retried: false,
    executed: true,
    workflowPriority: 0,
    iteration: 0,
    workflowTask: node,
    ...extra,
  };
}

for (const storeCase of storeCases()) {
  describe(`retry into a failed sub-workflow on ${storeCase.name}`, () => {
    let d: RunDriver;
    const t = appSuite(storeCase);
    before(() => {
      d = new RunDriver(t.app);
    });

    it('retries the child from its failed task and makes the parent wait on it', async () => {
      const x: WorkflowTask = { name: 'sw_x', taskReferenceName: 'x', type: 'SIMPLE' };
      const y: WorkflowTask = {
        name: 'sw_y',
        taskReferenceName: 'y',
        type: 'SIMPLE',
        inputParameters: { fromX: '${x.output.v}' },
      };
      const childDef: WorkflowDef = { name: 'sw_child', version: 1, tasks: [x, y] };
      const a: WorkflowTask = { name: 'sw_a', taskReferenceName: 'a', type: 'SIMPLE' };
      const sub: WorkflowTask = {
        name: 'sub',
        taskReferenceName: 'sub',
        type: 'SUB_WORKFLOW',
        subWorkflowParam: { name: 'sw_child', version: 1 },
      };
      const parentDef: WorkflowDef = { name: 'sw_parent', version: 1, tasks: [a, sub] };
      const base = { input: {}, priority: 0, taskToDomain: {}, now: T0 };
      const parent: RunRecord = {
        ...newRunRecord({ ...base, workflowId: 'sw-parent', definition: parentDef }),
        status: 'FAILED',
        endTime: T0 + 2,
      };
      const child: RunRecord = {
        ...newRunRecord({
          ...base,
          workflowId: 'sw-child',
          definition: childDef,
          parentWorkflowId: 'sw-parent',
          parentWorkflowTaskId: 'sw-parent-t2',
        }),
        status: 'FAILED',
        endTime: T0 + 2,
      };
      await t.store.transaction(async (tx) => {
        await tx.insertRun(parent);
        await tx.insertRun(child);
        await tx.insertTasks([
          task(parent, a, 1, 'COMPLETED', { outputData: { done: 'a' } }),
          task(parent, sub, 2, 'FAILED', {
            subWorkflowId: 'sw-child',
            outputData: { subWorkflowId: 'sw-child' },
          }),
          task(child, x, 1, 'COMPLETED', { outputData: { v: 'kept' } }),
          task(child, y, 2, 'FAILED', { reasonForIncompletion: 'boom' }),
        ]);
      });

      const newParentId = (await d.ok('POST', '/api/workflow/sw-parent/retry')).text;
      const newParent = await d.run(newParentId);
      assert.deepEqual(
        newParent.tasks.map((x: any) => [x.referenceTaskName, x.status]),
        [
          ['a', 'COMPLETED'],
          ['sub', 'IN_PROGRESS'],
        ],
      );
      const subTask = newParent.tasks[1];
      const newChildId = subTask.subWorkflowId;
      assert.ok(newChildId && newChildId !== 'sw-child');
      assert.equal(subTask.outputData.subWorkflowId, newChildId);

      const newChild = await d.run(newChildId);
      assert.equal(newChild.links.retry_of, 'sw-child');
      assert.equal(newChild.parentWorkflowId, newParentId);
      assert.equal(newChild.parentWorkflowTaskId, subTask.taskId);
      assert.deepEqual((await d.run('sw-child')).links.retried_by, [newChildId]);
      assert.deepEqual(
        newChild.tasks.map((x: any) => [x.referenceTaskName, x.status]),
        [
          ['x', 'COMPLETED'],
          ['y', 'SCHEDULED'],
        ],
      );
      assert.deepEqual(await d.poll('sw_x'), [], 'the child’s completed task is not run again');
      const yTask = await d.pollOne('sw_y');
      assert.equal(yTask.workflowInstanceId, newChildId);
      assert.deepEqual(yTask.inputData, { fromX: 'kept' });
      await d.result(yTask, 'COMPLETED', {});
      assert.equal(await d.status(newChildId), 'COMPLETED');
    });
  });
}
