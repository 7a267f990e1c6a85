import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { ManualClock } from '../../src/clock.js';
import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { eventually } from '../helpers/http-target.js';
import { pollTasks, postResult, runOf, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';
import { longPoll, metric, parked } from '../helpers/waiting-polls.js';

const simple = (type: string, ref: string): Record<string, unknown> => ({
  name: type,
  taskReferenceName: ref,
  type: 'SIMPLE',
});

for (const storeCase of storeCases()) {
  describe(`tasks handed to waiting polls on ${storeCase.name}`, () => {
    const t = appSuite(storeCase);
    before(async () => {
      await register(
        t.app,
        [
          workflowDef('wp_line', [simple('wp_step', 'one'), simple('wp_step', 'two')]),
          workflowDef('wp_fork', [
            {
              name: 'fork',
              taskReferenceName: 'fork',
              type: 'FORK_JOIN',
              forkTasks: [[simple('wp_branch', 'a')], [simple('wp_branch', 'b')], [simple('wp_branch', 'c')]],
            },
            { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['a', 'b', 'c'] },
          ]),
          workflowDef('wp_limited_line', [simple('wp_limited', 'one')]),
          workflowDef('wp_other_line', [simple('wp_other', 'one')]),
        ],
        [
          ...workerTaskDefs(['wp_step', 'wp_branch', 'wp_other'], {
            responseTimeoutSeconds: 30,
            pollTimeoutSeconds: 20,
          }),
          ...workerTaskDefs(['wp_limited'], { concurrentExecLimit: 3 }),
        ],
      );
    });

    it('answers a waiting poll the run’s first task from the start’s own transaction, as its claim would leave it', async () => {
      const handedBefore = await metric(t.app, 'baton_tasks_handed_to_waiting_polls_total', 'wp_step');
      const poll = longPoll(t.app, 'wp_step', 1, 'wp1');
      await parked(t.app, 1);
      const id = await startRun(t.app, 'wp_line', { input: {} });
      const res = await poll;
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.length, 1);
      const [task] = res.body;
      assert.equal(task.workflowInstanceId, id);
      assert.equal(task.referenceTaskName, 'one');
      assert.equal(task.status, 'IN_PROGRESS');
      assert.equal(task.workerId, 'wp1');
      assert.equal(task.pollCount, 1);
      assert.ok(task.startTime > 0);
      assert.equal(
        await metric(t.app, 'baton_tasks_handed_to_waiting_polls_total', 'wp_step'),
        handedBefore + 1,
      );
      assert.equal(await metric(t.app, 'baton_polls_waiting'), 0);

      // Stored as a claim leaves it: its message locked for the worker until the response deadline,
      // its poll timeout never armed, nothing left for another poll.
      const stored = await call(t.app, 'GET', `/api/tasks/${task.taskId}`);
      assert.equal(stored.body.status, 'IN_PROGRESS');
      assert.equal(stored.body.workerId, 'wp1');
      const message = await t.store.read((tx) => tx.getMessage(task.taskId));
      assert.ok(message);
      assert.equal(message.workerId, 'wp1');
      assert.ok(message.lockedUntil !== null && message.lockedUntil >= task.startTime + 30_000 - 5);
      assert.deepEqual(await t.store.read((tx) => tx.listTimers({ taskIds: [task.taskId] })), []);
      assert.deepEqual(await pollTasks(t.app, 'wp_step', 5, 'wp2'), []);

      // A result queues the next step: a poll waiting then takes it the same way.
      const next = longPoll(t.app, 'wp_step', 1, 'wp2');
      await parked(t.app, 1);
      await postResult(t.app, task, 'COMPLETED', { workerId: 'wp1' });
      const second = await next;
      assert.deepEqual(
        second.body.map((x: { referenceTaskName: string; workerId: string; status: string }) => [
          x.referenceTaskName,
          x.workerId,
          x.status,
        ]),
        [['two', 'wp2', 'IN_PROGRESS']],
      );
      await postResult(t.app, second.body[0], 'COMPLETED', { workerId: 'wp2' });
      const run = await runOf(t.app, id);
      assert.equal(run.status, 'COMPLETED');
    });

    it('gives a poll as many of a fork’s branches as it asked for, and leaves the rest queued', async () => {
      const poll = longPoll(t.app, 'wp_branch', 2, 'wpf');
      await parked(t.app, 1);
      const id = await startRun(t.app, 'wp_fork', { input: {} });
      const res = await poll;
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.map((x: { referenceTaskName: string; workflowInstanceId: string; workerId: string }) => [
          x.referenceTaskName,
          x.workflowInstanceId,
          x.workerId,
        ]),
        [
          ['a', id, 'wpf'],
          ['b', id, 'wpf'],
        ],
      );
      const rest = await pollTasks(t.app, 'wp_branch', 5, 'wpg');
      assert.deepEqual(
        rest.map((x: { referenceTaskName: string }) => x.referenceTaskName),
        ['c'],
      );
      for (const task of [...res.body, ...rest]) await postResult(t.app, task, 'COMPLETED');
      const run = await eventually(async () => {
        const r = await runOf(t.app, id);
        return r.status === 'COMPLETED' ? r : undefined;
      }, 'the fork run to complete');
      assert.equal(run.status, 'COMPLETED');
    });

    it('leaves a type with hand-out limits to the claim, which keeps to them', async () => {
      const handedBefore = await metric(t.app, 'baton_tasks_handed_to_waiting_polls_total', 'wp_limited');
      const poll = longPoll(t.app, 'wp_limited', 1, 'wpl');
      await parked(t.app, 1);
      const id = await startRun(t.app, 'wp_limited_line', { input: {} });
      const res = await poll;
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.map((x: { workflowInstanceId: string; workerId: string }) => [
          x.workflowInstanceId,
          x.workerId,
        ]),
        [[id, 'wpl']],
      );
      assert.equal(
        await metric(t.app, 'baton_tasks_handed_to_waiting_polls_total', 'wp_limited'),
        handedBefore,
      );
    });

    it('hands nothing to a poll of other queues, and the longest-waiting poll of a queue first', async () => {
      const other = longPoll(t.app, 'wp_other', 1, 'wpo');
      await parked(t.app, 1);
      const first = longPoll(t.app, 'wp_step', 1, 'first');
      await parked(t.app, 2);
      const second = longPoll(t.app, 'wp_step', 1, 'second');
      await parked(t.app, 3);
      const a = await startRun(t.app, 'wp_line', { input: {} });
      const b = await startRun(t.app, 'wp_line', { input: {} });
      const [one, two] = await Promise.all([first, second]);
      assert.deepEqual(
        [...one.body, ...two.body].map((x: { workflowInstanceId: string; workerId: string }) => [
          x.workflowInstanceId,
          x.workerId,
        ]),
        [
          [a, 'first'],
          [b, 'second'],
        ],
      );
      assert.equal(await metric(t.app, 'baton_polls_waiting'), 1);
      const c = await startRun(t.app, 'wp_other_line', { input: {} });
      const res = await other;
      assert.deepEqual(
        res.body.map((x: { workflowInstanceId: string }) => x.workflowInstanceId),
        [c],
      );
    });
  });
}

