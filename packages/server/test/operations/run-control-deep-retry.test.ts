/** Retry of runs that failed inside a fork, a loop, and a fork in a loop in a sub-workflow, on each store. */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { appSuite } from '../helpers/app-suite.js';
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
      let d: RunDriver;
      const t = appSuite(storeCase);
      before(async () => {
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
            workflowDef('dr_inner', [
              {
                name: 'loop',
                taskReferenceName: 'loop',
                type: 'DO_WHILE',
                loopCondition: "if ($.loop['iteration'] < 2) { true; } else { false; }",
                loopOver: [
                  {
                    name: 'fork',
                    taskReferenceName: 'fork',
                    type: 'FORK_JOIN',
                    forkTasks: [[w('a', 'dr_a')], [w('b1', 'dr_b1'), w('b2', 'dr_b2')]],
                  },
                  { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['a', 'b2'] },
                  w('tail', 'dr_tail', { a: '${a.output.v}', b: '${b2.output.v}' }),
                ],
              },
            ]),
            workflowDef(
              'dr_outer',
              [
                w('pre', 'dr_pre'),
                {
                  name: 'inner',
                  taskReferenceName: 'inner',
                  type: 'SUB_WORKFLOW',
                  subWorkflowParam: { name: 'dr_inner', version: 1 },
                },
                w('post', 'dr_post'),
              ],
              { out: '${post.output.v}' },
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
          workerTaskDefs([
            'dr_l1',
            'dr_l2',
            'dr_r',
            'dr_last',
            'dr_step',
            'dr_check',
            'dr_pre',
            'dr_a',
            'dr_b1',
            'dr_b2',
            'dr_tail',
            'dr_post',
          ]),
        );
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

      it('a failure in a fork in a loop in a sub-workflow: retrying the parent redoes only the failed task', async () => {
        // Every hand-out, by run and ref: a task that completed must never be handed out again.
        const handedOut = new Map<string, number>();
        const take = async (type: string, output: Record<string, unknown>, status = 'COMPLETED') => {
          const task = await d.pollOne(type);
          const key = `${task.workflowType}:${task.referenceTaskName}`;
          handedOut.set(key, (handedOut.get(key) ?? 0) + 1);
          await d.result(task, status, output, status === 'COMPLETED' ? undefined : 'boom');
          return task;
        };
        const id = await d.start('dr_outer');
        await take('dr_pre', { v: 'pre' });
        for (const i of [1, 2]) {
          await take('dr_a', { v: `a${i}` });
          await take('dr_b1', { v: `b1-${i}` });
          if (i === 2) break;
          await take('dr_b2', { v: `b2-${i}` });
          await take('dr_tail', { v: `tail${i}` });
        }
        await take('dr_b2', {}, 'FAILED');
        assert.equal(await d.status(id), 'FAILED');
        const original = await d.run(id);
        const child = await d.run(original.tasks[1].subWorkflowId);
        assert.equal(child.status, 'FAILED');
        assert.deepEqual(child.failedReferenceTaskNames, ['b2__2']);

        const next = (await d.ok('POST', `/api/workflow/${id}/retry`)).text;
        for (const type of ['dr_pre', 'dr_a', 'dr_b1', 'dr_tail', 'dr_post'])
          assert.deepEqual(await d.poll(type), [], `${type}: nothing is handed out before b2 is done again`);
        const again = await take('dr_b2', { v: 'b2-2' });
        assert.equal(again.referenceTaskName, 'b2__2');
        const tail = await take('dr_tail', { v: 'tail2' });
        assert.deepEqual(tail.inputData, { a: 'a2', b: 'b2-2' });
        await take('dr_post', { v: 'done' });
        const retried = await d.run(next);
        assert.equal(retried.status, 'COMPLETED');
        assert.deepEqual(retried.output, { out: 'done' });

        // Only b2__2 was handed out twice; every other completed task was handed out once.
        assert.deepEqual(
          [...handedOut].filter(([, n]) => n !== 1),
          [['dr_inner:b2__2', 2]],
        );
        // Every completed task of the original runs has a completed copy (same ref, same output).
        const newChild = await d.run(
          retried.tasks.find((x: any) => x.referenceTaskName === 'inner').subWorkflowId,
        );
        assert.equal(newChild.status, 'COMPLETED');
        for (const [old, copy] of [
          [original, retried],
          [child, newChild],
        ]) {
          for (const done of old.tasks.filter((x: any) => x.status === 'COMPLETED')) {
            const found = copy.tasks.find(
              (x: any) => x.referenceTaskName === done.referenceTaskName && x.status === 'COMPLETED',
            );
            assert.ok(found, `${done.referenceTaskName} has a copy`);
            if (done.type === 'SIMPLE') assert.deepEqual(found.outputData, done.outputData);
          }
        }
      });
    });
  }
}

deepRetrySuite();
