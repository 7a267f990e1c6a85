import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { scenarioHarness, shape, type Scenarios, worker } from './conductor-scenarios-harness.js';

/**
 * Conductor's three-level sub-workflow specs (SubWorkflowRestartSpec, SubWorkflowRerunSpec,
 * SubWorkflowRetrySpec) replayed through the routes: a root runs a worker task then a
 * SUB_WORKFLOW whose definition name comes from the run input (the mid level, the same
 * definition), which runs the leaf (two worker tasks); the leaf's second task fails with no
 * retry left, and all three runs fail. Each test then restarts, reruns or retries one level.
 *
 * Where Baton's contract differs, the test follows the contract: the operation makes a new run
 * linked to the old one (`restart_of`, `rerun_of`, `retry_of`); an ancestor's SUB_WORKFLOW task
 * follows the new child and the ancestor returns to RUNNING in place, as in Conductor. A retry
 * always resumes the failed children (Conductor's `resumeSubworkflowTasks=true`).
 */

// Conductor's workflow_with_sub_workflow_1_integration_test.json and
// simple_workflow_1_integration_test.json, with Baton's worker types.
const definitions = [
  workflowDef('cs3_wf_with_sub_wf', [
    worker('cs_task_1', 't1', { p1: '${workflow.input.param1}', p2: '${workflow.input.param2}' }),
    {
      name: 'sub_workflow_task',
      taskReferenceName: 't2',
      type: 'SUB_WORKFLOW',
      inputParameters: {
        param1: '${workflow.input.param1}',
        param2: '${workflow.input.param2}',
        subwf: '${workflow.input.nextSubwf}',
      },
      subWorkflowParam: { name: '${workflow.input.subwf}', version: 1 },
    },
  ]),
  workflowDef('cs3_simple', [worker('cs_task_1', 't1'), worker('cs_task_rt_2', 't2')]),
];

interface Levels {
  root: string;
  mid: string;
  leaf: string;
}

