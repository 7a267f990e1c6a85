import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { CHILD_LIST_FIELDS, TASK_KIND_INFO, taskKindInfo, type WorkflowTask } from '@baton/protocol';

import { childTaskLists } from '../../src/engine/graph.js';
import { registeredKinds } from '../../src/engine/kinds/registry.js';
import { T0, task } from '../store/fixtures.js';

// Everything a kind must say for itself: a kind registered without one of these fails here,
// rather than being found missing in the waiting view, the diagram or the SDK later.
void describe('every registered task kind', () => {
  const kinds = registeredKinds();

  it('is described in protocol (label, diagram shape, SDK builder)', () => {
    assert.ok(kinds.length > 20);
    for (const kind of kinds) {
      const info = taskKindInfo(kind.kind);
      assert.ok(info, `${kind.kind} has no TASK_KIND_INFO entry`);
      assert.ok(info.label !== '', `${kind.kind} has no label`);
      assert.ok(info.builder, `${kind.kind} names no SDK builder`);
      assert.equal(info.builder.params[0], 'ref', `${kind.kind}: a builder takes the ref first`);
    }
  });

  it('says how its open tasks wait, and an explaining kind explains', () => {
    for (const kind of kinds) {
      const waiting = kind.waiting;
      if (waiting === 'queued' || waiting === 'outside') continue;
      assert.equal(typeof waiting, 'object', `${kind.kind} does not say how it waits`);
      const open = task('run-1', 1, {
        status: 'IN_PROGRESS',
        queueName: undefined,
        taskType: kind.kind,
        workflowTask: { name: 'n', taskReferenceName: 'ref_1', type: kind.kind },
      });
      const why = waiting.explain(open, {}, T0);
      assert.match(why.message, /^waiting: /, `${kind.kind}: ${why.message}`);
    }
  });

  it('declares the nested lists a container holds, and the walker finds tasks in them', () => {
    for (const kind of kinds) {
      const info = TASK_KIND_INFO[kind.kind as keyof typeof TASK_KIND_INFO];
      if (kind.onBranchEnd)
        assert.ok(info.childLists.length > 0, `${kind.kind} ends branches but declares none`);
      for (const { field, form } of info.childLists) {
        const inner: WorkflowTask = { name: 'x', taskReferenceName: 'inner', type: 'NOOP' };
        const value = form === 'list' ? [inner] : form === 'branches' ? [[inner]] : { a: [inner] };
        const node: WorkflowTask = { name: 'c', taskReferenceName: 'c', type: kind.kind, [field]: value };
        const found = childTaskLists(node).flatMap((list) => list.tasks.map((t) => t.taskReferenceName));
        assert.deepEqual(found, ['inner'], `${kind.kind}.${field}`);
      }
    }
  });

  it('walks declared lists in the order cases, default, branches, loop body', () => {
    assert.deepEqual(
      CHILD_LIST_FIELDS.map((f) => f.field),
      ['decisionCases', 'defaultCase', 'forkTasks', 'loopOver'],
    );
  });
});
