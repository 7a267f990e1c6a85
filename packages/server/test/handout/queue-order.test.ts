import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { ManualClock } from '../../src/clock.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { pollOneTask, pollTasks, postResult, runOf, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

/**
 * The hand-out order across runs (engine/queue-order.ts), through the routes on a manual clock:
 * a run under way goes ahead of runs that began after it, within BATON_QUEUE_RUN_AGE_MS; with 0,
 * strictly in the order queued.
 */
const simple = (type: string, ref: string): Record<string, unknown> => ({
  name: type,
  taskReferenceName: ref,
  type: 'SIMPLE',
});

const DEFINITIONS = [
  workflowDef('qo_fork', [
    simple('qo_first', 'first'),
    {
      name: 'fork',
      taskReferenceName: 'fork',
      type: 'FORK_JOIN',
      forkTasks: [[simple('qo_step', 'a')], [simple('qo_step', 'b')], [simple('qo_step', 'c')]],
    },
    { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['a', 'b', 'c'] },
  ]),
  workflowDef('qo_line', [simple('qo_step', 'one')]),
  workflowDef('qo_child', [
    {
      name: 'inner',
      taskReferenceName: 'inner',
      type: 'SUB_WORKFLOW',
      subWorkflowParam: { name: 'qo_line' },
    },
  ]),
  workflowDef('qo_parent', [
    simple('qo_first', 'first'),
    {
      name: 'child',
      taskReferenceName: 'child',
      type: 'SUB_WORKFLOW',
      subWorkflowParam: { name: 'qo_child', version: 1 },
    },
  ]),
];
const TASK_DEFS = workerTaskDefs(['qo_first', 'qo_step'], { responseTimeoutSeconds: 3600 });

/**
 * Starts a run of `name` and takes its first step, then `later` one-step runs `startedAfterMs`
 * later, then (`gapMs` after those) completes that first step. Answers the ids.
 */
async function backlogBehind(
  t: ReturnType<typeof appSuite>,
  clock: ManualClock,
  name: string,
  later: number,
  startedAfterMs: number,
  gapMs: number,
): Promise<{ run: string; lines: string[] }> {
  const run = await startRun(t.app, name, { input: {} });
  const first = await pollOneTask(t.app, 'qo_first');
  assert.equal(first.workflowInstanceId, run);
  clock.advance(startedAfterMs);
  const lines: string[] = [];
  for (let i = 0; i < later; i++) {
    lines.push(await startRun(t.app, 'qo_line', { input: { i } }));
    clock.advance(10);
  }
  clock.advance(gapMs);
  await postResult(t.app, first, 'COMPLETED');
  return { run, lines };
}

/** backlogBehind a forking run, whose first step queues its three branches. */
async function backlogBehindFork(
  t: ReturnType<typeof appSuite>,
  clock: ManualClock,
  later: number,
  startedAfterMs: number,
  gapMs = 5_000,
): Promise<{ fork: string; lines: string[] }> {
  const { run, lines } = await backlogBehind(t, clock, 'qo_fork', later, startedAfterMs, gapMs);
  return { fork: run, lines };
}

/**
 * backlogBehind a run that enters a sub-workflow after its first step, whose own child is a
 * one-step run: `grandchild` is the run whose step is queued.
 */
async function backlogBehindChild(
  t: ReturnType<typeof appSuite>,
  clock: ManualClock,
  later: number,
  startedAfterMs: number,
): Promise<{ parent: string; grandchild: string; lines: string[] }> {
  const { run: parent, lines } = await backlogBehind(t, clock, 'qo_parent', later, startedAfterMs, 5_000);
  const childOf = async (id: string, ref: string): Promise<string> =>
    (await runOf(t.app, id)).tasks.find((x: { referenceTaskName: string }) => x.referenceTaskName === ref)
      .subWorkflowId;
  const grandchild = await childOf(await childOf(parent, 'child'), 'inner');
  return { parent, grandchild, lines };
}

