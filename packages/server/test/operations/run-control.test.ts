import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { chainDefinitions, RunDriver } from './run-control-driver.js';

/**
 * Every transition of the contract's run-control table and every refusal (409 naming the
 * status), through the real routes, on each store.
 */
for (const storeCase of storeCases()) {
  describe(`run control on ${storeCase.name}`, () => {
    let d: RunDriver;
    const pause = chainDefinitions('rc_pause');
    const term = chainDefinitions('rc_term');
    const retry = chainDefinitions('rc_retry');
    const restart = chainDefinitions('rc_restart');
    const rerun = chainDefinitions('rc_rerun');
    const skip = chainDefinitions('rc_skip');

    const t = appSuite(storeCase);
    before(async () => {
      d = new RunDriver(t.app);
      await d.register(
        [
          pause.def('rc_pause_wf'),
          term.def('rc_term_wf'),
          retry.def('rc_retry_wf'),
          restart.def('rc_restart_wf'),
          restart.def('rc_fixed_wf', { restartable: false }),
          rerun.def('rc_rerun_wf'),
          skip.def('rc_skip_wf'),
        ],
        [
          ...pause.taskDefs,
          ...term.taskDefs,
          ...retry.taskDefs,
          ...restart.taskDefs,
          ...rerun.taskDefs,
          ...skip.taskDefs,
        ],
      );
    });

    it('pause stops scheduling, queued work stays pollable and completable, resume moves on at once', async () => {
      const id = await d.start('rc_pause_wf', { input: { x: 1 } });
      await d.ok('PUT', `/api/workflow/${id}/pause`);
      assert.equal(await d.status(id), 'PAUSED');
      await d.conflict('PUT', `/api/workflow/${id}/pause`, 'PAUSED');

      // The queued task is still handed out and its result recorded, but nothing follows it.
      await d.complete('rc_pause_a', { y: 'ya' });
      assert.deepEqual(await d.taskStates(id), [['a', 'COMPLETED']]);
      assert.deepEqual(await d.poll('rc_pause_b'), []);
      assert.equal(await d.status(id), 'PAUSED');

      await d.ok('PUT', `/api/workflow/${id}/resume`);
      assert.equal(await d.status(id), 'RUNNING');
      await d.conflict('PUT', `/api/workflow/${id}/resume`, 'RUNNING');
      const b = await d.pollOne('rc_pause_b');
      assert.deepEqual(b.inputData, { fromA: 'ya' });
      await d.result(b, 'COMPLETED', { z: 2 });
      await d.complete('rc_pause_c', { done: true });
      assert.equal(await d.status(id), 'COMPLETED');
      for (const op of ['pause', 'resume']) await d.conflict('PUT', `/api/workflow/${id}/${op}`, 'COMPLETED');
    });

    it('terminate cancels open tasks, removes their messages, records the reason; ended runs refuse it', async () => {
      const id = await d.start('rc_term_wf', { input: { x: 1 } });
      const a = await d.pollOne('rc_term_a');
      await d.ok('DELETE', `/api/workflow/${id}?reason=${encodeURIComponent('operator said stop')}`);
      const run = await d.run(id);
      assert.equal(run.status, 'TERMINATED');
      assert.equal(run.reasonForIncompletion, 'operator said stop');
      assert.deepEqual(await d.taskStates(id), [['a', 'CANCELED']]);
      assert.equal(await d.queueSize('rc_term_a'), 0);
      // The worker's late result is refused, naming the task's status, and changes nothing.
      await d.conflict('POST', '/api/tasks', 'is CANCELED: this attempt has ended', {
        taskId: a.taskId,
        workflowInstanceId: id,
        status: 'COMPLETED',
        outputData: { y: 1 },
      });
      assert.deepEqual(await d.taskStates(id), [['a', 'CANCELED']]);
      assert.deepEqual(await d.poll('rc_term_b'), []);

      await d.conflict('DELETE', `/api/workflow/${id}`, 'TERMINATED');
      await d.conflict('POST', `/api/workflow/${id}/terminate`, 'TERMINATED');
      for (const op of ['pause', 'resume'])
        await d.conflict('PUT', `/api/workflow/${id}/${op}`, 'TERMINATED');
      await d.conflict('PUT', `/api/workflow/${id}/skiptask/b`, 'TERMINATED', {});
      await d.conflict('POST', `/api/workflow/${id}/messages`, 'TERMINATED', { hello: 1 });
      await d.conflict('POST', `/api/workflow/${id}/signal`, 'TERMINATED', { hello: 1 });

      // A PAUSED run can be terminated too, with Conductor's POST form; a queued message goes.
      const paused = await d.start('rc_term_wf', { input: { x: 2 } });
      await d.ok('PUT', `/api/workflow/${paused}/pause`);
      await d.ok('POST', `/api/workflow/${paused}/terminate?reason=bye`);
      assert.equal(await d.status(paused), 'TERMINATED');
      assert.deepEqual(await d.taskStates(paused), [['a', 'CANCELED']]);
      assert.equal(await d.queueSize('rc_term_a'), 0);

      // A COMPLETED run cannot be terminated.
      const done = await d.start('rc_term_wf', { input: { x: 3 } });
      await d.complete('rc_term_a', { y: 1 });
      await d.complete('rc_term_b', { z: 1 });
      await d.complete('rc_term_c', { done: true });
      await d.conflict('DELETE', `/api/workflow/${done}`, 'COMPLETED');
      assert.equal((await call(t.app, 'DELETE', '/api/workflow/no-such-run')).status, 404);
    });

    it('retry makes a linked run that reuses completed tasks and continues from the failed one', async () => {
      const id = await d.start('rc_retry_wf', { input: { x: 5 }, correlationId: 'retry-1' });
      const a = await d.complete('rc_retry_a', { y: 'from-a' });
      const b = await d.pollOne('rc_retry_b');
      await d.result(b, 'FAILED', {}, 'flaky');
      assert.equal(await d.status(id), 'FAILED');

      const retried = await d.ok('POST', `/api/workflow/${id}/retry`);
      const newId = retried.text;
      assert.notEqual(newId, id);
      const original = await d.run(id);
      assert.equal(original.status, 'FAILED');
      assert.deepEqual(original.links.retried_by, [newId]);
      const next = await d.run(newId);
      assert.equal(next.status, 'RUNNING');
      assert.equal(next.links.retry_of, id);
      assert.equal(next.correlationId, 'retry-1');
      assert.deepEqual(next.input, { x: 5 });
      assert.deepEqual(
        next.tasks.map((x: any) => [x.referenceTaskName, x.status]),
        [
          ['a', 'COMPLETED'],
          ['b', 'SCHEDULED'],
        ],
      );
      assert.notEqual(next.tasks[0].taskId, a.taskId);
      assert.deepEqual(next.tasks[0].outputData, { y: 'from-a' });

      // a is not run again; b gets a's recorded output.
      assert.deepEqual(await d.poll('rc_retry_a'), []);
      const b2 = await d.pollOne('rc_retry_b');
      assert.equal(b2.workflowInstanceId, newId);
      assert.deepEqual(b2.inputData, { fromA: 'from-a' });
      await d.result(b2, 'COMPLETED', { z: 1 });
      await d.complete('rc_retry_c', { done: 'yes' });
      const finished = await d.run(newId);
      assert.equal(finished.status, 'COMPLETED');
      assert.deepEqual(finished.output, { final: 'yes', fromA: 'from-a' });

      await d.conflict('POST', `/api/workflow/${id}/retry`, 'already been retried');
      await d.conflict('POST', `/api/workflow/${newId}/retry`, 'COMPLETED');
      const running = await d.start('rc_retry_wf', { input: { x: 6 } });
      await d.conflict('POST', `/api/workflow/${running}/retry`, 'RUNNING');
      await d.ok('PUT', `/api/workflow/${running}/pause`);
      await d.conflict('POST', `/api/workflow/${running}/retry`, 'PAUSED');
      // A TERMINATED run can be retried: its canceled task is done again.
      await d.ok('DELETE', `/api/workflow/${running}`);
      const again = (await d.ok('POST', `/api/workflow/${running}/retry`)).text;
      assert.deepEqual(await d.taskStates(again), [['a', 'SCHEDULED']]);
      await d.ok('DELETE', `/api/workflow/${again}`);
      assert.equal((await call(t.app, 'POST', '/api/workflow/no-such-run/retry')).status, 404);
    });

    it('restart starts over with the same input, on the original or the latest definition', async () => {
      const id = await d.start('rc_restart_wf', { input: { x: 1 } });
      await d.conflict('POST', `/api/workflow/${id}/restart`, 'RUNNING');
      await d.conflict('POST', `/api/workflow/${id}/rerun`, 'RUNNING', {});
      await d.complete('rc_restart_a', { y: 1 });
      await d.complete('rc_restart_b', { z: 1 });
      await d.complete('rc_restart_c', { done: 1 });
      assert.equal(await d.status(id), 'COMPLETED');

      const first = (await d.ok('POST', `/api/workflow/${id}/restart`)).text;
      const run = await d.run(first);
      assert.equal(run.links.restart_of, id);
      assert.deepEqual(run.input, { x: 1 });
      assert.equal(run.workflowVersion, 1);
      assert.deepEqual(await d.taskStates(first), [['a', 'SCHEDULED']]);
      await d.ok('DELETE', `/api/workflow/${first}`);

      // A new version of the definition: restart keeps version 1 unless asked for the latest.
      await d.register([
        workflowDef('rc_restart_wf', [{ name: 'rc_restart_a', taskReferenceName: 'a', type: 'SIMPLE' }]),
      ]);
      const same = (await d.ok('POST', `/api/workflow/${id}/restart?useLatestDefinitions=false`)).text;
      assert.equal((await d.run(same)).workflowVersion, 1);
      const latest = (await d.ok('POST', `/api/workflow/${id}/restart?useLatestDefinitions=true`)).text;
      assert.equal((await d.run(latest)).workflowVersion, 2);
      assert.deepEqual((await d.run(id)).links.restarted_by, [first, same, latest]);
      for (const run of [same, latest]) await d.ok('DELETE', `/api/workflow/${run}`);

      // restartable: false refuses restart and rerun.
      const fixed = await d.start('rc_fixed_wf', { input: { x: 1 } });
      await d.ok('DELETE', `/api/workflow/${fixed}`);
      await d.conflict('POST', `/api/workflow/${fixed}/restart`, 'not restartable');
      await d.conflict('POST', `/api/workflow/${fixed}/rerun`, 'not restartable', {
        reRunFromTaskRefName: 'a',
      });
    });

    it('rerun resumes from a named task with new task and run input', async () => {
      const id = await d.start('rc_rerun_wf', { input: { x: 1 } });
      await d.complete('rc_rerun_a', { y: 'a1' });
      await d.complete('rc_rerun_b', { z: 'b1' });
      await d.complete('rc_rerun_c', { done: 'c1' });
      const bad = await call(t.app, 'POST', `/api/workflow/${id}/rerun`, { reRunFromTaskRefName: 'nope' });
      assert.equal(bad.status, 400, bad.text);

      const newId = (
        await d.ok('POST', `/api/workflow/${id}/rerun`, {
          reRunFromTaskRefName: 'b',
          taskInput: { extra: true },
          workflowInput: { x: 9 },
        })
      ).text;
      const run = await d.run(newId);
      assert.equal(run.links.rerun_of, id);
      assert.deepEqual((await d.run(id)).links.rerun_by, [newId]);
      assert.deepEqual(run.input, { x: 9 });
      assert.deepEqual(await d.taskStates(newId), [
        ['a', 'COMPLETED'],
        ['b', 'SCHEDULED'],
      ]);
      assert.deepEqual(await d.poll('rc_rerun_a'), []);
      const b = await d.pollOne('rc_rerun_b');
      assert.deepEqual(b.inputData, { fromA: 'a1', extra: true });
      await d.result(b, 'COMPLETED', { z: 'b2' });
      const c = await d.pollOne('rc_rerun_c');
      assert.deepEqual(c.inputData, { fromB: 'b2' });
      await d.result(c, 'COMPLETED', { done: 'c2' });
      assert.deepEqual((await d.run(newId)).output, { final: 'c2', fromA: 'a1' });

      // Without a task: the whole run again with the new input.
      const whole = (await d.ok('POST', `/api/workflow/${id}/rerun`, { workflowInput: { x: 3 } })).text;
      assert.deepEqual(await d.taskStates(whole), [['a', 'SCHEDULED']]);
      assert.deepEqual((await d.pollOne('rc_rerun_a')).inputData, { x: 3 });
      await d.ok('DELETE', `/api/workflow/${whole}`);
    });

    it('skip records a waiting or not yet reached task as SKIPPED with its output; the run continues', async () => {
      const id = await d.start('rc_skip_wf', { input: { x: 1 } });
      await d.ok('PUT', `/api/workflow/${id}/skiptask/a`, { taskOutput: { y: 'skipped-a' } });
      assert.equal(await d.queueSize('rc_skip_a'), 0);
      // c is not reached yet: recorded now, passed over when the run gets there.
      await d.ok('PUT', `/api/workflow/${id}/skiptask/c`, {
        taskOutput: { done: 'skipped-c' },
        taskInput: { why: 'test' },
      });
      assert.deepEqual(await d.taskStates(id), [
        ['a', 'SKIPPED'],
        ['b', 'SCHEDULED'],
        ['c', 'SKIPPED'],
      ]);
      await d.conflict('PUT', `/api/workflow/${id}/skiptask/c`, 'SKIPPED', {});
      await d.conflict('PUT', `/api/workflow/${id}/skiptask/a`, 'SKIPPED', {});
      const b = await d.pollOne('rc_skip_b');
      assert.deepEqual(b.inputData, { fromA: 'skipped-a' });
      await d.conflict('PUT', `/api/workflow/${id}/skiptask/b`, 'IN_PROGRESS', {});
      assert.equal((await call(t.app, 'PUT', `/api/workflow/${id}/skiptask/zzz`, {})).status, 404);
      await d.ok('PUT', `/api/workflow/${id}/pause`);
      await d.conflict('PUT', `/api/workflow/${id}/skiptask/b`, 'PAUSED', {});
      await d.ok('PUT', `/api/workflow/${id}/resume`);
      await d.result(b, 'COMPLETED', { z: 1 });
      const run = await d.run(id);
      assert.equal(run.status, 'COMPLETED');
      assert.deepEqual(run.output, { final: 'skipped-c', fromA: 'skipped-a' });
      assert.deepEqual(await d.poll('rc_skip_c'), []);
      await d.conflict('PUT', `/api/workflow/${id}/skiptask/c`, 'COMPLETED', {});
    });
  });
}
