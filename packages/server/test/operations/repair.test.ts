import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ManualClock } from '../../src/clock.js';
import { afterCommit, type DecisionApplier } from '../../src/decisions/decision-applier.js';
import { actOnLapsedLock } from '../../src/loops/lapsed-locks.js';
import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { pollTasks, postResult } from '../helpers/runs.js';
import { workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';

/**
 * Repairs and timeouts of tasks through the real routes on a manual clock: the test moves time and fires
 * due timers itself (`timers.fireDue()`), so no test sleeps through a real timeout.
 */

const taskDef = (name: string, extra: Record<string, unknown>): Record<string, unknown> => ({
  name,
  retryCount: 0,
  retryDelaySeconds: 0,
  responseTimeoutSeconds: 10,
  timeoutSeconds: 0,
  ownerEmail: 'dev@baton.test',
  ...extra,
});

/** One worker step of type `type`, then a second step `after_<type>`. */
const twoSteps = (type: string): Record<string, unknown> =>
  workflowDef(`wf_${type}`, [
    { name: type, taskReferenceName: 'a', type: 'SIMPLE' },
    { name: `after_${type}`, taskReferenceName: 'b', type: 'SIMPLE' },
  ]);

for (const storeCase of storeCases()) {
  describe(`repair routes on ${storeCase.name}`, () => {
    const clock = new ManualClock();
    const t = appSuite(storeCase, { clock });

    async function setup(type: string, extra: Record<string, unknown>): Promise<string> {
      const defs = [taskDef(type, extra), taskDef(`after_${type}`, {})];
      assert.equal((await call(t.app, 'POST', '/api/metadata/taskdefs', defs)).status, 200);
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', twoSteps(type))).status, 200);
      const start = await call(t.app, 'POST', `/api/workflow/wf_${type}`, { input: {} });
      assert.equal(start.status, 200, start.text);
      return start.text;
    }
    const poll = (type: string, worker = 'w1') => pollTasks(t.app, type, 5, worker);
    const result = (task: any, status: string, extra: Record<string, unknown> = {}) =>
      postResult(t.app, task, status, extra);
    const run = async (id: string): Promise<any> => (await call(t.app, 'GET', `/api/workflow/${id}`)).body;
    const fire = (): Promise<number> => t.server.timers.fireDue();

    it('a poll timeout under TIME_OUT_WF times the run out, saying which timeout', async () => {
      const id = await setup('lc_poll', { pollTimeoutSeconds: 5, timeoutPolicy: 'TIME_OUT_WF' });
      clock.advance(4_999);
      assert.equal(await fire(), 0, 'not due yet');
      clock.advance(1);
      assert.equal(await fire(), 1);
      const r = await run(id);
      assert.equal(r.status, 'TIMED_OUT');
      assert.equal(r.reasonForIncompletion, 'Task a timed out: no poll within pollTimeoutSeconds (5s)');
      assert.equal(r.tasks[0].status, 'TIMED_OUT');
      assert.deepEqual(await poll('lc_poll'), [], 'its message is gone');
      assert.equal(await fire(), 0, 'the run ended: its timers are gone');
    });

    it('a hand-out cancels the poll timeout it no longer needs; an ended task keeps no timer', async () => {
      const id = await setup('lc_polled', { pollTimeoutSeconds: 5, timeoutSeconds: 60 });
      const timersOf = async (taskId: string) =>
        (await t.server.store.read((tx) => tx.listTimers({ taskIds: [taskId] }))).map((x) => x.kind).sort();
      const queued = (await run(id)).tasks[0];
      assert.deepEqual(await timersOf(queued.taskId), ['POLL_TIMEOUT', 'TASK_TIMEOUT']);
      const [task] = await poll('lc_polled');
      assert.deepEqual(await timersOf(task.taskId), ['TASK_TIMEOUT']);
      await result(task, 'COMPLETED');
      assert.deepEqual(await timersOf(task.taskId), []);
      clock.advance(60_000);
      assert.equal(await fire(), 0);
      assert.equal((await run(id)).tasks[1].status, 'SCHEDULED');
    });

    it('a task timeout under ALERT_ONLY records an alert on the task and keeps waiting', async () => {
      const id = await setup('lc_alert', { timeoutSeconds: 20, timeoutPolicy: 'ALERT_ONLY' });
      const [task] = await poll('lc_alert');
      clock.advance(20_000);
      // The response timeout (10 s) was extended by the worker meanwhile, so only the task timeout fires.
      await result(task, 'IN_PROGRESS', { extendLease: true });
      assert.equal(await fire(), 1);
      const r = await run(id);
      assert.equal(r.status, 'RUNNING');
      assert.equal(r.tasks[0].status, 'IN_PROGRESS');
      assert.deepEqual(
        r.tasks[0].alerts.map((a: any) => [a.kind, a.message]),
        [['TASK_TIMEOUT', 'Task a timed out: not completed within timeoutSeconds (20s)']],
      );
      await result(task, 'COMPLETED');
      assert.equal((await run(id)).tasks[0].status, 'COMPLETED');
    });

    it('lock expiry: the lapsed attempt is never handed out again; its timer makes a new attempt', async () => {
      const id = await setup('lc_lock', { retryCount: 1 });
      const [first] = await poll('lc_lock', 'dead-worker');
      clock.advance(10_000);
      // The lock has lapsed, but the timer has not fired yet: nobody gets the old attempt.
      assert.deepEqual(await poll('lc_lock', 'w2'), []);
      assert.equal(await fire(), 1);
      const [second] = await poll('lc_lock', 'w2');
      assert.notEqual(second.taskId, first.taskId);
      assert.equal(second.retryCount, 1);
      assert.equal(second.retriedTaskId, first.taskId);
      // The dead worker's late answer is refused, naming the attempt's status.
      const late = await call(t.app, 'POST', '/api/tasks', {
        taskId: first.taskId,
        workflowInstanceId: first.workflowInstanceId,
        workerId: 'dead-worker',
        status: 'COMPLETED',
        outputData: { late: true },
      });
      assert.equal(late.status, 409, late.text);
      assert.match(
        late.body.message,
        /is TIMED_OUT: this attempt has ended.*a later attempt of the task was made/,
      );
      const r = await run(id);
      assert.deepEqual(
        r.tasks.map((x: any) => [x.taskId, x.status]),
        [
          [first.taskId, 'TIMED_OUT'],
          [second.taskId, 'IN_PROGRESS'],
        ],
      );
      assert.equal(
        r.tasks[0].reasonForIncompletion,
        'no result within responseTimeoutSeconds (10s) from worker dead-worker',
      );
      await result(second, 'COMPLETED');
      assert.equal((await run(id)).tasks[2].referenceTaskName, 'b');
    });

    it('a lapsed lock of a task waiting for a poll is given back; a stale one is removed', async () => {
      const id = await setup('lc_stale', {});
      // A hand-out that locked the message and never wrote its task (a node died in between).
      const ghost = await t.server.store.transaction((tx) =>
        tx.claim({ queueNames: ['lc_stale'], count: 1, now: clock.now(), workerId: 'ghost', lockToken: 'g' }),
      );
      assert.equal(ghost.length, 1);
      assert.deepEqual(await poll('lc_stale'), [], 'locked');
      clock.advance(10_000);
      assert.equal(await fire(), 0, 'nothing to time out');
      const [task] = await poll('lc_stale');
      assert.equal(task.pollCount, 1);
      await result(task, 'COMPLETED');
      // A message left behind by an ended task (as an earlier release could leave one).
      await t.server.store.transaction((tx) =>
        tx.enqueue(
          [
            {
              taskId: task.taskId,
              queueName: 'lc_stale',
              workflowId: id,
              taskRef: 'a',
              attempt: 1,
              priority: 0,
              visibleAt: clock.now(),
              lockMs: 1000,
              lock: { lockedUntil: clock.now() + 1000, lockToken: 'old', workerId: 'w1' },
            },
          ],
          clock.now(),
        ),
      );
      clock.advance(1000);
      assert.equal(await fire(), 0);
      assert.equal(await t.server.store.read((tx) => tx.getMessage(task.taskId)), undefined);
      const r = await run(id);
      assert.deepEqual(
        r.tasks.map((x: any) => x.status),
        ['COMPLETED', 'SCHEDULED'],
      );
    });

    it('a lease extended after the sweep took the lapsed lock wins: the attempt is not timed out', async () => {
      const id = await setup('lc_race', { retryCount: 1 });
      const [task] = await poll('lc_race', 'slow-worker');
      clock.advance(10_000);
      const lease = { lockToken: 'sweep-1' };
      const [lapsed] = await t.server.store.transaction((tx) =>
        tx.claimLapsedLocks({ now: clock.now(), limit: 10, leaseMs: 10_000, ...lease }),
      );
      assert.equal(lapsed?.taskId, task.taskId);
      // The worker's extension lands between the sweep's claim and its action.
      await result(task, 'IN_PROGRESS', { extendLease: true });
      const executor = (t.server.timers as unknown as { executor: DecisionApplier }).executor;
      const acted = await t.server.store.transaction((tx) =>
        actOnLapsedLock(tx, executor, lapsed!, lease, clock.now(), afterCommit()),
      );
      assert.equal(acted, false);
      assert.equal((await run(id)).tasks[0].status, 'IN_PROGRESS');
      // Without the extension the same sweep times it out, and the retry takes its place.
      clock.advance(10_000);
      assert.equal(await fire(), 1);
      assert.deepEqual(
        (await run(id)).tasks.map((x: any) => [x.status, x.retryCount]),
        [
          ['TIMED_OUT', 0],
          ['SCHEDULED', 1],
        ],
      );
    });

    it('an extended lease moves the response timeout; a callback hands the task back', async () => {
      const id = await setup('lc_lease', {});
      const [task] = await poll('lc_lease');
      clock.advance(8_000);
      await result(task, 'IN_PROGRESS', { extendLease: true, logs: ['still busy'] });
      clock.advance(5_000); // past the first lock (10 s), inside the extended one (18 s)
      assert.equal(await fire(), 0);
      assert.deepEqual(await poll('lc_lease', 'w2'), [], 'still locked for its worker');
      await result(task, 'IN_PROGRESS', { callbackAfterSeconds: 30 });
      clock.advance(29_000);
      assert.equal(await fire(), 0, 'back on its queue: no response timeout runs');
      assert.deepEqual(await poll('lc_lease', 'w2'), [], 'the callback delay holds it back');
      clock.advance(1_000);
      const [again] = await poll('lc_lease', 'w2');
      assert.equal(again.taskId, task.taskId);
      assert.equal(again.pollCount, 2);
      const logs = await call(t.app, 'GET', `/api/tasks/${task.taskId}/log`);
      assert.deepEqual(
        logs.body.map((l: any) => l.log),
        ['still busy'],
      );
      assert.equal((await run(id)).status, 'RUNNING');
    });

    it('resetcallbacks makes the delayed messages of a run visible now', async () => {
      const id = await setup('lc_reset', {});
      const [task] = await poll('lc_reset');
      await result(task, 'IN_PROGRESS', { callbackAfterSeconds: 3600 });
      assert.deepEqual(await poll('lc_reset'), []);
      const reset = await call(t.app, 'POST', `/api/workflow/${id}/resetcallbacks`);
      assert.equal(reset.status, 204);
      const [again] = await poll('lc_reset');
      assert.equal(again.taskId, task.taskId);

      const unknown = await call(t.app, 'POST', '/api/workflow/no-such-run/resetcallbacks');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.message, 'No such workflow found by id: no-such-run');
      await result(again, 'FAILED', { reasonForIncompletion: 'no' });
      const ended = await call(t.app, 'POST', `/api/workflow/${id}/resetcallbacks`);
      assert.equal(ended.status, 409);
      assert.equal(ended.body.message, 'Workflow is in terminal state. Status = FAILED');
    });

    it('retries wait their delay; exhaustion dead-letters the message and fails the run; requeue reopens it', async () => {
      const id = await setup('lc_dead', { retryCount: 1, retryDelaySeconds: 5 });
      const [first] = await poll('lc_dead');
      await result(first, 'FAILED', { reasonForIncompletion: 'flaky' });
      assert.deepEqual(await poll('lc_dead'), [], 'the retry waits its delay');
      clock.advance(5_000);
      const [second] = await poll('lc_dead');
      assert.equal(second.retriedTaskId, first.taskId);
      await result(second, 'FAILED', { reasonForIncompletion: 'broken' });

      let r = await run(id);
      assert.equal(r.status, 'FAILED');
      assert.equal(r.reasonForIncompletion, "Task a failed with status: FAILED and reason: 'broken'");
      const sizes = (await call(t.app, 'GET', '/api/tasks/queue/sizes')).body;
      assert.equal(sizes.lc_dead.deadLettered, 1);
      assert.equal(sizes.lc_dead.waiting, 0);

      const requeue = await call(t.app, 'POST', '/api/admin/requeue/lc_dead');
      assert.equal(requeue.status, 200, requeue.text);
      assert.equal(requeue.body.requeued.length, 1);
      const [item] = requeue.body.requeued;
      assert.deepEqual(
        [item.workflowId, item.taskId, item.taskRef, item.runReopened],
        [id, second.taskId, 'a', true],
      );
      assert.deepEqual(requeue.body.skipped, []);
      r = await run(id);
      assert.equal(r.status, 'RUNNING');
      assert.equal(r.reopened.length, 1);
      assert.equal(r.reopened[0].previousStatus, 'FAILED');
      assert.equal(r.reopened[0].previousReason, "Task a failed with status: FAILED and reason: 'broken'");
      assert.equal((await call(t.app, 'GET', '/api/tasks/queue/sizes')).body.lc_dead.deadLettered, 0);

      const [third] = await poll('lc_dead');
      assert.equal(third.taskId, item.newTaskId);
      assert.equal(third.retryCount, 2);
      await result(third, 'COMPLETED');
      const [next] = await poll('after_lc_dead');
      await result(next, 'COMPLETED');
      assert.equal((await run(id)).status, 'COMPLETED');

      const again = await call(t.app, 'POST', '/api/admin/requeue/lc_dead');
      assert.deepEqual(again.body, { taskType: 'lc_dead', requeued: [], skipped: [] });
    });

    it('lock expiry with no retries left times the task and the run out (Conductor) and dead-letters it', async () => {
      const id = await setup('lc_lockdead', {});
      await poll('lc_lockdead', 'gone');
      clock.advance(10_000);
      assert.ok((await fire()) >= 1);
      const r = await run(id);
      assert.equal(r.status, 'TIMED_OUT');
      assert.equal(r.tasks[0].status, 'TIMED_OUT');
      const sizes = (await call(t.app, 'GET', '/api/tasks/queue/sizes')).body;
      assert.equal(sizes.lc_lockdead.deadLettered, 1);
      assert.equal(sizes.lc_lockdead.inFlight, 0);
    });

    it('repair re-queues a missing or dead-lettered message of an open task, never a fine one', async () => {
      const id = await setup('lc_repair', {});
      const [taskId] = (await run(id)).tasks.map((x: any) => x.taskId);
      const fine = await call(t.app, 'POST', `/api/admin/repair/${id}`);
      assert.equal(fine.status, 200, fine.text);
      assert.deepEqual(fine.body, { workflowId: id, status: 'RUNNING', requeued: [], unchanged: [taskId] });

      await t.store.transaction((tx) => tx.removeMessages([taskId]));
      assert.deepEqual(await poll('lc_repair'), []);
      const missing = await call(t.app, 'POST', `/api/admin/repair/${id}`);
      assert.deepEqual(missing.body.requeued, [
        { taskId, taskRef: 'a', queueName: 'lc_repair', reason: 'missing' },
      ]);
      await t.store.transaction((tx) => tx.deadLetterMessage(taskId));
      const dead = await call(t.app, 'POST', `/api/admin/repair/${id}`);
      assert.deepEqual(dead.body.requeued, [
        { taskId, taskRef: 'a', queueName: 'lc_repair', reason: 'dead-lettered' },
      ]);
      const again = await call(t.app, 'POST', `/api/admin/repair/${id}`);
      assert.deepEqual(again.body.requeued, []);
      const handed = await poll('lc_repair');
      assert.deepEqual(
        handed.map((x) => x.taskId),
        [taskId],
        'one message, not two',
      );

      const unknown = await call(t.app, 'POST', '/api/admin/repair/no-such-run');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.message, 'No such workflow found by id: no-such-run');
    });

    it('a workflow timeout times the run out; /health reports the timer loop', async () => {
      await call(t.app, 'POST', '/api/metadata/taskdefs', [taskDef('lc_wf', {})]);
      const def = {
        ...workflowDef('wf_timeout', [{ name: 'lc_wf', taskReferenceName: 'a', type: 'SIMPLE' }]),
        timeoutSeconds: 60,
      };
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
      const id = (await call(t.app, 'POST', '/api/workflow/wf_timeout', {})).text;
      clock.advance(60_000);
      assert.ok((await fire()) >= 1);
      const r = await run(id);
      assert.equal(r.status, 'TIMED_OUT');
      assert.match(r.reasonForIncompletion, /^Workflow timed out after 60 seconds/);
      assert.equal(r.tasks[0].status, 'CANCELED');

      const health = await call(t.app, 'GET', '/health');
      assert.equal(health.status, 200);
      assert.equal(health.body.components.timers.status, 'UP');
      assert.equal(
        health.body.components.timers.running,
        false,
        'tests on a manual clock fire timers themselves',
      );
    });

    it('the admin routes validate their parameters', async () => {
      const res = await call(t.app, 'POST', '/api/admin/requeue/');
      assert.ok(res.status === 400 || res.status === 404);
      const empty = await call(t.app, 'POST', '/api/admin/requeue/no_such_type');
      assert.deepEqual(empty.body, { taskType: 'no_such_type', requeued: [], skipped: [] });
    });
  });
}
