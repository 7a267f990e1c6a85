import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { WorkflowDef } from '@baton/protocol';

import { allTasks } from '../../src/engine/graph.js';

function definition(): WorkflowDef {
  return {
    name: 'tree',
    version: 1,
    tasks: [
      { name: 'a', taskReferenceName: 'a', type: 'SIMPLE' },
      {
        name: 'fork',
        taskReferenceName: 'fork',
        type: 'FORK_JOIN',
        forkTasks: [[{ name: 'b', taskReferenceName: 'b', type: 'SIMPLE' }], []],
      },
      { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['b'] },
    ],
  };
}

void describe('the tasks of a definition tree (engine/graph.ts)', () => {
  // Every decision on a run asks for them; a tree is walked once.
  void it('are walked once for each tree, in definition order, and kept frozen', () => {
    const def = definition();
    const first = allTasks(def);
    assert.deepEqual(
      first.map((t) => t.taskReferenceName),
      ['a', 'fork', 'b', 'join'],
    );
    assert.equal(allTasks(def), first, 'the same tree answers the kept list');
    assert.ok(Object.isFrozen(first));
    const other = definition();
    other.tasks = [...other.tasks, { name: 'c', taskReferenceName: 'c', type: 'SIMPLE' }];
    assert.deepEqual(
      allTasks(other).map((t) => t.taskReferenceName),
      ['a', 'fork', 'b', 'join', 'c'],
      'a tree with a new top-level list is walked anew',
    );
    assert.deepEqual(allTasks({ ...def, tasks: undefined } as unknown as WorkflowDef), []);
  });
});
