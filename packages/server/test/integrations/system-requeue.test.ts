import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { FastifyInstance } from 'fastify';

import { call } from '../helpers/app.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { eventually, json, startHttpTarget, type HttpTarget } from '../helpers/http-target.js';
import { type McpTestServer, startMcpServer } from '../helpers/integration-servers.js';
import { runOf, startRun } from '../helpers/runs.js';
import { storeCases } from '../helpers/stores.js';

/**
 * Calls the engine makes that used up their retries are dead-lettered on their internal queue
 * (`_system-HTTP`, …) like a worker task's message, and an operator requeues them through the
 * same route: `POST /api/admin/requeue/{type}` reopens the task, the executor makes the call
 * again, and the run goes on.
 */

async function runTo(app: FastifyInstance, id: string, statuses: string[]): Promise<any> {
  return eventually(
    async () => {
      const run = await runOf(app, id);
      return statuses.includes(run.status) ? run : undefined;
    },
    `run ${id} to reach ${statuses.join('/')}`,
    30_000,
  );
}

const statuses = (run: { tasks: Array<{ status: string }> }): string[] => run.tasks.map((t) => t.status);

for (const storeCase of storeCases()) {
  describe(`requeue of dead-lettered system calls on ${storeCase.name}`, () => {
    const t = appSuite(storeCase);
    let target: HttpTarget;
    let mcp: McpTestServer;
    let up = false;
    before(async () => {
      target = await startHttpTarget((_req, res) =>
        up ? json(res, 200, { ok: true }) : json(res, 503, { error: 'down' }),
      );
      mcp = await startMcpServer();
    });
    after(async () => {
      await target.close();
      await mcp.close();
    });

    it('an HTTP task that exhausted its retries is requeued, called again, and the run completes', async () => {
      await register(
        t.app,
        [
          {
            name: 'requeue_http',
            ownerEmail: 'a@b.c',
            tasks: [
              {
                name: 'requeue_call',
                taskReferenceName: 'call',
                type: 'HTTP',
                inputParameters: { http_request: { uri: `${target.url}/thing`, method: 'GET' } },
              },
            ],
            outputParameters: { ok: '${call.output.response.body.ok}' },
          },
        ],
        [{ name: 'requeue_call', ownerEmail: 'a@b.c', retryCount: 1, retryDelaySeconds: 0 }],
      );
      const id = await startRun(t.app, 'requeue_http');
      const failed = await runTo(t.app, id, ['FAILED', 'COMPLETED']);
      assert.equal(failed.status, 'FAILED');
      assert.deepEqual(statuses(failed), ['FAILED', 'FAILED']);
      assert.equal(target.requests.length, 2);
      const deadTaskId = failed.tasks[1].taskId as string;

      up = true;
      const requeue = await call(t.app, 'POST', '/api/admin/requeue/HTTP');
      assert.equal(requeue.status, 200, requeue.text);
      assert.deepEqual(requeue.body.skipped, []);
      assert.equal(requeue.body.requeued.length, 1, requeue.text);
      assert.equal(requeue.body.requeued[0].taskId, deadTaskId);
      assert.equal(requeue.body.requeued[0].runReopened, true);

      const run = await runTo(t.app, id, ['COMPLETED', 'FAILED']);
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks));
      assert.deepEqual(statuses(run), ['FAILED', 'FAILED', 'COMPLETED']);
      assert.equal(run.tasks[2].taskId, requeue.body.requeued[0].newTaskId);
      assert.deepEqual(run.output, { ok: true });
      assert.equal(target.requests.length, 3, 'the call was made once more');
      assert.equal(target.requests[2]?.headers['idempotency-key'], run.tasks[2].taskId);
      assert.equal(run.reopened.length, 1);

      const again = await call(t.app, 'POST', '/api/admin/requeue/HTTP');
      assert.deepEqual(again.body, { taskType: 'HTTP', requeued: [], skipped: [] });
    });

    it("a dead-lettered task of a Conductor alias (CALL_MCP_TOOL) is requeued by the type it shows, or by its queue's name", async () => {
      await register(t.app, [
        {
          name: 'requeue_mcp',
          ownerEmail: 'a@b.c',
          tasks: [
            {
              name: 'requeue_tool',
              taskReferenceName: 'tool',
              type: 'CALL_MCP_TOOL',
              retryCount: 0,
              inputParameters: { mcpServer: mcp.url, method: 'fail', arguments: { why: 'always' } },
            },
          ],
        },
      ]);
      const id = await startRun(t.app, 'requeue_mcp');
      const failed = await runTo(t.app, id, ['FAILED', 'COMPLETED']);
      assert.deepEqual(statuses(failed), ['FAILED']);
      assert.equal(failed.tasks[0].taskType, 'CALL_MCP_TOOL');

      // Its normalised kind is not the type it shows: nothing of CALL_TOOL's own is dead.
      const other = await call(t.app, 'POST', '/api/admin/requeue/CALL_TOOL');
      assert.deepEqual(other.body, { taskType: 'CALL_TOOL', requeued: [], skipped: [] });

      for (const [name, attempts] of [
        ['CALL_MCP_TOOL', 2],
        ['_system-CALL_TOOL', 3],
      ] as const) {
        const requeue = await call(t.app, 'POST', `/api/admin/requeue/${name}`);
        assert.equal(requeue.status, 200, requeue.text);
        assert.equal(requeue.body.requeued.length, 1, requeue.text);
        assert.equal(requeue.body.requeued[0].workflowId, id);
        const run = await eventually(async () => {
          const r = await runOf(t.app, id);
          return r.status === 'FAILED' && r.tasks.length === attempts ? r : undefined;
        }, `attempt ${attempts} of the tool call to fail again`);
        assert.equal(run.tasks.at(-1).status, 'FAILED');
        assert.match(run.tasks.at(-1).reasonForIncompletion, /cannot: always/);
      }
    });
  });
}