/** Takes every queued qo_step task, one poll at a time: the runs in the order handed out. */
async function handOutOrder(t: ReturnType<typeof appSuite>, count: number): Promise<string[]> {
  const order: string[] = [];
  for (let i = 0; i < count; i++) {
    const [task] = await pollTasks(t.app, 'qo_step', 1, `w${i}`);
    assert.ok(task, `task ${i + 1} of ${count} was handed out`);
    order.push(task.workflowInstanceId);
  }
  assert.deepEqual(await pollTasks(t.app, 'qo_step', 5, 'wlast'), [], 'nothing else was queued');
  return order;
}

for (const storeCase of storeCases()) {
  describe(`hand-out order across runs on ${storeCase.name}, by default`, () => {
    const clock = new ManualClock();
    const t = appSuite(storeCase, { clock });
    before(() => register(t.app, DEFINITIONS, TASK_DEFS));

    it('hands out a run’s branches before the first tasks of runs that began after it', async () => {
      const { fork, lines } = await backlogBehindFork(t, clock, 4, 2_000);
      // Queued 5 s after the four runs' first tasks, the branches still go first; then the four
      // runs in the order they began.
      assert.deepEqual(await handOutOrder(t, 7), [fork, fork, fork, ...lines]);
    });

    it('orders runs that began before it by their queue time, as before', async () => {
      // The one-step runs began first: their tasks, queued before the branches, go first.
      const lines: string[] = [];
      for (let i = 0; i < 2; i++) {
        lines.push(await startRun(t.app, 'qo_line', { input: { i } }));
        clock.advance(10);
      }
      clock.advance(1_000);
      const { fork, lines: after } = await backlogBehindFork(t, clock, 2, 1_000);
      assert.deepEqual(await handOutOrder(t, 7), [...lines, fork, fork, fork, ...after]);
    });

    it('hands out a sub-workflow’s tasks with the run under way that started it', async () => {
      // The grandchild began 5 s after the four runs, but its step stands with its grandparent's.
      const { parent, grandchild, lines } = await backlogBehindChild(t, clock, 4, 2_000);
      assert.deepEqual(await handOutOrder(t, 5), [grandchild, ...lines]);
      const grand = await runOf(t.app, grandchild);
      const top = await runOf(t.app, parent);
      assert.equal(grand.queueSince, top.createTime, 'the grandchild stands from its grandparent’s start');
      assert.equal(top.queueSince, undefined, 'a top-level run stands from its own start');
    });
  });

  describe(`hand-out order across runs on ${storeCase.name}, BATON_QUEUE_RUN_AGE_MS bounds the lead`, () => {
    const clock = new ManualClock();
    const t = appSuite(storeCase, { clock, env: { BATON_QUEUE_RUN_AGE_MS: '2000' } });
    before(() => register(t.app, DEFINITIONS, TASK_DEFS));

    it('goes ahead of tasks queued up to the bound after it', async () => {
      // Branches queued about 5 s after the runs began, 2 s of lead: they stand at about 3 s after,
      // behind runs that began 0.5 s after the forking run and ahead of none.
      const { fork, lines } = await backlogBehindFork(t, clock, 2, 500);
      assert.deepEqual(await handOutOrder(t, 5), [...lines, fork, fork, fork]);
    });

    it('within the bound, the run under way still goes first', async () => {
      // Runs that began 4 s after the forking run and 1 s before its branches were queued: the
      // branches' 2 s of lead put them ahead.
      const { fork, lines } = await backlogBehindFork(t, clock, 2, 4_000, 1_000);
      assert.deepEqual(await handOutOrder(t, 5), [fork, fork, fork, ...lines]);
    });
  });

  describe(`hand-out order across runs on ${storeCase.name}, BATON_QUEUE_RUN_AGE_MS=0`, () => {
    const clock = new ManualClock();
    const t = appSuite(storeCase, { clock, env: { BATON_QUEUE_RUN_AGE_MS: '0' } });
    before(() => register(t.app, DEFINITIONS, TASK_DEFS));

    it('hands out strictly in the order queued', async () => {
      const { fork, lines } = await backlogBehindFork(t, clock, 4, 2_000);
      assert.deepEqual(await handOutOrder(t, 7), [...lines, fork, fork, fork]);
    });

    it('hands out a sub-workflow’s tasks in the order queued too', async () => {
      const { grandchild, lines } = await backlogBehindChild(t, clock, 2, 2_000);
      assert.deepEqual(await handOutOrder(t, 3), [...lines, grandchild]);
    });
  });
}
