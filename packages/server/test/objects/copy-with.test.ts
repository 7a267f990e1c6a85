import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import v8 from 'node:v8';

import type { TaskRecord } from '@baton/protocol';

import { copyWith } from '../../src/copy-with.js';
import { handedOut } from '../../src/handout/direct-hand-off.js';
import { runFromColumns, taskDefFromColumns, workflowDefFromColumns } from '../../src/store/sql-common.js';
import {
  CLEAR_FIELDS,
  PG_CLEAR_FIELDS,
  storedTaskParts,
  storedTaskRecord,
  taskFromRow,
} from '../../src/store/task-record-storage.js';
import { taskFromPgRow } from '../../src/store-postgres/task-rows.js';
import { task as taskOf, taskRowColumns } from '../store/fixtures.js';

/**
 * Copies made on every step keep one hidden class per shape (src/copy-with.ts): two copies of
 * objects of one shape, changed in the same fields, share their map. V8's own answer, through its
 * natives syntax (allowed here for this check only).
 */
v8.setFlagsFromString('--allow-natives-syntax');
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- natives syntax parses only in a function made at run time.
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- as above.
const fastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

/** Objects of one shape, each made the way a store read makes them (parsed JSON). */
const parsed = <T>(value: T, n: number): T[] =>
  Array.from({ length: n }, () => JSON.parse(JSON.stringify(value)) as T);

/**
 * Every result of `make` over `inputs`, checked to share the first one's map and to keep fast
 * properties (a dictionary's map is shared too, so the first check alone would pass it).
 */
function assertOneShape<I, O extends object>(inputs: readonly I[], make: (input: I, i: number) => O): void {
  const made = inputs.map(make);
  const [first, ...rest] = made;
  assert.ok(first);
  made.forEach((o, i) => assert.ok(fastProperties(o), `copy ${i} is a dictionary`));
  rest.forEach((o, i) => assert.ok(sameMap(first, o), `copy ${i + 1} has a hidden class of its own`));
}

/** A record of `n` fields, `field0` … (values of every JSON kind). */
function record(n: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) out[`field${i}`] = i % 3 === 0 ? i : i % 3 === 1 ? `v${i}` : { i };
  return out;
}

void describe('copies that keep one shape', () => {
  void it('checks what it says: objects of two shapes do not share a map', () => {
    assert.equal(sameMap({ a: 1 }, { b: 1 }), false);
    assert.equal(sameMap({ a: 1 }, { a: 2 }), true);
  });

  void it('copyWith: copies changed in the same fields share one map, fields added included', () => {
    const base = { taskId: 't', status: 'SCHEDULED', pollCount: 0 };
    assertOneShape(parsed(base, 50), (o, i) =>
      copyWith<Record<string, unknown>>(o, { status: 'DONE', endTime: i }),
    );
  });

  void it('copyWith: records of any size keep one shape and fast properties, fields added or not', () => {
    for (const n of [1, 8, 16, 17, 30, 60]) {
      assertOneShape(parsed(record(n), 20), (o, i) => copyWith(o, { field0: i }));
      assertOneShape(parsed(record(n), 20), (o, i) => copyWith(o, { field0: i, added: i, also: { i } }));
    }
  });

  void it('copyWith: the copy is the spread’s, field for field and in its order', () => {
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{}, {}],
      [{}, { a: 1 }],
      [{ a: 1 }, {}],
      [
        { a: 1, b: 2 },
        { b: 3, c: 4 },
      ],
      [
        { 2: 'two', b: 1, 1: 'one' },
        { 0: 'zero', b: 2, z: 26 },
      ],
      [record(40), { field39: 'last', extra: null, field0: undefined }],
    ];
    for (const [base, changes] of cases) {
      const copy = copyWith(base, changes);
      assert.deepEqual(Object.entries(copy), Object.entries({ ...base, ...changes }));
      assert.notEqual(copy, base);
    }
    // An own symbol key and an inherited field: copied and left as a spread copies and leaves them.
    const tag = Symbol('tag');
    const withSymbol = { [tag]: 1, a: 1 };
    assert.equal(copyWith(withSymbol, { a: 2 })[tag], 1);
    const inherited = Object.assign(Object.create({ fromProto: 1 }) as Record<string, unknown>, { own: 1 });
    assert.deepEqual(Object.keys(copyWith(inherited, { more: 2 })), ['own', 'more']);
  });

  void it('copyWith: an own __proto__ key stays a field of the copy, as a spread keeps it', () => {
    const base = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = copyWith(base, { b: 2 });
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(Object.keys(copy), ['__proto__', 'a', 'b']);
    assert.equal((copy as { polluted?: unknown }).polluted, undefined);
    assert.equal(JSON.stringify(copy), '{"__proto__":{"polluted":true},"a":1,"b":2}');
    const changed = copyWith<Record<string, unknown>>({ a: 1 }, JSON.parse('{"__proto__": 5}') as object);
    assert.deepEqual(Object.keys(changed), ['a', '__proto__']);
  });

  void it('a direct hand-off’s task, a run and a task definition read back keep one shape', () => {
    // The fields a scheduled task's record has (the hand-off reads pollCount and startTime).
    const task = {
      taskId: 'a',
      workflowInstanceId: 'r',
      referenceTaskName: 'a',
      taskType: 'work',
      status: 'SCHEDULED',
      seq: 1,
      pollCount: 0,
      scheduledTime: 1_000,
      startTime: 0,
      endTime: 0,
      updateTime: 1_000,
      inputData: { n: 1 },
      outputData: {},
    } as unknown as TaskRecord;
    assertOneShape(parsed(task, 50), (t, i) => handedOut(t, `w${i}`, 1_000 + i));
    const record = { workflowId: 'r', status: 'RUNNING', input: { n: 1 }, output: {} };
    const definition = { name: 'wf', version: 1, tasks: [] };
    assertOneShape(parsed(record, 50), (r) => runFromColumns(r as never, definition as never));
    assertOneShape(parsed({ name: 'td', retryCount: 1 }, 50), (d, i) => taskDefFromColumns(d as never, i, i));
  });

  void it('a task read back from its row, on either dialect, packed or whole, keeps one shape', () => {
    // A task of 26 fields, as a finished step of the bench's workflow has them.
    const tasks = Array.from({ length: 20 }, (_, i) =>
      taskOf('run-1', i + 1, {
        status: 'COMPLETED',
        executed: true,
        workerId: 'w',
        endTime: 2_000 + i,
        outputData: { data: 'y' },
        correlationId: 'c',
        queueName: 'resize',
      }),
    );
    const columns = taskRowColumns;
    assertOneShape(tasks, (t) => taskFromRow({ ...columns(t), record: storedTaskRecord(t) }));
    assertOneShape(tasks, (t) => {
      const { record, packed } = storedTaskParts(t, CLEAR_FIELDS);
      return taskFromRow({ ...columns(t), record, packed });
    });
    assertOneShape(tasks, (t) => {
      const { clear, packed } = storedTaskParts(t, PG_CLEAR_FIELDS);
      return taskFromPgRow({ ...columns(t), record: JSON.parse(JSON.stringify(clear)) as never, packed });
    });
    assertOneShape(tasks, (t) =>
      taskFromPgRow({
        ...columns(t),
        record: JSON.parse(storedTaskRecord(t)) as Record<string, unknown>,
        packed: null,
      }),
    );
  });

  void it('a workflow definition of many fields read back keeps one shape', () => {
    const definition: Record<string, unknown> = { name: 'wf', ...record(24) };
    assertOneShape(parsed(definition, 20), (d, i) => workflowDefFromColumns(d as never, 1, i, i));
  });
});
