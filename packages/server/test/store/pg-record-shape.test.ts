import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { TaskRecord } from '@baton/protocol';

import { isTaskRecordShape, taskRowsJson } from '../../src/store-postgres/record-shape.js';
import { taskFromPgRow } from '../../src/store-postgres/task-rows.js';
import { unpackRecord } from '../../src/store/record-codec.js';
import { PG_CLEAR_FIELDS } from '../../src/store/task-record-storage.js';
import { task } from './fixtures.js';

// What PostgreSQL's task writes send (store-postgres/record-shape.ts), without a database: each
// packed element holds the row's columns, the clear part and the packed rest, and a row made of
// them reads back as the task, whether the read finds it among the recent writes or unpacks it.

interface Element {
  taskId: string;
  workflowInstanceId: string;
  seq: number;
  referenceTaskName: string;
  taskType: string;
  status: string;
  updateTime: number;
  r: Record<string, unknown>;
  p: string;
}

function tasks(): TaskRecord[] {
  return [
    task('run-1', 1, {
      status: 'COMPLETED',
      workerId: 'w "quoted" \\ 🎉',
      scheduledTime: 10,
      startTime: 20,
      endTime: 30,
      inputData: { note: 'crème' },
      outputData: { list: [1, 2, 3] },
      reasonForIncompletion: 'line\nbreak',
    }),
    task('run-1', 2, { status: 'FAILED', executed: false, retryCount: 2 }),
  ];
}

void describe('PostgreSQL task rows as written (store-postgres/record-shape.ts)', () => {
  void it('whole: the tasks themselves', () => {
    const written = tasks();
    assert.deepEqual(JSON.parse(taskRowsJson(written, 'whole')), written);
  });

  void it('packed: the columns, the clear part and the packed rest, which read back as the task', () => {
    const written = tasks();
    const elements = JSON.parse(taskRowsJson(written, 'packed')) as Element[];
    assert.equal(elements.length, written.length);
    elements.forEach((e, i) => {
      const t = written[i];
      assert.ok(t);
      assert.deepEqual(
        [e.taskId, e.workflowInstanceId, e.seq, e.referenceTaskName, e.taskType, e.status, e.updateTime],
        [t.taskId, t.workflowInstanceId, t.seq, t.referenceTaskName, t.taskType, t.status, t.updateTime],
      );
      for (const field of Object.keys(e.r))
        assert.ok(PG_CLEAR_FIELDS.has(field), `${field} is kept in clear`);
      const rest = JSON.parse(unpackRecord(Buffer.from(e.p, 'base64'), 'test')) as Record<string, unknown>;
      for (const field of Object.keys(rest)) assert.ok(!PG_CLEAR_FIELDS.has(field), `${field} is packed`);
      const row = {
        task_id: e.taskId,
        workflow_id: e.workflowInstanceId,
        seq: e.seq,
        reference_task_name: e.referenceTaskName,
        task_type: e.taskType,
        status: e.status,
        update_time: e.updateTime,
        record: e.r,
        packed: Buffer.from(e.p, 'base64'),
      };
      // Found among the recent writes …
      assert.deepEqual(taskFromPgRow({ ...row, record: { ...row.record } }), t);
      // … and not: a clear part that differs from the one remembered is unpacked and merged.
      const moved = taskFromPgRow({ ...row, record: { ...row.record, workerId: 'another' } });
      assert.deepEqual(moved, { ...t, workerId: 'another' });
    });
  });

  void it('knows the shapes by name, and nothing else', () => {
    assert.ok(isTaskRecordShape('whole'));
    assert.ok(isTaskRecordShape('packed'));
    for (const other of ['compact', 'WHOLE', '', undefined, 1]) assert.ok(!isTaskRecordShape(other));
  });
});