for (const storeCase of storeCases()) {
  describe(`tasks the timer loop queues, handed to waiting polls on ${storeCase.name}`, () => {
    const clock = new ManualClock();
    const t = appSuite(storeCase, { clock });
    before(async () => {
      await register(
        t.app,
        [
          workflowDef('wt_after_wait', [
            { name: 'w', taskReferenceName: 'w', type: 'WAIT', inputParameters: { duration: '1 days' } },
            simple('wt_step', 'after'),
          ]),
          workflowDef('wt_retried', [simple('wt_flaky', 'once')]),
        ],
        [
          ...workerTaskDefs(['wt_step']),
          ...workerTaskDefs(['wt_flaky'], { retryCount: 1, retryDelaySeconds: 0, responseTimeoutSeconds: 2 }),
        ],
      );
    });

    it('hands the step after a WAIT that ends to a poll waiting for it', async () => {
      const id = await startRun(t.app, 'wt_after_wait', { input: {} });
      const poll = longPoll(t.app, 'wt_step', 1, 'wt1');
      await parked(t.app, 1);
      clock.advance(24 * 3600 * 1000 + 1_000);
      await t.server.timers.fireDue();
      const res = await poll;
      assert.deepEqual(
        res.body.map((x: { workflowInstanceId: string; referenceTaskName: string; workerId: string }) => [
          x.workflowInstanceId,
          x.referenceTaskName,
          x.workerId,
        ]),
        [[id, 'after', 'wt1']],
      );
      assert.equal(await metric(t.app, 'baton_tasks_handed_to_waiting_polls_total', 'wt_step'), 1);
    });

    it('hands the retry of an attempt whose response timed out to another worker’s waiting poll', async () => {
      const id = await startRun(t.app, 'wt_retried', { input: {} });
      const [first] = await pollTasks(t.app, 'wt_flaky', 1, 'silent');
      assert.ok(first);
      const poll = longPoll(t.app, 'wt_flaky', 1, 'wt2');
      await parked(t.app, 1);
      clock.advance(3_000);
      await t.server.timers.fireDue();
      const res = await poll;
      assert.deepEqual(
        res.body.map(
          (x: { workflowInstanceId: string; retryCount: number; workerId: string; status: string }) => [
            x.workflowInstanceId,
            x.retryCount,
            x.workerId,
            x.status,
          ],
        ),
        [[id, 1, 'wt2', 'IN_PROGRESS']],
      );
      const run = await runOf(t.app, id);
      assert.deepEqual(
        run.tasks.map((x: { status: string }) => x.status),
        ['TIMED_OUT', 'IN_PROGRESS'],
      );
      assert.equal(await metric(t.app, 'baton_tasks_handed_to_waiting_polls_total', 'wt_flaky'), 1);
    });
  });
}
