import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import v8 from 'node:v8';

import type { TaskRecord } from '@baton/protocol';

import { copyWith } from '../../src/copy-with.js';
import { handedOut } from '../../src/handout/direct-hand-off.js';
import { runFromColumns, taskDefFromColumns } from '../../src/store/sql-common.js';

/**
 * Copies made on every step keep one hidden class per shape (src/copy-with.ts): two copies of
 * objects of one shape, changed in the same fields, share their map. V8's own answer, through its
 * natives syntax (allowed here for this check only).
 */
v8.setFlagsFromString('--allow-natives-syntax');
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- natives syntax parses only in a function made at run time.
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/** Objects of one shape, each made the way a store read makes them (parsed JSON). */
const parsed = <T>(value: T, n: number): T[] =>
  Array.from({ length: n }, () => JSON.parse(JSON.stringify(value)) as T);

/** Every result of `make` over `inputs`, checked to share the first one's map. */
function assertOneShape<I, O extends object>(inputs: readonly I[], make: (input: I, i: number) => O): void {
  const made = inputs.map(make);
  const [first, ...rest] = made;
  assert.ok(first);
  rest.forEach((o, i) => assert.ok(sameMap(first, o), `copy ${i + 1} has a hidden class of its own`));
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
});
