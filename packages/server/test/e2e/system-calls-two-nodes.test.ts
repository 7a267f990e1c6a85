import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { TaskRecord, Workflow } from '@baton/protocol';

import {
  type BatonProcess,
  getJson,
  http,
  httpOk,
  postText,
  startBaton,
  waitFor,
} from '../helpers/baton-process.js';
import { closedWithin, json, startHttpTarget, type HttpTarget } from '../helpers/http-target.js';
import { createTestDatabase, enabledStores, type TestDatabase } from '../helpers/postgres.js';

/**
 * Two real Baton processes on one PostgreSQL database, both running the system-task executor,
 * against a real HTTP server in this process:
 * - the node holding a slow HTTP call is killed with SIGKILL: its lease lapses, the other node
 *   makes the call again (a new attempt, under the task definition's retry rules) and the run
 *   completes with each step completed once;
 * - a run terminated through one node aborts the call held by the other (LISTEN/NOTIFY, with the
 *   periodic status check behind it): the target sees its connection close.
 */

const pgEnabled = enabledStores().includes('postgres');

/** The pid in an executor's worker id `baton-executor@host:pid:…`. */
function pidOf(workerId: string | undefined): number | undefined {
  const match = /^baton-executor@.*:(\d+):[^:]+$/.exec(workerId ?? '');
  return match ? Number(match[1]) : undefined;
}

