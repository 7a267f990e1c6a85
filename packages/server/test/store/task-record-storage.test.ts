import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { TaskRecord } from '@baton/protocol';

import {
  STORED_DEFAULTS,
  recentRowsHeld,
  storedTaskParts,
  type StoredTaskRow,
  storedTaskRecord,
  taskFromRow,
} from '../../src/store/task-record-storage.js';
import { packRecord } from '../../src/store/record-codec.js';
import { taskFromPgRow } from '../../src/store-postgres/task-rows.js';
import { task, taskRowColumns } from './fixtures.js';

/**
 * A packed row as PostgreSQL reads it back for `t`: its columns, the clear part parsed (jsonb) and
 * the packed bytes.
 */
function pgRead(t: TaskRecord, clear: Readonly<Record<string, unknown>>, packed: Uint8Array): TaskRecord {
  return taskFromPgRow({ ...taskRowColumns(t), record: { ...clear }, packed: Buffer.from(packed) });
}

/** The row a store writes for `t`: its columns and its compact record. */
function rowOf(t: TaskRecord, record = storedTaskRecord(t)): StoredTaskRow {
  return { ...taskRowColumns(t), record };
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

  // A row is read back soon after it is written, from the node's copy when it has one; the copies
  // are bounded by their bytes, so large outputs cannot pile up in the node's memory.
  void it('keeps copies of written rows within a byte budget, and none of a row too large for it', () => {
    const large = 'y'.repeat(recentRowsHeld().maxRowBytes);
    const t = task('run-large', 1, { status: 'COMPLETED', outputData: { large } });
    const parts = storedTaskParts(t);
    const before = recentRowsHeld();
    assert.deepEqual(pgRead(t, parts.clear, parts.packed).outputData, { large }, 'read back whole, unpacked');
    for (let i = 0; i < 30; i++) storedTaskParts(task(`run-large-${i}`, 1, { outputData: { large } }));
    assert.deepEqual(recentRowsHeld().rows, before.rows, 'no large row kept');
    for (let i = 0; i < 20_000; i++) storedTaskParts(task(`run-small-${i}`, 1, { outputData: { i } }));
    const held = recentRowsHeld();
    assert.ok(held.bytes <= held.budgetBytes, `${held.bytes} bytes held, budget ${held.budgetBytes}`);
    assert.ok(held.rows > 4_096, `${held.rows} small rows kept`);
    const last = task('run-small-19999', 1, { outputData: { i: 19_999 } });
    const lastParts = storedTaskParts(last);
    assert.deepEqual(pgRead(last, lastParts.clear, lastParts.packed).outputData, { i: 19_999 });
  });

  // The node keeps what the packed bytes it wrote unpack to; the clear part is always the row's own.
  void it('read the clear part from the row even when SQL changed it, and unpack bytes it did not write', () => {
    const t = task('run-clear', 2, { status: 'IN_PROGRESS', workerId: 'w1', outputData: { kept: true } });
    const parts = storedTaskParts(t);
    const row = { ...rowOf(t, parts.record), packed: parts.packed };
    assert.deepEqual(taskFromRow(row), t, 'read back as written');
    // A claim in SQL rewrote a clear field; the packed rest is the remembered one.
    const clear = JSON.parse(parts.record) as Record<string, unknown>;
    const changed = Object.keys(clear).find((k) => typeof clear[k] === 'number');
    assert.ok(changed !== undefined, `a numeric clear field among ${parts.record}`);
    const edited = { ...clear, [changed]: 12_345 };
    const read = taskFromRow({ ...row, record: JSON.stringify(edited) }) as unknown as Record<
      string,
      unknown
    >;
    assert.equal(read[changed], 12_345, 'the clear part as the row holds it (SQLite)');
    assert.deepEqual(read.outputData, { kept: true });
    const fromPg = pgRead(t, edited, parts.packed) as unknown as Record<string, unknown>;
    assert.equal(fromPg[changed], 12_345, 'the clear part as the row holds it (PostgreSQL)');
    assert.deepEqual(fromPg.outputData, { kept: true });
    // Another node wrote the row since: its bytes differ, and they are what is read.
    const elsewhere = packRecord(JSON.stringify({ outputData: { other: 1 } }));
    assert.deepEqual(taskFromRow({ ...row, packed: elsewhere }).outputData, { other: 1 });
    assert.deepEqual(pgRead(t, clear, elsewhere).outputData, { other: 1 });
  });

  // Every decision on a run reads every task it has made, so a row is parsed once and its fields
  // shared by every later read: each read's top is its own, what is inside is frozen.
  void it('share the fields of a kept row between reads, frozen, with a top of their own each', () => {
    const t = task('run-shared', 3, {
      status: 'COMPLETED',
      inputData: { list: [{ deep: 1 }] },
      outputData: { answer: { n: 42 } },
    });
    const parts = storedTaskParts(t);
    const row = { ...rowOf(t, parts.record), packed: parts.packed };
    const first = taskFromRow(row);
    const second = taskFromRow(row);
    assert.deepEqual(first, t, 'SQLite: read back as written');
    assert.deepEqual(pgRead(t, parts.clear, parts.packed).outputData, t.outputData);
    assert.equal(first.outputData, second.outputData, 'parsed once, shared');
    assert.ok(Object.isFrozen(first.outputData) && Object.isFrozen(first.outputData.answer));
    assert.ok(Object.isFrozen(first.inputData.list), 'arrays too');
    assert.throws(() => {
      (first.outputData as Record<string, unknown>).answer = 0;
    }, TypeError);
    first.outputData = { replaced: true };
    first.status = 'FAILED';
    assert.deepEqual(taskFromRow(row), t, 'a read that set its own fields changed no other read');
    // Bytes this process did not write last are parsed for the read alone: the caller's to change.
    const elsewhere = packRecord(JSON.stringify({ outputData: { other: { n: 1 } } }));
    const own = taskFromRow({ ...row, packed: elsewhere });
    assert.equal(Object.isFrozen(own.outputData), false);
  });
});
