import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ManualClock } from '../../src/clock.js';
import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { workflowDef } from '../helpers/definitions.js';
import { pollOneTask, pollTasks, postResult, runOf } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

/**
 * Conductor's specs whose sequences depend on time (SimpleWorkflowSpec: response timeout, task
 * retries, callbacks, retry and restart of a simple run; RetryPolicySpec: capped backoff, jitter,
 * total timeout), replayed through the routes on a manual clock: where the spec sleeps, the test
 * moves the clock and fires the due timers, so nothing depends on the machine's speed.
 */

const OWNER = 'test@harness.com';
/** Each test gets its own worker types (`<prefix>_1`, `<prefix>_2`): no test polls another's task. */
const linear = (prefix: string) =>
  workflowDef(
    `${prefix}_wf`,
    [
      {
        name: `${prefix}_1`,
        taskReferenceName: 't1',
        type: 'SIMPLE',
        inputParameters: {
          p1: '${workflow.input.param1}',
          p2: '${workflow.input.param2}',
          p3: '${CPEWF_TASK_ID}',
        },
      },
      {
        name: `${prefix}_2`,
        taskReferenceName: 't2',
        type: 'SIMPLE',
        inputParameters: { tp1: '${workflow.input.param1}', tp2: '${t1.output.op}' },
      },
    ],
    { o3: '${t1.output.op}' },
  );
const taskDef = (name: string, fields: Record<string, unknown> = {}) => ({
  name,
  retryCount: 1,
  timeoutSeconds: 120,
  responseTimeoutSeconds: 120,
  retryDelaySeconds: 0,
  ownerEmail: OWNER,
  ...fields,
});
const input = { param1: 'p1 value', param2: 'p2 value' };
const shape = (run: any): Array<[string, string]> => run.tasks.map((t: any) => [t.taskType, t.status]);

