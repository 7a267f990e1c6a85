import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { scenarioHarness, shape, type Scenarios, task, worker } from './conductor-scenarios-harness.js';

/**
 * Conductor's sub-workflows forked beside worker tasks, replayed through the routes:
 * - HierarchicalForkJoinSubworkflow{Restart,Rerun,Retry}Spec (hierarchical_fork_join_swf.json):
 *   a root forks a SUB_WORKFLOW (the same definition again, the mid level) beside a worker task;
 *   the mid level forks the leaf (two worker tasks) beside a worker task. The leaf's second task
 *   fails with no retry left and the three runs fail.
 * - NestedForkJoinSubWorkflowSpec (nested_fork_join_swf.json): a fork nested in a fork holds the
 *   SUB_WORKFLOW; the child's second task fails and the parent fails.
 * Then one level is restarted, rerun or retried. Baton's contract makes a new run linked to the
 * old one; the ancestors follow it in place (their SUB_WORKFLOW task IN_PROGRESS again, the
 * JOINs the failure canceled back IN_PROGRESS) and complete with it.
 */

const forkOf = (ref: string, forkTasks: unknown[][]) => task('FORK_JOIN', ref, { forkTasks });
const joinOf = (ref: string, joinOn: string[]) => task('JOIN', ref, { joinOn });
const subWorkflow = (ref: string) => ({
  name: 'sub_workflow_task',
  taskReferenceName: ref,
  type: 'SUB_WORKFLOW',
  inputParameters: {
    param1: '${workflow.input.param1}',
    param2: '${workflow.input.param2}',
    subwf: '${workflow.input.nextSubwf}',
  },
  subWorkflowParam: { name: '${workflow.input.subwf}', version: 1 },
});

const definitions = [
  workflowDef('cs_hier_fork_swf', [
    forkOf('fanouttask', [
      [subWorkflow('st1')],
      [worker('cs_task_rt_2', 't2', { p1: '${workflow.input.param1}', p2: '${workflow.input.param2}' })],
    ]),
    joinOf('fanouttask_join', ['st1', 't2']),
  ]),
  workflowDef('cs_nested_fork_swf', [
    forkOf('outer_fork', [
      [
        forkOf('inner_fork', [[subWorkflow('st1')], [worker('cs_task_rt_2', 't2')]]),
        joinOf('inner_join', ['st1', 't2']),
      ],
      [worker('cs_task_rt_2', 't3')],
    ]),
    joinOf('outer_join', ['inner_join', 't3']),
  ]),
  workflowDef('cs_fork_leaf', [worker('cs_task_1', 't1'), worker('cs_task_rt_2', 't2')]),
];

