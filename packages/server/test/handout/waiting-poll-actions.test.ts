import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';

import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { eventually } from '../helpers/http-target.js';
import { pollOneTask, postResult, runOf, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';
import { handedRows, handedToWaiting, longPoll, parked } from '../helpers/waiting-polls.js';

/**
 * What operators' and event handlers' actions queue reaches a worker's waiting long poll from the
 * action's own transaction (handout/parked-polls.ts), as a start's or a result's does: the poll
 * answers with the task already its own, and the node counts it as handed, not claimed.
 */
const simple = (type: string, ref: string): Record<string, unknown> => ({
  name: type,
  taskReferenceName: ref,
  type: 'SIMPLE',
});

for (const storeCase of storeCases()) {
  describe(`tasks operators' and event handlers' actions queue, handed to waiting polls on ${storeCase.name}`, () => {
    const t = appSuite(storeCase);
    const tag = randomUUID().slice(0, 8);
    const ctl = `wa-ctl-${tag}`;
    before(async () => {
      await register(
        t.app,
        [
          workflowDef('wa_line', [simple('wa_step', 'one'), simple('wa_step', 'two')]),
          workflowDef('wa_after_wait', [
            { name: 'w', taskReferenceName: 'w', type: 'WAIT' },
            simple('wa_step', 'after'),
          ]),
          workflowDef('wa_send', [
            {
              name: 'send',
              taskReferenceName: 'send',
              type: 'EVENT',
              sink: `baton:${ctl}`,
              inputParameters: { op: '${workflow.input.op}', target: '${workflow.input.target}' },
            },
          ]),
        ],
        workerTaskDefs(['wa_step'], { retryCount: 0, responseTimeoutSeconds: 30 }),
      );
      for (const [op, action] of [
        [
          'complete',
          {
            action: 'complete_task',
            complete_task: { workflowId: '${target}', taskRefName: 'w', output: { by: 'event' } },
          },
        ],
        ['start', { action: 'start_workflow', start_workflow: { name: 'wa_line', input: { by: 'event' } } }],
      ] as const) {
        const handler = {
          name: `wa-${op}-${tag}`,
          event: `baton:${ctl}`,
          active: true,
          condition: `$.op == '${op}'`,
          actions: [action],
        };
        // Answered once this node consumes the queue (the handler service awaits its refresh).
        const res = await call(t.app, 'POST', '/api/event', handler);
        assert.equal(res.status, 200, res.text);
      }
    });

    /** Parks a long poll of wa_step, runs `act`, and answers what the poll was handed. */
    async function handedBy(workerId: string, act: () => Promise<void>): Promise<unknown[][]> {
      const before = await handedToWaiting(t.app, 'wa_step');
      const poll = longPoll(t.app, 'wa_step', 1, workerId);
      await parked(t.app, 1);
      await act();
      const res = await poll;
      assert.equal(res.status, 200, res.text);
      assert.equal(await handedToWaiting(t.app, 'wa_step'), before + res.body.length);
      return handedRows(res.body);
    }

    it('a retry of a failed run', async () => {
      const id = await startRun(t.app, 'wa_line', { input: {} });
      await postResult(t.app, await pollOneTask(t.app, 'wa_step', 'w0'), 'FAILED', {
        reasonForIncompletion: 'no good',
      });
      assert.equal((await runOf(t.app, id)).status, 'FAILED');
      // A retry is a new run linked to the failed one (docs/design/runs.md); it answers its id.
      let retried = '';
      const rows = await handedBy('wr', async () => {
        const res = await call(t.app, 'POST', `/api/workflow/${id}/retry`);
        assert.equal(res.status, 200, res.text);
        retried = res.text;
      });
      assert.notEqual(retried, id);
      assert.deepEqual(rows, [[retried, 'one', 'wr', 'IN_PROGRESS']]);
    });

    it('a resume of a paused run', async () => {
      const id = await startRun(t.app, 'wa_line', { input: {} });
      const first = await pollOneTask(t.app, 'wa_step', 'w0');
      assert.equal((await call(t.app, 'PUT', `/api/workflow/${id}/pause`)).status, 200);
      await postResult(t.app, first, 'COMPLETED', { workerId: 'w0' });
      // Paused: the result is taken, the next step is not scheduled.
      assert.deepEqual(
        (await runOf(t.app, id)).tasks.map((x: { referenceTaskName: string }) => x.referenceTaskName),
        ['one'],
      );
      const rows = await handedBy('wp', async () => {
        assert.equal((await call(t.app, 'PUT', `/api/workflow/${id}/resume`)).status, 200);
      });
      assert.deepEqual(rows, [[id, 'two', 'wp', 'IN_PROGRESS']]);
    });

    it('a skipped task', async () => {
      const id = await startRun(t.app, 'wa_after_wait', { input: {} });
      const rows = await handedBy('ws', async () => {
        const res = await call(t.app, 'PUT', `/api/workflow/${id}/skiptask/w`, {});
        assert.equal(res.status, 200, res.text);
      });
      assert.deepEqual(rows, [[id, 'after', 'ws', 'IN_PROGRESS']]);
      const run = await runOf(t.app, id);
      assert.deepEqual(
        run.tasks.map((x: { referenceTaskName: string; status: string }) => [x.referenceTaskName, x.status]),
        [
          ['w', 'SKIPPED'],
          ['after', 'IN_PROGRESS'],
        ],
      );
    });

    it('a result posted by reference name', async () => {
      const id = await startRun(t.app, 'wa_after_wait', { input: {} });
      const rows = await handedBy('wn', async () => {
        const res = await call(t.app, 'POST', `/api/tasks/${id}/w/COMPLETED`, { by: 'ref' });
        assert.equal(res.status, 200, res.text);
      });
      assert.deepEqual(rows, [[id, 'after', 'wn', 'IN_PROGRESS']]);
    });

    it('an event handler’s complete_task', async () => {
      const id = await startRun(t.app, 'wa_after_wait', { input: {} });
      const rows = await handedBy('we', async () => {
        await startRun(t.app, 'wa_send', { input: { op: 'complete', target: id } });
      });
      assert.deepEqual(rows, [[id, 'after', 'we', 'IN_PROGRESS']]);
      const run = await runOf(t.app, id);
      assert.equal(run.tasks[0].outputData.by, 'event');
    });

    it('an event handler’s start_workflow', async () => {
      const rows = await handedBy('wf', async () => {
        await startRun(t.app, 'wa_send', { input: { op: 'start' } });
      });
      assert.equal(rows.length, 1);
      const [runId, ref, workerId, status] = rows[0] ?? [];
      assert.deepEqual([ref, workerId, status], ['one', 'wf', 'IN_PROGRESS']);
      const run = await eventually(async () => {
        const r = await runOf(t.app, String(runId));
        return r.input?.by === 'event' ? r : undefined;
      }, 'the run the handler started');
      assert.equal(run.workflowName, 'wa_line');
    });
  });
}
