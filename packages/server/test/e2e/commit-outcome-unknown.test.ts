import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { Workflow } from '@baton/protocol';

import {
  type BatonProcess,
  getJson,
  http,
  httpOk,
  postText,
  startBaton,
  waitFor,
} from '../helpers/baton-process.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { createTestDatabase, enabledStores, type TestDatabase } from '../helpers/postgres.js';

/**
 * A worker's result whose COMMIT reaches PostgreSQL but whose answer never reaches the node (the
 * connection reset right after the COMMIT went out): the node cannot know whether it applied,
 * so it must not acknowledge it (the worker gets a 503 with Retry-After); the worker's exact
 * repeat is then recognised as the recorded result (200, no second transition: one completed
 * attempt, one next task), and a different result for the same attempt is refused.
 */

void describe('e2e: a result whose commit outcome is unknown', () => {
  if (!enabledStores().includes('postgres')) return;

  void it(
    'is answered 503, its exact repeat 200 with no second transition, a different one 409',
    { timeout: 120_000 },
    async () => {
      const db: TestDatabase = await createTestDatabase('baton_commit_unknown');
      const target = new URL(db.url);
      const proxy = new FaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
      let node: BatonProcess | undefined;
      try {
        await proxy.listen();
        node = await startBaton({
          databaseUrl: proxy.urlFor(db.url),
          env: { BATON_DB_CONNECT_TIMEOUT_MS: '2000', BATON_DB_STATEMENT_TIMEOUT_MS: '5000' },
          name: 'commit-unknown',
        });
        const base = node.url;
        await httpOk('POST', `${base}/api/metadata/taskdefs`, workerTaskDefs(['cou_a', 'cou_b']));
        await httpOk(
          'POST',
          `${base}/api/metadata/workflow`,
          workflowDef(
            'cou_flow',
            [
              { name: 'cou_a', taskReferenceName: 'a', type: 'SIMPLE', inputParameters: {} },
              { name: 'cou_b', taskReferenceName: 'b', type: 'SIMPLE', inputParameters: {} },
            ],
            {},
          ),
        );
        const runId = await postText(`${base}/api/workflow/cou_flow`, { input: {} });
        const task = await waitFor(
          async () => {
            const res = await http('GET', `${base}/api/tasks/poll/cou_a?workerid=w1`);
            return res.status === 200 ? (res.body as { taskId: string }) : undefined;
          },
          { timeoutMs: 30_000, intervalMs: 100, what: 'task a handed out' },
        );
        const result = {
          taskId: task.taskId,
          workflowInstanceId: runId,
          workerId: 'w1',
          status: 'COMPLETED',
          outputData: { answer: 42 },
        };

        // The COMMIT carrying this result goes out; the connection is reset before its answer.
        const cut = proxy.arm((bytes) => bytes.includes(task.taskId) && bytes.includes('COMMIT'), 'reset');
        const first = await fetch(`${base}/api/tasks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(result),
          signal: AbortSignal.timeout(30_000),
        });
        const firstText = await first.text();
        await cut;
        assert.equal(first.status, 503, firstText);
        assert.ok(first.headers.get('retry-after') !== null, 'Retry-After on the 503');

        // The worker sends the same result again: recognised, acknowledged, nothing applied twice.
        const again = await http('POST', `${base}/api/tasks`, result);
        assert.equal(again.status, 200, again.text);
        const run = await getJson<Workflow>(`${base}/api/workflow/${runId}`);
        const as = run.tasks.filter((x) => x.referenceTaskName === 'a');
        const bs = run.tasks.filter((x) => x.referenceTaskName === 'b');
        assert.equal(as.length, 1, 'one attempt of a');
        assert.equal(as[0]!.status, 'COMPLETED');
        assert.deepEqual(as[0]!.outputData, { answer: 42 });
        assert.equal(bs.length, 1, 'b scheduled once: no second transition');

        // A different result for the attempt already completed changes nothing.
        const other = await http('POST', `${base}/api/tasks`, { ...result, outputData: { answer: 7 } });
        assert.equal(other.status, 409, other.text);
        const after = await getJson<Workflow>(`${base}/api/workflow/${runId}`);
        assert.deepEqual(after.tasks.find((x) => x.referenceTaskName === 'a')?.outputData, { answer: 42 });
        assert.equal(after.tasks.length, 2);
        assert.equal(
          await Promise.race([node.exited.then(() => 'exited'), Promise.resolve('alive')]),
          'alive',
        );
      } finally {
        await node?.stop();
        await proxy.close();
        await db.drop();
      }
    },
  );
});
