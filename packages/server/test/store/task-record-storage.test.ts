import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { TaskRecord } from '@baton/protocol';

import {
  STORED_DEFAULTS,
  type StoredTaskRow,
  storedTaskRecord,
  taskFromRow,
} from '../../src/store/task-record-storage.js';
import { task } from './fixtures.js';

/** The row a store writes for `t`: its columns and its compact record. */
function rowOf(t: TaskRecord, record = storedTaskRecord(t)): StoredTaskRow {
  return {
    task_id: t.taskId,
    workflow_id: t.workflowInstanceId,
    seq: t.seq,
    reference_task_name: t.referenceTaskName,
    task_type: t.taskType,
    status: t.status,
    update_time: t.updateTime,
    record,
  };
}

void describe('compact task records (store/task-record-storage.ts)', () => {
  void it('leave out the columns and the usual values, and read back exactly what was written', () => {
    const t = task('run-1', 3, { executed: true, outputData: { n: 1 } });
    const stored = JSON.parse(storedTaskRecord(t)) as Record<string, unknown>;
    for (const field of [
      'taskId',
      'workflowInstanceId',
      'seq',
      'status',
      'referenceTaskName',
      'taskType',
      'updateTime',
    ])
      assert.equal(field in stored, false, `${field} is a column`);
    for (const field of Object.keys(STORED_DEFAULTS))
      assert.equal(field in stored, false, `${field} holds its usual value`);
    assert.equal('taskDefName' in stored, false, 'taskDefName equals the task type');
    assert.deepEqual(taskFromRow(rowOf(t)), t);
  });

  void it('keep every value that differs from the usual one, and executed false for the decide set', () => {
    const t = task('run-1', 4, {
      retryCount: 2,
      pollCount: 5,
      startDelayInSeconds: 3,
      callbackAfterSeconds: 7,
      workflowPriority: 9,
      iteration: 1,
      retried: true,
      executed: false,
      taskDefName: 'other_def',
      reasonForIncompletion: 'why',
    });
    const stored = JSON.parse(storedTaskRecord(t)) as Record<string, unknown>;
    assert.equal(stored.executed, false);
    assert.equal(stored.taskDefName, 'other_def');
    assert.deepEqual(taskFromRow(rowOf(t)), t);
  });

  void it('read a record stored whole (by an earlier release) the same', () => {
    const t = task('run-1', 5, { status: 'COMPLETED', executed: true, retried: false });
    assert.deepEqual(taskFromRow(rowOf(t, JSON.stringify(t))), t);
  });
});
