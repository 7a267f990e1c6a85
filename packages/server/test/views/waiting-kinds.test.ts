import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { ManualClock } from '../../src/clock.js';
import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { RunDriver } from '../operations/run-control-driver.js';

/** Explainable waiting for the engine-run kinds and for a lapsed lock, through the real routes. */
for (const storeCase of storeCases()) {
  describe(`explainable waiting of the kinds on ${storeCase.name}`, () => {
    let d: RunDriver;
    const clock = new ManualClock();
    const w = (ref: string, name: string) => ({ name, taskReferenceName: ref, type: 'SIMPLE' });

    const t = appSuite(storeCase, { clock });
    before(async () => {
      d = new RunDriver(t.app);
      await d.register(
        [
          workflowDef('wk_wait', [
            { name: 'w', taskReferenceName: 'timed', type: 'WAIT', inputParameters: { duration: '1 hours' } },
            { name: 'w', taskReferenceName: 'open', type: 'WAIT' },
          ]),
          workflowDef('wk_human', [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN', assignee: 'ann' }]),
          workflowDef('wk_leaf', [w('work', 'wk_leaf_work')]),
          workflowDef('wk_parent', [
            {
              name: 's',
              taskReferenceName: 'sub',
              type: 'SUB_WORKFLOW',
              subWorkflowParam: { name: 'wk_leaf' },
            },
          ]),
          workflowDef('wk_fork', [
            {
              name: 'fork',
              taskReferenceName: 'fork',
              type: 'FORK_JOIN',
              forkTasks: [[w('left', 'wk_left')], [w('right', 'wk_right')]],
            },
            { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['left', 'right'] },
          ]),
          workflowDef('wk_loop', [
            {
              name: 'loop',
              taskReferenceName: 'loop',
              type: 'DO_WHILE',
              loopCondition: "if ($.loop['iteration'] < 3) { true; } else { false; }",
              loopOver: [w('step', 'wk_step')],
            },
          ]),
          workflowDef('wk_pull', [{ name: 'p', taskReferenceName: 'pull', type: 'PULL_WORKFLOW_MESSAGES' }]),
          workflowDef('wk_lapse', [w('job', 'wk_lapse')]),
        ],
        [
          ...workerTaskDefs(['wk_leaf_work', 'wk_left', 'wk_right', 'wk_step']),
          ...workerTaskDefs(['wk_lapse'], { retryCount: 1, responseTimeoutSeconds: 30 }),
        ],
      );
    });

    /** The run's entry for `ref`, checked to match the task's own `waitingFor` and the task read. */
    const waitingOf = async (id: string, ref: string): Promise<any> => {
      const run = await d.run(id);
      const entry = run.waitingFor.find((x: any) => x.referenceTaskName === ref);
      assert.ok(entry, `${ref}: ${JSON.stringify(run.waitingFor)}`);
      const task = run.tasks.find((x: any) => x.taskId === entry.taskId);
      const { taskId: _id, referenceTaskName: _ref, taskType: _type, ...summary } = entry;
      assert.deepEqual(task.waitingFor, summary);
      assert.deepEqual((await call(t.app, 'GET', `/api/tasks/${entry.taskId}`)).body.waitingFor, summary);
      return entry;
    };

    it('timer: a WAIT with a duration waits until its due time; external: one without a timer', async () => {
      const id = await d.start('wk_wait');
      const timed = await waitingOf(id, 'timed');
      assert.equal(timed.reason, 'timer');
      assert.equal(timed.until, clock.now() + 3_600_000);
      assert.match(timed.message, /^waiting: until .* \(in 3600 s\), then it completes by itself$/);
      clock.advance(3_600_000);
      await t.server.timers.fireDue();
      const open = await waitingOf(id, 'open');
      assert.equal(open.reason, 'external');
      assert.match(
        open.message,
        new RegExp(`POST /api/tasks/${id}/open/\\{status\\}.*POST /api/workflow/${id}/signal`),
      );
    });

    it('external: a HUMAN task names its assignee', async () => {
      const id = await d.start('wk_human');
      const h = await waitingOf(id, 'h');
      assert.equal(h.reason, 'external');
      assert.equal(h.assignee, 'ann');
      assert.match(h.message, /^waiting: for ann to complete it/);
    });

    it('child-run: a SUB_WORKFLOW task names its child and the child’s status', async () => {
      const id = await d.start('wk_parent');
      const childId = (await d.run(id)).tasks[0].subWorkflowId;
      const sub = await waitingOf(id, 'sub');
      assert.equal(sub.reason, 'child-run');
      assert.equal(sub.childWorkflowId, childId);
      assert.equal(sub.childStatus, 'RUNNING');
      assert.match(sub.message, new RegExp(`child run ${childId} \\(wk_leaf\\) to end; it is RUNNING`));
      await d.ok('PUT', `/api/workflow/${childId}/pause`);
      assert.equal((await waitingOf(id, 'sub')).childStatus, 'PAUSED');
    });

    it('join: a JOIN names the refs still open', async () => {
      const id = await d.start('wk_fork');
      assert.deepEqual((await waitingOf(id, 'join')).waitingOn, ['left', 'right']);
      await d.complete('wk_left');
      const join = await waitingOf(id, 'join');
      assert.equal(join.reason, 'join');
      assert.deepEqual(join.waitingOn, ['right']);
      assert.equal(join.message, 'waiting: for right to end');
    });

    it('loop: a DO_WHILE names its iteration', async () => {
      const id = await d.start('wk_loop');
      assert.equal((await waitingOf(id, 'loop')).iteration, 1);
      await d.complete('wk_step');
      const loop = await waitingOf(id, 'loop');
      assert.equal(loop.reason, 'loop');
      assert.equal(loop.iteration, 2);
      assert.equal(loop.message, 'waiting: for iteration 2 of the loop to end');
      assert.equal((await waitingOf(id, 'step__2')).reason, 'worker');
    });

    it('messages: a blocking PULL_WORKFLOW_MESSAGES waits for the mailbox', async () => {
      const id = await d.start('wk_pull');
      const pull = await waitingOf(id, 'pull');
      assert.equal(pull.reason, 'messages');
      assert.match(pull.message, new RegExp(`POST /api/workflow/${id}/messages`));
    });

    it('lock-lapsed: an attempt whose lock lapsed waits for the sweep of its response timeout, not for a worker', async () => {
      const id = await d.start('wk_lapse');
      const task = await d.pollOne('wk_lapse');
      assert.equal((await waitingOf(id, 'job')).reason, 'lock');
      clock.advance(31_000);
      const lapsed = await waitingOf(id, 'job');
      assert.equal(lapsed.reason, 'lock-lapsed');
      assert.equal(lapsed.until, task.startTime + 30_000);
      assert.equal(lapsed.workerId, 'w');
      assert.match(
        lapsed.message,
        /^waiting: the lock of worker w on wk_lapse lapsed; its response timeout has been due since /,
      );
      // A lapsed lock is never handed out again: the sweep of the timer loop ends the attempt.
      assert.deepEqual(await d.poll('wk_lapse'), []);
      assert.equal((await waitingOf(id, 'job')).reason, 'lock-lapsed');
      // The sweep: the attempt is TIMED_OUT and the next one waits for a worker.
      await t.server.timers.fireDue();
      const next = await waitingOf(id, 'job');
      assert.equal(next.reason, 'worker');
    });
  });
}