if (pgEnabled)
  void describe('e2e: HTTP tasks on two PostgreSQL nodes', () => {
    let db: TestDatabase;
    let nodes: BatonProcess[] = [];
    let target: HttpTarget;
    /** Calls per path; the first call to /slow-first hangs (the node making it is killed). */
    const counts = new Map<string, number>();

    before(async () => {
      db = await createTestDatabase('baton_e2e_calls');
      target = await startHttpTarget(async (req, res) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        const n = (counts.get(path) ?? 0) + 1;
        counts.set(path, n);
        if (path === '/slow-first' && n === 1) return; // never answers: its caller dies first
        if (path === '/hang') return; // answers never; terminate must close it
        await new Promise((r) => setTimeout(r, 100));
        json(res, 200, { path, call: n });
      });
      const env = { BATON_LOG_LEVEL: 'warn', BATON_TIMER_IDLE_MS: '200' };
      nodes = await Promise.all(
        ['node-a', 'node-b'].map((name) => startBaton({ name, databaseUrl: db.url, env })),
      );
    });

    after(async () => {
      await Promise.all(nodes.map((n) => n.stop()));
      await target.close();
      await db.drop();
    });

    void it(
      'the node holding a slow call is SIGKILLed: the other makes the call again and the run completes, each step once',
      { timeout: 120_000 },
      async () => {
        const [first] = nodes;
        assert.ok(first);
        // A short lease (responseTimeoutSeconds 3) so the dead node's call is noticed quickly.
        await httpOk('POST', `${first.url}/api/metadata/taskdefs`, [
          { name: 'slow_call', retryCount: 2, retryDelaySeconds: 0, responseTimeoutSeconds: 3 },
        ]);
        await httpOk('POST', `${first.url}/api/metadata/workflow`, {
          name: 'two_calls',
          ownerEmail: 'e2e@example.com',
          tasks: [
            {
              name: 'slow_call',
              taskReferenceName: 'slow',
              type: 'HTTP',
              inputParameters: {
                http_request: { uri: `${target.url}/slow-first`, method: 'GET', readTimeOut: 60_000 },
              },
            },
            {
              name: 'then_call',
              taskReferenceName: 'then',
              type: 'HTTP',
              inputParameters: {
                http_request: {
                  uri: `${target.url}/then?after=\${slow.output.response.body.call}`,
                  method: 'GET',
                },
              },
            },
          ],
          outputParameters: { slow: '${slow.output.response.body}', then: '${then.output.response.body}' },
        });
        const id = await postText(`${first.url}/api/workflow/two_calls`, {});

        // The node whose executor holds the call.
        const holder = await waitFor(
          async () => {
            const run = await getJson<Workflow>(`${first.url}/api/workflow/${id}`);
            const task = run.tasks[0];
            const pid = task?.status === 'IN_PROGRESS' ? pidOf(task.workerId) : undefined;
            return pid !== undefined && (counts.get('/slow-first') ?? 0) >= 1
              ? nodes.find((n) => n.pid === pid)
              : undefined;
          },
          { timeoutMs: 30_000, what: 'a node to hold the slow call' },
        );
        const survivor = nodes.find((n) => n !== holder);
        assert.ok(survivor);
        holder.kill();
        await holder.exited;

        const run = await waitFor(
          async () => {
            const r = await getJson<Workflow>(`${survivor.url}/api/workflow/${id}`);
            return r.status === 'RUNNING' ? undefined : r;
          },
          {
            timeoutMs: 60_000,
            what: 'the run to end on the surviving node',
            describe: async () =>
              JSON.stringify((await http('GET', `${survivor.url}/api/workflow/${id}`)).body),
          },
        );
        assert.equal(run.status, 'COMPLETED', JSON.stringify(run));
        const tasks: TaskRecord[] = run.tasks;
        const slow = tasks.filter((t) => t.referenceTaskName === 'slow');
        const then = tasks.filter((t) => t.referenceTaskName === 'then');
        // The dead node's attempt timed out when its lease lapsed; the second attempt completed.
        assert.deepEqual(
          slow.map((t) => t.status),
          ['TIMED_OUT', 'COMPLETED'],
        );
        assert.deepEqual(
          then.map((t) => t.status),
          ['COMPLETED'],
        );
        assert.equal(slow.filter((t) => t.status === 'COMPLETED').length, 1, 'the step completed once');
        assert.equal(pidOf(slow[1]?.workerId), survivor.pid, 'the surviving node made the call again');
        // The target saw the call twice (at-least-once), then the next step once.
        assert.equal(counts.get('/slow-first'), 2);
        assert.equal(counts.get('/then'), 1);
        assert.deepEqual(run.output, {
          slow: { path: '/slow-first', call: 2 },
          then: { path: '/then', call: 1 },
        });
        const keys = target.requests
          .filter((r) => r.url === '/slow-first')
          .map((r) => r.headers['idempotency-key']);
        assert.deepEqual(
          keys,
          slow.map((t) => t.taskId),
          'each attempt carries its own Idempotency-Key',
        );
      },
    );

    void it(
      'a run terminated through one node aborts the call held by another node',
      { timeout: 60_000 },
      async () => {
        // The kill above left one node: start another, so two are up.
        const isUp = async (n: BatonProcess): Promise<boolean> =>
          (await http('GET', `${n.url}/health`).catch(() => undefined))?.status === 200;
        const up: BatonProcess[] = [];
        for (const n of nodes) if (await isUp(n)) up.push(n);
        if (up.length < 2) {
          const extra = await startBaton({
            name: 'node-c',
            databaseUrl: db.url,
            env: { BATON_LOG_LEVEL: 'warn' },
          });
          nodes.push(extra);
          up.push(extra);
        }
        assert.ok(up.length >= 2, 'two live nodes');
        const [any] = up;
        assert.ok(any);
        await httpOk('POST', `${any.url}/api/metadata/workflow`, {
          name: 'hanging_call',
          ownerEmail: 'e2e@example.com',
          tasks: [
            {
              name: 'hang',
              taskReferenceName: 'hang',
              type: 'HTTP',
              inputParameters: {
                http_request: { uri: `${target.url}/hang`, method: 'GET', readTimeOut: 60_000 },
              },
            },
          ],
        });
        const id = await postText(`${any.url}/api/workflow/hanging_call`, {});
        const holder = await waitFor(
          async () => {
            const run = await getJson<Workflow>(`${any.url}/api/workflow/${id}`);
            const pid = pidOf(run.tasks[0]?.workerId);
            const seen = target.requests.find((r) => r.url === '/hang');
            return pid !== undefined && seen ? { node: up.find((n) => n.pid === pid), seen } : undefined;
          },
          { timeoutMs: 30_000, what: 'a node to hold the call' },
        );
        assert.ok(holder.node);
        const other = up.find((n) => n !== holder.node);
        assert.ok(other);
        const terminatedAt = Date.now();
        await httpOk('DELETE', `${other.url}/api/workflow/${id}?reason=stop`);
        const closedAt = await closedWithin(holder.seen, 15_000, 'the call was not aborted within 15 s');
        assert.ok(
          closedAt - terminatedAt < 15_000, // the call would run 30 s: closing well before proves the abort (the delay is a figure, not a bound)
          `the connection closed ${closedAt - terminatedAt} ms after terminate on the other node`,
        );
        const run = await getJson<Workflow>(`${other.url}/api/workflow/${id}`);
        assert.equal(run.status, 'TERMINATED');
        assert.equal(run.tasks[0]?.status, 'CANCELED');
      },
    );
  });