/** Reads the run until `ready` holds (bounded): a child's end reaches its parent after commit. */
async function eventually(s: Scenarios, id: string, ready: (wf: any) => boolean): Promise<any> {
  for (let i = 0; i < 300; i++) {
    const wf = await s.run(id);
    if (ready(wf)) return wf;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return s.run(id);
}

/** The child run the SUB_WORKFLOW task `t2` of run `id` waits on, once it has one. */
async function childOf(s: Scenarios, id: string): Promise<string> {
  const wf = await eventually(s, id, (w) => w.tasks[1]?.subWorkflowId !== undefined);
  const child = wf.tasks[1]?.subWorkflowId;
  assert.ok(child, `run ${id} started a child: ${JSON.stringify(shape(wf))}`);
  s.track(child);
  return child;
}

/** The spec's setup: three levels, the leaf's integration_task_2 fails, all three runs FAILED. */
async function threeLevelsFailed(s: Scenarios): Promise<Levels> {
  const root = await s.start(
    'cs3_wf_with_sub_wf',
    { param1: 'p1 value', param2: 'p2 value', subwf: 'cs3_wf_with_sub_wf', nextSubwf: 'cs3_simple' },
    'retry_on_root_in_3level_wf',
  );
  let wf = await s.run(root);
  assert.equal(wf.status, 'RUNNING');
  assert.deepEqual(shape(wf), [['cs_task_1', 'SCHEDULED']]);
  await s.complete('cs_task_1', { op: 'task1.done' });
  const mid = await childOf(s, root);
  wf = await s.run(root);
  assert.deepEqual(shape(wf), [
    ['cs_task_1', 'COMPLETED'],
    ['SUB_WORKFLOW', 'IN_PROGRESS'],
  ]);
  assert.deepEqual(shape(await s.run(mid)), [['cs_task_1', 'SCHEDULED']]);
  await s.complete('cs_task_1', { op: 'task1.done' });
  const leaf = await childOf(s, mid);
  const leafRun = await s.run(leaf);
  assert.equal(leafRun.workflowName, 'cs3_simple');
  assert.deepEqual(shape(leafRun), [['cs_task_1', 'SCHEDULED']]);
  await s.complete('cs_task_1', { op: 'task1.done' });
  await s.fail('cs_task_rt_2', 'failed');
  assert.deepEqual(shape(await s.until(leaf, ['FAILED'])), [
    ['cs_task_1', 'COMPLETED'],
    ['cs_task_rt_2', 'FAILED'],
  ]);
  for (const id of [mid, root]) {
    wf = await s.until(id, ['FAILED']);
    assert.equal(wf.status, 'FAILED');
    assert.deepEqual(shape(wf), [
      ['cs_task_1', 'COMPLETED'],
      ['SUB_WORKFLOW', 'FAILED'],
    ]);
  }
  return { root, mid, leaf };
}

/** Runs `operation` on run `id` through its route; answers the new linked run's id. */
async function operate(s: Scenarios, id: string, operation: string, body?: Record<string, unknown>) {
  const res = await call(s.t().app, 'POST', `/api/workflow/${id}/${operation}`, body);
  assert.equal(res.status, 200, res.text);
  assert.notEqual(res.text, id);
  s.track(res.text);
  const run = await s.run(res.text);
  assert.equal(run.links[`${operation}_of`], id);
  return res.text;
}

/** Completed: [t1, SUB_WORKFLOW] on a parent level, [t1, t2] on the leaf. */
async function assertParentCompleted(s: Scenarios, id: string): Promise<void> {
  const wf = await s.until(id, ['COMPLETED']);
  assert.equal(wf.status, 'COMPLETED', `run ${id}: ${JSON.stringify(shape(wf))}`);
  assert.deepEqual(shape(wf), [
    ['cs_task_1', 'COMPLETED'],
    ['SUB_WORKFLOW', 'COMPLETED'],
  ]);
}

/** A parent whose SUB_WORKFLOW task follows `child` again, RUNNING in place. */
async function assertFollows(s: Scenarios, id: string, child: string): Promise<void> {
  const wf = await s.run(id);
  assert.equal(wf.status, 'RUNNING', `run ${id}`);
  assert.deepEqual(shape(wf), [
    ['cs_task_1', 'COMPLETED'],
    ['SUB_WORKFLOW', 'IN_PROGRESS'],
  ]);
  assert.equal(wf.tasks[1].subWorkflowId, child);
}

/**
 * The rest of a level started afresh: its t1 is SCHEDULED; complete it, follow the chain down to
 * a fresh leaf, complete the leaf's two tasks; answers the leaf.
 */
async function runFreshFrom(
  s: Scenarios,
  id: string,
  levels: Levels,
  depth: 'mid' | 'leaf',
): Promise<string> {
  assert.deepEqual(shape(await s.run(id)), [['cs_task_1', 'SCHEDULED']]);
  await s.complete('cs_task_1', { op: 'task1.done' });
  let leaf = id;
  if (depth === 'mid') {
    leaf = await childOf(s, id);
    assert.notEqual(leaf, levels.leaf);
    assert.deepEqual(shape(await s.run(leaf)), [['cs_task_1', 'SCHEDULED']]);
    await s.complete('cs_task_1', { op: 'task1.done' });
  }
  await s.complete('cs_task_rt_2', { op: 'task2.done' });
  const done = await s.until(leaf, ['COMPLETED']);
  assert.deepEqual(shape(done), [
    ['cs_task_1', 'COMPLETED'],
    ['cs_task_rt_2', 'COMPLETED'],
  ]);
  return leaf;
}

for (const storeCase of storeCases()) {
  describe(`Conductor scenarios: restart, rerun and retry in three levels of sub-workflows (${storeCase.name})`, () => {
    const s = scenarioHarness(storeCase, definitions);

    /** Restart or rerun (from the start or from t1) of the root: everything runs afresh. */
    const freshRoot = async (operation: 'restart' | 'rerun', fromTaskId: boolean) => {
      const levels = await threeLevelsFailed(s);
      const body = fromTaskId ? { reRunFromTaskId: (await s.run(levels.root)).tasks[0].taskId } : undefined;
      const root2 = await operate(
        s,
        levels.root,
        operation,
        operation === 'rerun' ? (body ?? {}) : undefined,
      );
      assert.deepEqual(shape(await s.run(root2)), [['cs_task_1', 'SCHEDULED']]);
      await s.complete('cs_task_1', { op1: 'task1.done' });
      const mid2 = await childOf(s, root2);
      assert.notEqual(mid2, levels.mid);
      assert.deepEqual(shape(await s.run(root2)), [
        ['cs_task_1', 'COMPLETED'],
        ['SUB_WORKFLOW', 'IN_PROGRESS'],
      ]);
      await runFreshFrom(s, mid2, levels, 'mid');
      await assertParentCompleted(s, mid2);
      await assertParentCompleted(s, root2);
      assert.equal((await s.run(levels.root)).status, 'FAILED', 'the original stays as it ended');
    };

    /** Restart or rerun of the mid level: the root follows the new mid run, which starts afresh. */
    const freshMid = async (operation: 'restart' | 'rerun', fromTaskId: boolean) => {
      const levels = await threeLevelsFailed(s);
      const body = fromTaskId ? { reRunFromTaskId: (await s.run(levels.mid)).tasks[0].taskId } : undefined;
      const mid2 = await operate(s, levels.mid, operation, operation === 'rerun' ? (body ?? {}) : undefined);
      assert.equal((await s.run(mid2)).parentWorkflowId, levels.root);
      await assertFollows(s, levels.root, mid2);
      await runFreshFrom(s, mid2, levels, 'mid');
      await assertParentCompleted(s, mid2);
      await assertParentCompleted(s, levels.root);
    };

    /** Restart or rerun of the leaf: the mid level and the root follow it and complete with it. */
    const freshLeaf = async (operation: 'restart' | 'rerun', fromTaskId: boolean) => {
      const levels = await threeLevelsFailed(s);
      const body = fromTaskId ? { reRunFromTaskId: (await s.run(levels.leaf)).tasks[0].taskId } : undefined;
      const leaf2 = await operate(
        s,
        levels.leaf,
        operation,
        operation === 'rerun' ? (body ?? {}) : undefined,
      );
      assert.equal((await s.run(leaf2)).parentWorkflowId, levels.mid);
      await assertFollows(s, levels.mid, leaf2);
      await assertFollows(s, levels.root, levels.mid);
      await runFreshFrom(s, leaf2, levels, 'leaf');
      await assertParentCompleted(s, levels.mid);
      await assertParentCompleted(s, levels.root);
    };

    describe('SubWorkflowRestartSpec', () => {
      it('"Test restart on the root in a 3-level subworkflow": new mid and leaf runs; all complete', () =>
        freshRoot('restart', false));
      it('"Test restart on the mid-level in a 3-level subworkflow": the root follows the new mid run', () =>
        freshMid('restart', false));
      it('"Test restart on the leaf in a 3-level subworkflow": mid and root follow the new leaf run', () =>
        freshLeaf('restart', false));
    });

    describe('SubWorkflowRerunSpec', () => {
      it('"Test rerun on the root-level in a 3-level subworkflow"', () => freshRoot('rerun', false));
      it('"Test rerun on the root-level with taskId in a 3-level subworkflow"', () =>
        freshRoot('rerun', true));
      it('"Test rerun on the mid-level in a 3-level subworkflow"', () => freshMid('rerun', false));
      it('"Test rerun on the mid-level with taskId in a 3-level subworkflow"', () => freshMid('rerun', true));
      it('"Test rerun on the leaf-level in a 3-level subworkflow"', () => freshLeaf('rerun', false));
      it('"Test rerun on the leaf-level with taskId in a 3-level subworkflow"', () =>
        freshLeaf('rerun', true));
      it('a rerun of the leaf from its failed task keeps the completed first task', async () => {
        const levels = await threeLevelsFailed(s);
        const failedTaskId = (await s.run(levels.leaf)).tasks[1].taskId;
        const leaf2 = await operate(s, levels.leaf, 'rerun', { reRunFromTaskId: failedTaskId });
        assert.deepEqual(shape(await s.run(leaf2)), [
          ['cs_task_1', 'COMPLETED'],
          ['cs_task_rt_2', 'SCHEDULED'],
        ]);
        await assertFollows(s, levels.root, levels.mid);
        await s.complete('cs_task_rt_2', { op: 'task2.done' });
        await assertParentCompleted(s, levels.mid);
        await assertParentCompleted(s, levels.root);
      });
    });

    describe('SubWorkflowRetrySpec', () => {
      for (const resumeFlag of [false, true]) {
        const flag = resumeFlag ? ' with resume flag' : '';
        it(`"Test retry on the root${flag} in a 3-level subworkflow": new root, mid and leaf runs continue from the failed task`, async () => {
          const levels = await threeLevelsFailed(s);
          const root2 = await retryOf(s, levels.root, resumeFlag);
          const root2Run = await s.run(root2);
          assert.equal(root2Run.status, 'RUNNING');
          assert.deepEqual(shape(root2Run), [
            ['cs_task_1', 'COMPLETED'],
            ['SUB_WORKFLOW', 'IN_PROGRESS'],
          ]);
          const mid2 = root2Run.tasks[1].subWorkflowId;
          s.track(mid2);
          assert.notEqual(mid2, levels.mid);
          const mid2Run = await s.run(mid2);
          assert.equal(mid2Run.links.retry_of, levels.mid);
          assert.equal(mid2Run.parentWorkflowId, root2);
          const leaf2 = mid2Run.tasks[1].subWorkflowId;
          s.track(leaf2);
          const leaf2Run = await s.run(leaf2);
          assert.equal(leaf2Run.links.retry_of, levels.leaf);
          assert.deepEqual(shape(leaf2Run), [
            ['cs_task_1', 'COMPLETED'],
            ['cs_task_rt_2', 'SCHEDULED'],
          ]);
          await s.complete('cs_task_rt_2', { op: 'task2.done' });
          await assertParentCompleted(s, mid2);
          await assertParentCompleted(s, root2);
        });

        it(`"Test retry on the mid-level${flag} in a 3-level subworkflow": the root follows the new mid run`, async () => {
          const levels = await threeLevelsFailed(s);
          const mid2 = await retryOf(s, levels.mid, resumeFlag);
          await assertFollows(s, levels.root, mid2);
          const mid2Run = await s.run(mid2);
          assert.equal(mid2Run.status, 'RUNNING');
          const leaf2 = mid2Run.tasks[1].subWorkflowId;
          s.track(leaf2);
          assert.equal((await s.run(leaf2)).links.retry_of, levels.leaf);
          await s.complete('cs_task_rt_2', { op: 'task2.done' });
          await assertParentCompleted(s, mid2);
          await assertParentCompleted(s, levels.root);
        });

        it(`"Test retry on the leaf${flag} in a 3-level subworkflow": mid and root follow the new leaf run`, async () => {
          const levels = await threeLevelsFailed(s);
          const leaf2 = await retryOf(s, levels.leaf, resumeFlag);
          await assertFollows(s, levels.mid, leaf2);
          await assertFollows(s, levels.root, levels.mid);
          assert.deepEqual(shape(await s.run(leaf2)), [
            ['cs_task_1', 'COMPLETED'],
            ['cs_task_rt_2', 'SCHEDULED'],
          ]);
          await s.complete('cs_task_rt_2', { op: 'task2.done' });
          await assertParentCompleted(s, levels.mid);
          await assertParentCompleted(s, levels.root);
        });
      }
    });
  });
}

/** Retries run `id` (with Conductor's resume flag or without); answers the new linked run. */
async function retryOf(s: Scenarios, id: string, resumeFlag: boolean): Promise<string> {
  const query = resumeFlag ? '?resumeSubworkflowTasks=true' : '?resumeSubworkflowTasks=false';
  const res = await call(s.t().app, 'POST', `/api/workflow/${id}/retry${query}`);
  assert.equal(res.status, 200, res.text);
  s.track(res.text);
  assert.equal((await s.run(res.text)).links.retry_of, id);
  return res.text;
}
