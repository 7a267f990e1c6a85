/*
 * Retry of runs that failed inside a fork and inside a loop: written for when the FORK_JOIN,
 * JOIN and DO_WHILE kinds are in this build. Rename to `run-control-deep-retry.test.ts` then (the
 * DO_WHILE case also needs the server's script runner for `loopCondition`). Until then the
 * registration of these definitions is refused (`task type … is not supported`), so the file is
 * kept out of the runner rather than skipped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { testApp, type TestApp } from '../helpers/app.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { RunDriver } from './run-control-driver.js';

const w = (ref: string, name: string, inputParameters: Record<string, unknown> = {}) => ({
  name,
  taskReferenceName: ref,
  type: 'SIMPLE',
  inputParameters,
});

export function deepRetrySuite(): void {
  for (const storeCase of storeCases()) {
    describe(`retry inside forks and loops on ${storeCase.name}`, () => {
      let t: TestApp;
      let d: RunDriver;
      let cleanup: () => Promise<void>;
      before(async () => {
        const opened = await storeCase.open();
        cleanup = opened.cleanup;
        t = await testApp(opened.store);
        d = new RunDriver(t.app);
        await d.register(
          [
            workflowDef(
              'dr_fork',
              [
                {
                  name: 'fork',
                  taskReferenceName: 'fork',
                  type: 'FORK_JOIN',
                  forkTasks: [[w('left1', 'dr_l1'), w('left2', 'dr_l2')], [w('right', 'dr_r')]],
                },
                { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['left2', 'right'] },
                w('last', 'dr_last', { l: '${left1.output.v}', r: '${right.output.v}' }),
              ],
              { out: '${last.output.v}' },
            ),
            workflowDef('dr_loop', [
              {
                name: 'loop',
                taskReferenceName: 'loop',
                type: 'DO_WHILE',
                loopCondition: "if ($.loop['iteration'] < 3) { true; } else { false; }",
                loopOver: [w('step', 'dr_step'), w('check', 'dr_check')],
              },
            ]),
          ],
          workerTaskDefs(['dr_l1', 'dr_l2', 'dr_r', 'dr_last', 'dr_step', 'dr_check']),
        );
      });
      after(async () => {
        await t.close();
        await cleanup();
      });

      it('a failed fork branch is done again; the other branch and the branch head are not', async () => {
        const id = await d.start('dr_fork');
        await d.complete('dr_l1', { v: 'L' });
        await d.complete('dr_r', { v: 'R' });
        const left2 = await d.pollOne('dr_l2');
        await d.result(left2, 'FAILED', {}, 'boom');
        assert.equal(await d.status(id), 'FAILED');
        const next = (await d.ok('POST', `/api/workflow/${id}/retry`)).text;
        assert.deepEqual(await d.poll('dr_l1'), []);
        assert.deepEqual(await d.poll('dr_r'), []);
        await d.complete('dr_l2', { v: 'L2' });
        const last = await d.pollOne('dr_last');
        assert.deepEqual(last.inputData, { l: 'L', r: 'R' });
        await d.result(last, 'COMPLETED', { v: 'done' });
        assert.equal(await d.status(next), 'COMPLETED');
      });

      it('a loop failed in its second iteration continues there, keeping the first', async () => {
        const id = await d.start('dr_loop');
        await d.complete('dr_step', { i: 1 });
        await d.complete('dr_check', { i: 1 });
        await d.complete('dr_step', { i: 2 });
        const check2 = await d.pollOne('dr_check');
        await d.result(check2, 'FAILED', {}, 'boom');
        assert.equal(await d.status(id), 'FAILED');
        const next = (await d.ok('POST', `/api/workflow/${id}/retry`)).text;
        assert.deepEqual(await d.poll('dr_step'), [], 'completed iterations are not run again');
        const again = await d.pollOne('dr_check');
        assert.equal(again.referenceTaskName, 'check__2');
        await d.result(again, 'COMPLETED', { i: 2 });
        await d.complete('dr_step', { i: 3 });
        await d.complete('dr_check', { i: 3 });
        assert.equal(await d.status(next), 'COMPLETED');
      });
    });
  }
}

deepRetrySuite();