for (const storeCase of storeCases()) {
  describe(`Conductor scenarios on a manual clock (${storeCase.name})`, () => {
    const clock = new ManualClock();
    const t = appSuite(storeCase, { clock });
    const fire = (): Promise<number> => t.server.timers.fireDue();
    /** Registers `prefix`'s two worker types (with `first` and `second` settings) and its workflow. */
    const setup = async (
      prefix: string,
      first: Record<string, unknown> = {},
      second: Record<string, unknown> = {},
    ) => register(t.app, [linear(prefix)], [taskDef(`${prefix}_1`, first), taskDef(`${prefix}_2`, second)]);
    const start = async (prefix: string): Promise<string> => {
      const res = await call(t.app, 'POST', `/api/workflow/${prefix}_wf`, {
        input,
        correlationId: 'integration_test_1',
      });
      assert.equal(res.status, 200, res.text);
      return res.text;
    };
    const complete = async (type: string, output: Record<string, unknown> = {}) => {
      const task = await pollOneTask(t.app, type);
      await postResult(t.app, task, 'COMPLETED', { outputData: output });
      return task;
    };
    const failTask = async (type: string, reason: string) => {
      const task = await pollOneTask(t.app, type);
      await postResult(t.app, task, 'FAILED', { reasonForIncompletion: reason, outputData: {} });
      return task;
    };
    const nothingToPoll = async (type: string) => assert.deepEqual(await pollTasks(t.app, type), []);

    describe('SimpleWorkflowSpec', () => {
      it('"Test Simple Workflow with response timeout": timed out, retried, called back, completed', async () => {
        await setup('sw_rt', { responseTimeoutSeconds: 10, retryCount: 1 });
        const id = await start('sw_rt');
        assert.deepEqual(shape(await runOf(t.app, id)), [['sw_rt_1', 'SCHEDULED']]);
        const first = await pollOneTask(t.app, 'sw_rt_1');
        assert.equal(first.status, 'IN_PROGRESS');
        await nothingToPoll('sw_rt_1');
        clock.advance(11_000);
        await fire();
        let run = await runOf(t.app, id);
        assert.equal(run.status, 'RUNNING');
        assert.deepEqual(shape(run), [
          ['sw_rt_1', 'TIMED_OUT'],
          ['sw_rt_1', 'SCHEDULED'],
        ]);
        // The retry is polled and sent back IN_PROGRESS, to be called back after 2 seconds.
        const second = await pollOneTask(t.app, 'sw_rt_1');
        await postResult(t.app, second, 'IN_PROGRESS', { callbackAfterSeconds: 2 });
        run = await runOf(t.app, id);
        assert.equal(run.status, 'RUNNING');
        assert.deepEqual(shape(run)[1], ['sw_rt_1', 'SCHEDULED']);
        await nothingToPoll('sw_rt_1');
        clock.advance(2_010);
        await complete('sw_rt_1', { op: 'task1.done' });
        await complete('sw_rt_2');
        assert.equal((await runOf(t.app, id)).status, 'COMPLETED');
      });

      it('a late result from the worker whose attempt the response timeout ended: 200 changing nothing (as Conductor); anyone else 409', async () => {
        // Conductor's JavaScript SDK suite, "Lease Extension: WITHOUT lease extension".
        await setup('sw_late', { responseTimeoutSeconds: 10, retryCount: 0 });
        const id = await start('sw_late');
        const task = await pollOneTask(t.app, 'sw_late_1', 'holder');
        clock.advance(11_000);
        await fire();
        assert.equal((await runOf(t.app, id)).status, 'TIMED_OUT');
        const late = {
          taskId: task.taskId,
          workflowInstanceId: id,
          status: 'COMPLETED',
          outputData: { x: 1 },
        };
        const own = await call(t.app, 'POST', '/api/tasks', { ...late, workerId: 'holder' });
        assert.equal(own.status, 200, own.text);
        assert.equal(own.headers['baton-result-applied'], 'false');
        const run = await runOf(t.app, id);
        assert.equal(run.status, 'TIMED_OUT');
        assert.deepEqual(shape(run), [['sw_late_1', 'TIMED_OUT']]);
        const other = await call(t.app, 'POST', '/api/tasks', { ...late, workerId: 'someone-else' });
        assert.equal(other.status, 409, other.text);
        assert.match(other.text, /is TIMED_OUT: this attempt has ended/);
        const unnamed = await call(t.app, 'POST', '/api/tasks', late);
        assert.equal(unnamed.status, 409, unnamed.text);
      });

      it('"Test simple workflow with task retries": two failures, each retried after the delay, then completed', async () => {
        await setup('sw_tr', {}, { retryCount: 3, retryDelaySeconds: 2 });
        const id = await start('sw_tr');
        const t1 = await pollOneTask(t.app, 'sw_tr_1');
        assert.equal(t1.inputData.p1, 'p1 value');
        assert.equal(t1.inputData.p2, 'p2 value');
        const op = `task1.output -> ${String(t1.inputData.p1)}.${String(t1.inputData.p2)}`;
        await postResult(t.app, t1, 'COMPLETED', { outputData: { op } });
        for (let attempt = 0; attempt < 2; attempt++) {
          const polled = await failTask('sw_tr_2', 'failure...0');
          assert.deepEqual(polled.inputData, { tp1: 'p1 value', tp2: op });
          await nothingToPoll('sw_tr_2');
          clock.advance(2_000);
          await fire();
        }
        const last = await complete('sw_tr_2');
        assert.deepEqual(last.inputData, { tp1: 'p1 value', tp2: op });
        const run = await runOf(t.app, id);
        assert.equal(run.status, 'COMPLETED');
        assert.deepEqual(shape(run), [
          ['sw_tr_1', 'COMPLETED'],
          ['sw_tr_2', 'FAILED'],
          ['sw_tr_2', 'FAILED'],
          ['sw_tr_2', 'COMPLETED'],
        ]);
        assert.equal(run.tasks[2].retriedTaskId, run.tasks[1].taskId);
        assert.equal(run.tasks[3].retriedTaskId, run.tasks[2].taskId);
        assert.deepEqual(run.failedReferenceTaskNames, ['t2']);
        assert.deepEqual(run.failedTaskNames, ['sw_tr_2']);
      });

      it('"Test simple workflow with retry at workflow level": the retry schedules the failed task, with its own id as input', async () => {
        await setup('sw_wr', { retryCount: 1, retryDelaySeconds: 0 });
        const id = await start('sw_wr');
        let run = await runOf(t.app, id);
        assert.equal(run.tasks[0].inputData.p3, run.tasks[0].taskId);
        await failTask('sw_wr_1', 'failure...0');
        run = await runOf(t.app, id);
        assert.equal(run.status, 'RUNNING');
        assert.deepEqual(shape(run), [
          ['sw_wr_1', 'FAILED'],
          ['sw_wr_1', 'SCHEDULED'],
        ]);
        assert.equal(run.tasks[1].inputData.p3, run.tasks[1].taskId);
        await failTask('sw_wr_1', 'failure...0');
        run = await runOf(t.app, id);
        assert.equal(run.status, 'FAILED');
        assert.deepEqual(shape(run), [
          ['sw_wr_1', 'FAILED'],
          ['sw_wr_1', 'FAILED'],
        ]);
        // Baton's retry is a new run linked retry_of (Conductor retries in place).
        const retried = await call(t.app, 'POST', `/api/workflow/${id}/retry`);
        assert.equal(retried.status, 200, retried.text);
        run = await runOf(t.app, retried.text);
        assert.equal(run.links.retry_of, id);
        assert.equal(run.status, 'RUNNING');
        assert.deepEqual(shape(run), [['sw_wr_1', 'SCHEDULED']]);
        assert.equal(run.tasks[0].inputData.p3, run.tasks[0].taskId);
        await complete('sw_wr_1', { op: 'task1.done' });
        await complete('sw_wr_2');
        run = await runOf(t.app, retried.text);
        assert.equal(run.status, 'COMPLETED');
        assert.deepEqual(shape(run), [
          ['sw_wr_1', 'COMPLETED'],
          ['sw_wr_2', 'COMPLETED'],
        ]);
        assert.equal(run.output.o3, 'task1.done');
      });

      it('"Test Simple workflow restart without using the latest definition" and "with the latest definition"', async () => {
        await setup('sw_rs', { retryCount: 0 });
        const id = await start('sw_rs');
        await failTask('sw_rs_1', 'failed..');
        assert.equal((await runOf(t.app, id)).status, 'FAILED');
        // A version 2 with one more task: restart without the latest keeps version 1.
        const v2 = { ...linear('sw_rs'), version: 2 } as Record<string, any>;
        v2.tasks = [...v2.tasks, { name: 'sw_rs_3', taskReferenceName: 'task_added', type: 'SIMPLE' }];
        await register(t.app, [], [taskDef('sw_rs_3')]);
        const put = await call(t.app, 'PUT', '/api/metadata/workflow', [v2]);
        assert.equal(put.status, 200, put.text);

        const same = await call(t.app, 'POST', `/api/workflow/${id}/restart`);
        assert.equal(same.status, 200, same.text);
        await complete('sw_rs_1', { op: 'task1.done' });
        await complete('sw_rs_2');
        let run = await runOf(t.app, same.text);
        assert.equal(run.status, 'COMPLETED');
        assert.equal(run.workflowVersion, 1);
        assert.equal(run.tasks.length, 2);

        const latest = await call(t.app, 'POST', `/api/workflow/${id}/restart?useLatestDefinitions=true`);
        assert.equal(latest.status, 200, latest.text);
        await complete('sw_rs_1', { op: 'task1.done' });
        await complete('sw_rs_2');
        assert.equal((await runOf(t.app, latest.text)).status, 'RUNNING');
        const added = await complete('sw_rs_3');
        assert.equal(added.workflowInstanceId, latest.text);
        assert.equal(added.referenceTaskName, 'task_added');
        run = await runOf(t.app, latest.text);
        assert.equal(run.status, 'COMPLETED');
        assert.equal(run.workflowVersion, 2);
        assert.equal(run.tasks.length, 3);
      });

      it('"Test Long running simple workflow": IN_PROGRESS with a 5 s callback is polled again after 5 s', async () => {
        await setup('sw_lr');
        const id = await start('sw_lr');
        const first = await pollOneTask(t.app, 'sw_lr_1');
        assert.equal(first.inputData.p1, 'p1 value');
        await postResult(t.app, first, 'IN_PROGRESS', {
          callbackAfterSeconds: 5,
          outputData: { op: 'task1.in.progress' },
        });
        await nothingToPoll('sw_lr_1');
        clock.advance(5_000);
        await complete('sw_lr_1', { op: 'task1.done' });
        let run = await runOf(t.app, id);
        assert.deepEqual(shape(run)[0], ['sw_lr_1', 'COMPLETED']);
        assert.equal(run.tasks[0].outputData.op, 'task1.done');
        const second = await complete('sw_lr_2');
        assert.deepEqual(second.inputData, { tp1: 'p1 value', tp2: 'task1.done' });
        run = await runOf(t.app, id);
        assert.equal(run.status, 'COMPLETED');
        assert.deepEqual(shape(run), [
          ['sw_lr_1', 'COMPLETED'],
          ['sw_lr_2', 'COMPLETED'],
        ]);
      });

      it('"Test simple workflow when the task\'s call back after seconds are reset": resetcallbacks makes it pollable at once', async () => {
        await setup('sw_cb');
        const id = await start('sw_cb');
        const first = await pollOneTask(t.app, 'sw_cb_1');
        await postResult(t.app, first, 'IN_PROGRESS', {
          callbackAfterSeconds: 3600,
          outputData: { op: 'task1.in.progress' },
        });
        await nothingToPoll('sw_cb_1');
        await nothingToPoll('sw_cb_1');
        const reset = await call(t.app, 'POST', `/api/workflow/${id}/resetcallbacks`);
        assert.equal(reset.status, 204, reset.text);
        await complete('sw_cb_1', { op: 'task1.done' });
        const second = await complete('sw_cb_2');
        assert.deepEqual(second.inputData, { tp1: 'p1 value', tp2: 'task1.done' });
        const run = await runOf(t.app, id);
        assert.equal(run.status, 'COMPLETED');
        assert.equal(run.tasks.length, 2);
      });

      it('"Test simple workflow when update task\'s result with call back after seconds": back to SCHEDULED each time', async () => {
        await setup('sw_ub');
        const id = await start('sw_ub');
        const first = await pollOneTask(t.app, 'sw_ub_1');
        await postResult(t.app, first, 'IN_PROGRESS', { outputData: { op: 'task1.in.progress' } });
        let run = await runOf(t.app, id);
        assert.equal(run.status, 'RUNNING');
        assert.deepEqual(shape(run), [['sw_ub_1', 'SCHEDULED']]);
        assert.equal(run.tasks[0].callbackAfterSeconds, 0);
        const second = await pollOneTask(t.app, 'sw_ub_1');
        await postResult(t.app, second, 'IN_PROGRESS', {
          callbackAfterSeconds: 3600,
          outputData: { op: 'task1.in.progress' },
        });
        run = await runOf(t.app, id);
        assert.deepEqual(shape(run), [['sw_ub_1', 'SCHEDULED']]);
        assert.equal(run.tasks[0].callbackAfterSeconds, 3600);
        await nothingToPoll('sw_ub_1');
        await call(t.app, 'DELETE', `/api/workflow/${id}?reason=done`);
      });

      it('"Test non restartable simple workflow": restart refused (Baton refuses it in every status)', async () => {
        await setup('sw_nr', { retryCount: 0 });
        const def = { ...linear('sw_nr'), name: 'sw_nr_wf_non_restartable', restartable: false };
        await register(t.app, [def]);
        const res = await call(t.app, 'POST', '/api/workflow/sw_nr_wf_non_restartable', { input });
        const id = res.text;
        await failTask('sw_nr_1', 'failure...0');
        const run = await runOf(t.app, id);
        assert.equal(run.status, 'FAILED');
        assert.deepEqual(shape(run), [['sw_nr_1', 'FAILED']]);
        // Conductor restarts a FAILED non-restartable run and refuses only a COMPLETED one; the
        // contract refuses restart of a non-restartable definition in every status.
        const restart = await call(t.app, 'POST', `/api/workflow/${id}/restart`);
        assert.equal(restart.status, 409, restart.text);
        assert.match(restart.body.message, /restartable/);
        // Retry, which the contract allows, carries the run to its end.
        const retried = await call(t.app, 'POST', `/api/workflow/${id}/retry`);
        assert.equal(retried.status, 200, retried.text);
        await complete('sw_nr_1', { op: 'task1.done' });
        await complete('sw_nr_2');
        const done = await runOf(t.app, retried.text);
        assert.equal(done.status, 'COMPLETED');
        assert.equal(done.output.o3, 'task1.done');
        const again = await call(t.app, 'POST', `/api/workflow/${retried.text}/restart`);
        assert.equal(again.status, 409, again.text);
      });
    });

    describe('RetryPolicySpec', () => {
      /** Fails the one task of `prefix` and answers the rescheduled attempt. */
      const failAndReschedule = async (prefix: string, id: string) => {
        await failTask(`${prefix}_1`, 'failed');
        const run = await runOf(t.app, id);
        const scheduled = run.tasks.filter((task: any) => task.status === 'SCHEDULED');
        assert.equal(scheduled.length, 1, JSON.stringify(shape(run)));
        return scheduled[0];
      };
      /** Moves the clock to the moment the retry is due and checks it is not pollable a bit before. */
      const dueAfter = async (prefix: string, ms: number) => {
        clock.advance(ms - 1);
        await fire();
        await nothingToPoll(`${prefix}_1`);
        clock.advance(1);
        await fire();
      };

      it('"Exponential backoff delay is capped by maxRetryDelaySeconds": 2 s, then 3 s (capped from 4 s)', async () => {
        await setup('rp_exp', {
          retryCount: 5,
          retryDelaySeconds: 2,
          retryLogic: 'EXPONENTIAL_BACKOFF',
          maxRetryDelaySeconds: 3,
          timeoutSeconds: 3600,
          responseTimeoutSeconds: 3600,
        });
        const id = await start('rp_exp');
        let retry = await failAndReschedule('rp_exp', id);
        assert.equal(retry.callbackAfterSeconds, 2);
        await dueAfter('rp_exp', 2_000);
        retry = await failAndReschedule('rp_exp', id);
        assert.equal(retry.callbackAfterSeconds, 3);
        await dueAfter('rp_exp', 3_000);
        await complete('rp_exp_1');
        await call(t.app, 'DELETE', `/api/workflow/${id}?reason=done`);
      });

      it('"Linear backoff delay is capped by maxRetryDelaySeconds": 4 s, then 5 s (capped from 8 s)', async () => {
        await setup('rp_lin', {
          retryCount: 5,
          retryDelaySeconds: 2,
          retryLogic: 'LINEAR_BACKOFF',
          backoffScaleFactor: 2,
          maxRetryDelaySeconds: 5,
          timeoutSeconds: 3600,
          responseTimeoutSeconds: 3600,
        });
        const id = await start('rp_lin');
        let retry = await failAndReschedule('rp_lin', id);
        assert.equal(retry.callbackAfterSeconds, 4);
        await dueAfter('rp_lin', 4_000);
        retry = await failAndReschedule('rp_lin', id);
        assert.equal(retry.callbackAfterSeconds, 5);
        await call(t.app, 'DELETE', `/api/workflow/${id}?reason=done`);
      });

      it('"backoffJitterMs adds a random offset in [0, maxJitterMs] to the retry delay": 60 s shown, due within 60–65 s', async () => {
        await setup('rp_jit', {
          retryCount: 3,
          retryDelaySeconds: 60,
          retryLogic: 'FIXED',
          backoffJitterMs: 5000,
          timeoutSeconds: 3600,
          responseTimeoutSeconds: 3600,
        });
        const id = await start('rp_jit');
        const retry = await failAndReschedule('rp_jit', id);
        assert.equal(retry.callbackAfterSeconds, 60);
        clock.advance(59_999);
        await fire();
        await nothingToPoll('rp_jit_1');
        clock.advance(5_001);
        await fire();
        await complete('rp_jit_1');
        await call(t.app, 'DELETE', `/api/workflow/${id}?reason=done`);
      });

      it('"backoffJitterMs of zero produces no jitter": due exactly after the base delay', async () => {
        await setup('rp_nj', {
          retryCount: 3,
          retryDelaySeconds: 30,
          retryLogic: 'FIXED',
          backoffJitterMs: 0,
          timeoutSeconds: 3600,
          responseTimeoutSeconds: 3600,
        });
        const id = await start('rp_nj');
        const retry = await failAndReschedule('rp_nj', id);
        assert.equal(retry.callbackAfterSeconds, 30);
        await dueAfter('rp_nj', 30_000);
        await complete('rp_nj_1');
        await call(t.app, 'DELETE', `/api/workflow/${id}?reason=done`);
      });

      it('"Cap is applied before jitter": 3 s shown, due within 3–5 s', async () => {
        await setup('rp_cj', {
          retryCount: 5,
          retryDelaySeconds: 2,
          retryLogic: 'EXPONENTIAL_BACKOFF',
          maxRetryDelaySeconds: 3,
          backoffJitterMs: 2000,
          timeoutSeconds: 3600,
          responseTimeoutSeconds: 3600,
        });
        const id = await start('rp_cj');
        await failAndReschedule('rp_cj', id);
        clock.advance(4_000);
        await fire();
        const retry = await failAndReschedule('rp_cj', id);
        assert.equal(retry.callbackAfterSeconds, 3);
        clock.advance(2_999);
        await fire();
        await nothingToPoll('rp_cj_1');
        clock.advance(2_001);
        await fire();
        await complete('rp_cj_1');
        await call(t.app, 'DELETE', `/api/workflow/${id}?reason=done`);
      });

      it('"totalTimeoutSeconds=0 is disabled — retries continue as normal"', async () => {
        await setup('rp_t0', {
          retryCount: 5,
          retryDelaySeconds: 0,
          totalTimeoutSeconds: 0,
          timeoutSeconds: 3600,
          responseTimeoutSeconds: 3600,
        });
        const id = await start('rp_t0');
        clock.advance(3_000_000);
        await failTask('rp_t0_1', 'failed');
        const run = await runOf(t.app, id);
        assert.ok(run.tasks.length >= 2);
        assert.equal(run.tasks.at(-1).status, 'SCHEDULED');
        await call(t.app, 'DELETE', `/api/workflow/${id}?reason=done`);
      });

      it('"totalTimeoutSeconds exceeded on retry — workflow fails with no further retries"', async () => {
        await setup('rp_tx', {
          retryCount: 10,
          retryDelaySeconds: 0,
          totalTimeoutSeconds: 5,
          timeoutSeconds: 0,
          responseTimeoutSeconds: 1,
          timeoutPolicy: 'TIME_OUT_WF',
        });
        const id = await start('rp_tx');
        // The spec backdates the first attempt by 60 s; here the clock moves on 60 s instead.
        const polled = await pollOneTask(t.app, 'rp_tx_1');
        clock.advance(60_000);
        await postResult(t.app, polled, 'FAILED', { reasonForIncompletion: 'failed' });
        await fire();
        const run = await runOf(t.app, id);
        assert.ok(['TIMED_OUT', 'FAILED'].includes(run.status), run.status);
      });

      it('"totalTimeoutSeconds exceeded in checkTotalTimeout — IN_PROGRESS task is timed out" (RETRY policy)', async () => {
        await setup('rp_ti', {
          retryCount: 10,
          retryDelaySeconds: 0,
          totalTimeoutSeconds: 5,
          timeoutSeconds: 0,
          responseTimeoutSeconds: 1,
          timeoutPolicy: 'RETRY',
        });
        const id = await start('rp_ti');
        const polled = await pollOneTask(t.app, 'rp_ti_1');
        clock.advance(60_000);
        await fire();
        const run = await runOf(t.app, id);
        const timedOut = run.tasks.find((task: any) => task.taskId === polled.taskId);
        assert.equal(timedOut.status, 'TIMED_OUT');
        await call(t.app, 'DELETE', `/api/workflow/${id}?reason=done`);
      });
    });
  });
}