async function eventually(s: Scenarios, id: string, ready: (wf: any) => boolean): Promise<any> {
  for (let i = 0; i < 300; i++) {
    const wf = await s.run(id);
    if (ready(wf)) return wf;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return s.run(id);
}

/** The task of ref `ref` (its last attempt) in run `wf`. */
const byRef = (wf: any, ref: string): any =>
  [...wf.tasks].reverse().find((t: any) => t.referenceTaskName === ref);

/** The child run the SUB_WORKFLOW `st1` of run `id` waits on, once it has one. */
async function childOf(s: Scenarios, id: string): Promise<string> {
  const wf = await eventually(s, id, (w) => byRef(w, 'st1')?.subWorkflowId !== undefined);
  const child = byRef(wf, 'st1')?.subWorkflowId;
  assert.ok(child, `run ${id} started a child: ${JSON.stringify(shape(wf))}`);
  s.track(child);
  return child;
}

async function operate(
  s: Scenarios,
  id: string,
  path: string,
  body?: Record<string, unknown>,
): Promise<string> {
  const res = await call(s.t().app, 'POST', `/api/workflow/${id}/${path}`, body);
  assert.equal(res.status, 200, res.text);
  s.track(res.text);
  const operation = path.replace(/\?.*$/, '');
  assert.equal((await s.run(res.text)).links[`${operation}_of`], id);
  return res.text;
}

const HIER_FAILED: Array<[string, string]> = [
  ['FORK', 'COMPLETED'],
  ['SUB_WORKFLOW', 'FAILED'],
  ['cs_task_rt_2', 'COMPLETED'],
  ['JOIN', 'CANCELED'],
];
const HIER_FOLLOWING: Array<[string, string]> = [
  ['FORK', 'COMPLETED'],
  ['SUB_WORKFLOW', 'IN_PROGRESS'],
  ['cs_task_rt_2', 'COMPLETED'],
  ['JOIN', 'IN_PROGRESS'],
];
const HIER_DONE: Array<[string, string]> = [
  ['FORK', 'COMPLETED'],
  ['SUB_WORKFLOW', 'COMPLETED'],
  ['cs_task_rt_2', 'COMPLETED'],
  ['JOIN', 'COMPLETED'],
];

interface Levels {
  root: string;
  mid: string;
  leaf: string;
}

/** The hierarchical specs' setup: all three levels FAILED by the leaf's integration_task_2. */
async function hierarchyFailed(s: Scenarios): Promise<Levels> {
  const root = await s.start(
    'cs_hier_fork_swf',
    { param1: 'p1 value', param2: 'p2 value', subwf: 'cs_hier_fork_swf', nextSubwf: 'cs_fork_leaf' },
    'retry_on_root_in_3level_wf',
  );
  const mid = await childOf(s, root);
  assert.deepEqual(shape(await s.run(root)), [
    ['FORK', 'COMPLETED'],
    ['SUB_WORKFLOW', 'IN_PROGRESS'],
    ['cs_task_rt_2', 'SCHEDULED'],
    ['JOIN', 'IN_PROGRESS'],
  ]);
  const leaf = await childOf(s, mid);
  // The root's and the mid level's integration_task_2, then the leaf's two tasks.
  await s.complete('cs_task_rt_2', { op: 'task2.done' });
  await s.complete('cs_task_rt_2', { op: 'task2.done' });
  await s.complete('cs_task_1', { op: 'task1.done' });
  await s.fail('cs_task_rt_2', 'failed');
  assert.deepEqual(shape(await s.until(leaf, ['FAILED'])), [
    ['cs_task_1', 'COMPLETED'],
    ['cs_task_rt_2', 'FAILED'],
  ]);
  for (const id of [mid, root]) {
    const wf = await s.until(id, ['FAILED']);
    assert.deepEqual(shape(wf), HIER_FAILED, `run ${id}`);
  }
  return { root, mid, leaf };
}

/** Completes a fresh leaf's two tasks; answers when it has COMPLETED. */
async function completeFreshLeaf(s: Scenarios, leaf: string): Promise<void> {
  assert.deepEqual(shape(await s.run(leaf)), [['cs_task_1', 'SCHEDULED']]);
  await s.complete('cs_task_1', { op: 'task1.done' });
  await s.complete('cs_task_rt_2', { op: 'task2.done' });
  assert.equal((await s.until(leaf, ['COMPLETED'])).status, 'COMPLETED');
}

async function assertShape(s: Scenarios, id: string, status: string, expected: Array<[string, string]>) {
  const wf = status === 'RUNNING' ? await s.run(id) : await s.until(id, [status]);
  assert.equal(wf.status, status, `run ${id}: ${JSON.stringify(shape(wf))}`);
  assert.deepEqual(shape(wf), expected, `run ${id}`);
  return wf;
}

for (const storeCase of storeCases()) {
  describe(`Conductor scenarios: sub-workflows in forks, restarted, rerun and retried (${storeCase.name})`, () => {
    const s = scenarioHarness(storeCase, definitions);

    /** A restart or a rerun from the start of the root: new runs at every level, all fresh. */
    const freshRoot = async (path: string, body?: Record<string, unknown>) => {
      const levels = await hierarchyFailed(s);
      const root2 = await operate(s, levels.root, path, body);
      const mid2 = await childOf(s, root2);
      const leaf2 = await childOf(s, mid2);
      assert.notEqual(mid2, levels.mid);
      assert.notEqual(leaf2, levels.leaf);
      await s.complete('cs_task_rt_2');
      await s.complete('cs_task_rt_2');
      await completeFreshLeaf(s, leaf2);
      await assertShape(s, mid2, 'COMPLETED', HIER_DONE);
      await assertShape(s, root2, 'COMPLETED', HIER_DONE);
    };

    /** A restart or a rerun of the mid level: the root follows the new mid run. */
    const freshMid = async (path: string, body?: Record<string, unknown>) => {
      const levels = await hierarchyFailed(s);
      const mid2 = await operate(s, levels.mid, path, body);
      const root = await assertShape(s, levels.root, 'RUNNING', HIER_FOLLOWING);
      assert.equal(byRef(root, 'st1').subWorkflowId, mid2);
      const leaf2 = await childOf(s, mid2);
      await s.complete('cs_task_rt_2');
      await completeFreshLeaf(s, leaf2);
      await assertShape(s, mid2, 'COMPLETED', HIER_DONE);
      await assertShape(s, levels.root, 'COMPLETED', HIER_DONE);
    };

    /** A restart, a rerun or a retry of the leaf: mid and root follow it in place. */
    const followLeaf = async (path: string, fresh: boolean, body?: Record<string, unknown>) => {
      const levels = await hierarchyFailed(s);
      const leaf2 = await operate(s, levels.leaf, path, body);
      const mid = await assertShape(s, levels.mid, 'RUNNING', HIER_FOLLOWING);
      assert.equal(byRef(mid, 'st1').subWorkflowId, leaf2);
      await assertShape(s, levels.root, 'RUNNING', HIER_FOLLOWING);
      if (fresh) await completeFreshLeaf(s, leaf2);
      else {
        assert.deepEqual(shape(await s.run(leaf2)), [
          ['cs_task_1', 'COMPLETED'],
          ['cs_task_rt_2', 'SCHEDULED'],
        ]);
        await s.complete('cs_task_rt_2');
      }
      await assertShape(s, levels.mid, 'COMPLETED', HIER_DONE);
      await assertShape(s, levels.root, 'COMPLETED', HIER_DONE);
    };

    /**
     * A retry of the root or the mid level: the new run keeps the completed worker task, its
     * SUB_WORKFLOW waits on the retry of the failed child (down to the leaf, which schedules its
     * failed task again), and every level completes.
     */
    const retryParent = async (level: 'root' | 'mid', resume: boolean) => {
      const levels = await hierarchyFailed(s);
      const query = `retry?resumeSubworkflowTasks=${String(resume)}`;
      const retried = await operate(s, levels[level], query);
      const wf = await s.run(retried);
      assert.equal(wf.status, 'RUNNING');
      assert.equal(byRef(wf, 't2').status, 'COMPLETED');
      assert.equal(byRef(wf, 'st1').status, 'IN_PROGRESS');
      assert.equal(byRef(wf, 'fanouttask_join').status, 'IN_PROGRESS');
      if (level === 'mid') {
        const root = await assertShape(s, levels.root, 'RUNNING', HIER_FOLLOWING);
        assert.equal(byRef(root, 'st1').subWorkflowId, retried);
      }
      let leafParent = retried;
      if (level === 'root') {
        leafParent = byRef(wf, 'st1').subWorkflowId;
        s.track(leafParent);
        assert.equal((await s.run(leafParent)).links.retry_of, levels.mid);
      }
      const leaf2 = byRef(await s.run(leafParent), 'st1').subWorkflowId;
      s.track(leaf2);
      assert.equal((await s.run(leaf2)).links.retry_of, levels.leaf);
      await s.complete('cs_task_rt_2');
      const done = await s.until(retried, ['COMPLETED']);
      assert.equal(done.status, 'COMPLETED');
      for (const t of done.tasks) assert.equal(t.status, 'COMPLETED', `${t.referenceTaskName}`);
      if (level === 'mid') await assertShape(s, levels.root, 'COMPLETED', HIER_DONE);
    };

    describe('HierarchicalForkJoinSubworkflowRestartSpec', () => {
      it('"Test restart on the root in a 3-level subworkflow"', () => freshRoot('restart'));
      it('"Test restart on the mid-level in a 3-level subworkflow"', () => freshMid('restart'));
      it('"Test restart on the leaf in a 3-level subworkflow"', () => followLeaf('restart', true));
    });

    describe('HierarchicalForkJoinSubworkflowRerunSpec', () => {
      it('"Test rerun on the root-level in a 3-level subworkflow"', () => freshRoot('rerun', {}));
      it('"Test rerun on the mid-level in a 3-level subworkflow"', () => freshMid('rerun', {}));
      it('"Test rerun on the leaf-level in a 3-level subworkflow"', () => followLeaf('rerun', true, {}));
    });

    describe('HierarchicalForkJoinSubworkflowRetrySpec', () => {
      for (const resume of [false, true]) {
        const flag = resume ? ' with resume flag' : '';
        it(`"Test retry on the root${flag} in a 3-level subworkflow"`, () => retryParent('root', resume));
        it(`"Test retry on the mid-level${flag} in a 3-level subworkflow"`, () => retryParent('mid', resume));
        it(`"Test retry on the leaf${flag} in a 3-level subworkflow"`, () =>
          followLeaf(`retry?resumeSubworkflowTasks=${String(resume)}`, false));
      }
    });

    describe('NestedForkJoinSubWorkflowSpec', () => {
      const NESTED_FAILED: Array<[string, string]> = [
        ['FORK', 'COMPLETED'],
        ['FORK', 'COMPLETED'],
        ['SUB_WORKFLOW', 'FAILED'],
        ['cs_task_rt_2', 'COMPLETED'],
        ['JOIN', 'CANCELED'],
        ['cs_task_rt_2', 'COMPLETED'],
        ['JOIN', 'CANCELED'],
      ];
      const NESTED_FOLLOWING: Array<[string, string]> = NESTED_FAILED.map(([type, status]) => [
        type,
        type === 'SUB_WORKFLOW' ? 'IN_PROGRESS' : status === 'CANCELED' ? 'IN_PROGRESS' : status,
      ]);
      const NESTED_DONE: Array<[string, string]> = NESTED_FAILED.map(([type]) => [type, 'COMPLETED']);

      /** The spec's setup: the parent's two worker tasks complete, the child fails, the parent fails. */
      const nestedFailed = async () => {
        const parent = await s.start(
          'cs_nested_fork_swf',
          { param1: 'p1 value', param2: 'p2 value', subwf: 'cs_fork_leaf' },
          'retry_on_root_in_3level_wf',
        );
        const child = await childOf(s, parent);
        await assertShape(s, parent, 'RUNNING', [
          ['FORK', 'COMPLETED'],
          ['FORK', 'COMPLETED'],
          ['SUB_WORKFLOW', 'IN_PROGRESS'],
          ['cs_task_rt_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
          ['cs_task_rt_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
        ]);
        await s.complete('cs_task_rt_2', { op: 'task1.done' });
        await s.complete('cs_task_rt_2', { op: 'task1.done' });
        await s.complete('cs_task_1', { op: 'task1.done' });
        await s.fail('cs_task_rt_2', 'task2 failed');
        await assertShape(s, child, 'FAILED', [
          ['cs_task_1', 'COMPLETED'],
          ['cs_task_rt_2', 'FAILED'],
        ]);
        await assertShape(s, parent, 'FAILED', NESTED_FAILED);
        return { parent, child };
      };

      it('"test restart on the sub workflow in a nested fork join workflow": the parent and its JOINs resume', async () => {
        const { parent, child } = await nestedFailed();
        const child2 = await operate(s, child, 'restart');
        const wf = await assertShape(s, parent, 'RUNNING', NESTED_FOLLOWING);
        assert.equal(byRef(wf, 'st1').subWorkflowId, child2);
        await completeFreshLeaf(s, child2);
        await assertShape(s, parent, 'COMPLETED', NESTED_DONE);
      });

      it('"test restart on the parent workflow in a nested fork join workflow": a new child run', async () => {
        const { parent, child } = await nestedFailed();
        const parent2 = await operate(s, parent, 'restart');
        const child2 = await childOf(s, parent2);
        assert.notEqual(child2, child);
        await assertShape(s, parent2, 'RUNNING', [
          ['FORK', 'COMPLETED'],
          ['FORK', 'COMPLETED'],
          ['SUB_WORKFLOW', 'IN_PROGRESS'],
          ['cs_task_rt_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
          ['cs_task_rt_2', 'SCHEDULED'],
          ['JOIN', 'IN_PROGRESS'],
        ]);
        await s.complete('cs_task_rt_2');
        await s.complete('cs_task_rt_2');
        await completeFreshLeaf(s, child2);
        await assertShape(s, parent2, 'COMPLETED', NESTED_DONE);
      });

      for (const resume of [false, true]) {
        const name = resume
          ? '"test retry with resume on the parent workflow in a nested fork join workflow"'
          : '"test retry on the parent workflow in a nested fork join workflow"';
        it(`${name}: the new run keeps the completed tasks and waits on the retried child`, async () => {
          const { parent, child } = await nestedFailed();
          const parent2 = await operate(s, parent, `retry?resumeSubworkflowTasks=${String(resume)}`);
          const wf = await s.run(parent2);
          assert.equal(wf.status, 'RUNNING');
          assert.equal(byRef(wf, 't2').status, 'COMPLETED');
          assert.equal(byRef(wf, 't3').status, 'COMPLETED');
          const child2 = byRef(wf, 'st1').subWorkflowId;
          s.track(child2);
          assert.equal((await s.run(child2)).links.retry_of, child);
          await s.complete('cs_task_rt_2', { op: 'task2.done' });
          const done = await s.until(parent2, ['COMPLETED']);
          assert.equal(done.status, 'COMPLETED');
          assert.deepEqual(
            [...shape(done)].sort(),
            [...NESTED_DONE].sort(),
            'the same tasks as Conductor lists, all COMPLETED',
          );
        });
      }

      it('"test retry on the sub workflow in a nested fork join workflow": the parent and its JOINs resume', async () => {
        const { parent, child } = await nestedFailed();
        const child2 = await operate(s, child, 'retry');
        const wf = await assertShape(s, parent, 'RUNNING', NESTED_FOLLOWING);
        assert.equal(byRef(wf, 'st1').subWorkflowId, child2);
        assert.deepEqual(shape(await s.run(child2)), [
          ['cs_task_1', 'COMPLETED'],
          ['cs_task_rt_2', 'SCHEDULED'],
        ]);
        await s.complete('cs_task_rt_2', { op: 'task2.done' });
        await assertShape(s, parent, 'COMPLETED', NESTED_DONE);
      });
    });
  });
}
