import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { type PendingWrite, combine, mergeWrites } from '../../src/store-postgres/merge-writes.js';
import { SQL } from '../../src/store-postgres/sql.js';

/** A task write's parameters: the records, then the decide set's latest rows. */
const rowsOf = (run: string, ids: string[]): unknown[] => [
  JSON.stringify(ids.map((taskId) => ({ taskId }))),
  ids.map(() => run),
  ids.map((id) => `ref_${id}`),
  ids.map(() => 1),
  ids,
];
const insert = (run: string, ids: string[]): PendingWrite => ({
  sql: SQL.insertTasks,
  values: rowsOf(run, ids),
});
const update = (run: string, ids: string[]): PendingWrite => ({
  sql: SQL.updateTasks,
  values: [...rowsOf(run, ids), ids.length, ids],
});
const remove = (ids: string[]): PendingWrite => ({ sql: SQL.removeMessages, values: [ids] });
const other = (text: string): PendingWrite => ({ sql: text, values: [] });
const names = (ws: readonly PendingWrite[]): string[] =>
  ws.map((w) => (typeof w.sql === 'string' ? w.sql : w.sql.name));

void describe('merging the deferred writes of a group commit', () => {
  void it('makes the same statement of several members one, rows and counts joined', () => {
    const merged = mergeWrites([[update('r1', ['a'])], [update('r2', ['b', 'c'])]]);
    assert.equal(merged.length, 1);
    const [w] = merged;
    assert.deepEqual(w?.values, [
      '[{"taskId":"a"},{"taskId":"b"},{"taskId":"c"}]',
      ['r1', 'r2', 'r2'],
      ['ref_a', 'ref_b', 'ref_c'],
      [1, 1, 1],
      ['a', 'b', 'c'],
      3,
      ['a', 'b', 'c'],
    ]);
  });

  void it('keeps the keys of a delete sorted and unique, so locks are taken in one order', () => {
    const [w] = mergeWrites([[remove(['m', 'z'])], [remove(['b', 'm'])]]);
    assert.deepEqual(w?.values, [['b', 'm', 'z']]);
  });

  void it('keeps every member’s own order, merging along their common statements', () => {
    const a = [other('BEGIN'), insert('r1', ['a']), update('r1', ['a']), other('UPDATE runs r1')];
    const b = [update('r2', ['x']), insert('r2', ['y']), update('r2', ['y'])];
    const merged = mergeWrites([a, b]);
    assert.deepEqual(names(merged), [
      'BEGIN',
      'baton_update_tasks',
      'baton_insert_tasks',
      'baton_update_tasks',
      'UPDATE runs r1',
    ]);
    // a's insert precedes a's update; b's first update stays before b's insert.
    const rowsOf = (w: PendingWrite | undefined) => w?.values.at(-1);
    assert.deepEqual(rowsOf(merged[1]), ['x']);
    assert.deepEqual(merged[2]?.values[4], ['a', 'y']);
    assert.deepEqual(rowsOf(merged[3]), ['a', 'y']);
  });

  void it('never merges two writes that would touch one row twice in a statement', () => {
    // One run's latest task of a name, written by both: ON CONFLICT cannot update it twice.
    assert.equal(combine(insert('r1', ['a']), insert('r1', ['a'])), undefined);
    assert.equal(combine(update('r1', ['a']), update('r2', ['a'])), undefined);
    const merged = mergeWrites([[update('r1', ['a'])], [update('r1', ['a'])]]);
    assert.equal(merged.length, 2, 'both kept, in order');
  });

  void it('merges a large batch in member order, a member that would write a row twice kept apart', () => {
    const member = (i: number): PendingWrite[] => [
      update(`r${i}`, [`u${i}`]),
      insert(`r${i}`, [`t${i}`]),
      remove([`m${40 - i}`]),
    ];
    const lists = Array.from({ length: 40 }, (_, i) => member(i));
    // Member 40 updates member 7's task again: its update may not join, its insert and delete may.
    lists.push([update('r7', ['u7']), insert('r40', ['t40']), remove(['m0'])]);
    const merged = mergeWrites(lists);
    assert.deepEqual(names(merged), [
      'baton_update_tasks',
      'baton_update_tasks',
      'baton_insert_tasks',
      'baton_remove_messages',
    ]);
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i);
    assert.deepEqual(
      merged[0]?.values[4],
      ids(40).map((i) => `u${i}`),
    );
    assert.equal(merged[0]?.values[5], 40, 'the counts added');
    assert.deepEqual(merged[1]?.values[4], ['u7'], 'the repeated row in a statement of its own');
    assert.deepEqual(
      merged[2]?.values[4],
      ids(41).map((i) => `t${i}`),
    );
    assert.equal(merged[2]?.values[0], JSON.stringify(ids(41).map((i) => ({ taskId: `t${i}` }))));
    assert.deepEqual(
      merged[3]?.values[0],
      ids(41)
        .map((i) => `m${i}`)
        .sort(),
    );
  });

  void it('leaves statements it does not know as they are', () => {
    const merged = mergeWrites([[other('DELETE FROM timers 1')], [other('DELETE FROM timers 1')]]);
    assert.equal(merged.length, 2);
    assert.equal(mergeWrites([]).length, 0);
    assert.deepEqual(names(mergeWrites([[], [other('x')]])), ['x']);
  });

  void it('joins JSON arrays, empty ones included, without parsing them', () => {
    const empty: PendingWrite = { sql: SQL.insertTasks, values: ['[]', [], [], [], []] };
    const [w] = mergeWrites([[empty], [insert('r2', ['b'])]]);
    assert.deepEqual(w?.values[0], '[{"taskId":"b"}]');
  });
});
