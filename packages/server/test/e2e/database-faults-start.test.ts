import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';

import type { Workflow } from '@baton/protocol';
import pg from 'pg';

import {
  type BatonProcess,
  freePort,
  getJson,
  http,
  httpOk,
  mapLimit,
  postText,
  startBaton,
  waitFor,
} from '../helpers/baton-process.js';
import {
  acknowledged,
  assertNothingLost,
  startFaultCluster,
  startWorkers,
} from '../helpers/database-faults.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import type { HttpWorker } from '../helpers/http-worker.js';
import { enabledStores } from '../helpers/postgres.js';
import type { PrivateCluster } from '../helpers/private-postgres.js';

/**
 * Faults at the edges of a node's life and outages longer than its bounds, on a PostgreSQL
 * cluster of the test's own: a node whose migration loses its connection half-way (once in the
 * middle of a step, once as a step's COMMIT goes out, its outcome unknown) comes up with the
 * whole schema; a node started while PostgreSQL is down waits and comes up once it is back;
 * then, under load through both, two crashes back to back, each far longer than the connect and
 * statement bounds. Both nodes live, /health says 503 and then 200, every run completes with one
 * completed attempt per step, nothing is handed out twice and every acknowledged result is kept.
 */

const TYPES = ['start_a', 'start_b'] as const;
const taskDefs = workerTaskDefs(TYPES, { responseTimeoutSeconds: 2, retryCount: 20, retryDelaySeconds: 0 });
const definition = workflowDef(
  'start_flow',
  [
    {
      name: 'start_a',
      taskReferenceName: 'a',
      type: 'SIMPLE',
      inputParameters: { n: '${workflow.input.n}' },
    },
    { name: 'start_b', taskReferenceName: 'b', type: 'SIMPLE', inputParameters: { n: '${a.output.n}' } },
  ],
  { n: '${b.output.n}' },
);
const RUNS = 40;
/** Each crash lasts this long: many times the connect (1 s) and statement (2 s) bounds below. */
const OUTAGE_MS = 6_000;

/** The nth message the node sends that contains `text` (1-based). */
function nth(text: string, n: number): (bytes: string) => boolean {
  let seen = 0;
  return (bytes) => bytes.includes(text) && ++seen === n;
}

async function health(node: BatonProcess): Promise<number> {
  try {
    return (await http('GET', `${node.url}/health`, undefined, { timeoutMs: 10_000 })).status;
  } catch {
    return -1;
  }
}

void describe('e2e: faults as nodes start, and outages longer than the bounds', () => {
  if (!enabledStores().includes('postgres')) return;

  void it(
    'a migration cut twice, a node started while PostgreSQL is down, two long crashes back to back',
    { timeout: 300_000 },
    async (t) => {
      const { cluster, dbUrl }: { cluster: PrivateCluster; dbUrl: string } = await startFaultCluster();
      const proxy = new FaultProxy({ host: '127.0.0.1', port: cluster.port });
      const proxyB = new FaultProxy({ host: '127.0.0.1', port: cluster.port });
      const nodes: BatonProcess[] = [];
      const workers: HttpWorker[] = [];
      let pendingB: Promise<BatonProcess> | undefined;
      try {
        await proxy.listen();
        const env = {
          BATON_DB_CONNECT_TIMEOUT_MS: '1000',
          BATON_DB_STATEMENT_TIMEOUT_MS: '2000',
          // Far beyond what the test needs, so a loaded machine does not make a node give up.
          BATON_DB_START_WAIT_MS: '120000',
          BATON_LOG_LEVEL: 'warn',
        };

        // 1. Node A's migration: reset as the third step records itself (inside its transaction),
        //    then again as a later step's COMMIT goes out (it commits; the node never hears so).
        const cuts = proxy
          .arm(nth('INSERT INTO schema_migrations', 3), 'reset')
          .then(() => proxy.arm(nth('INSERT INTO schema_migrations', 3), 'reset'));
        const nodeA = await startBaton({
          databaseUrl: proxy.urlFor(dbUrl),
          env,
          name: 'start-a',
          readyTimeoutMs: 90_000,
        });
        nodes.push(nodeA);
        await cuts;
        assert.equal(proxy.fired, 2, 'both cuts of the migration fired');
        assert.match(nodeA.logs(), /database unavailable while starting; trying again/);
        const check = new pg.Client({ connectionString: dbUrl });
        await check.connect();
        const { rows } = await check.query<{ version: number }>(
          'SELECT version FROM schema_migrations ORDER BY version',
        );
        await check.end();
        const versions = rows.map((r) => r.version);
        assert.equal(new Set(versions).size, versions.length, 'each schema step recorded once');
        assert.ok(versions.length >= 3, `schema steps applied: ${versions.join(',')}`);

        // 2. Node B started while PostgreSQL is down: it waits, and comes up once it is back.
        //    Through a proxy of its own, which counts its tries to connect.
        await cluster.crash();
        await proxyB.listen();
        const portB = await freePort();
        pendingB = startBaton({
          databaseUrl: proxyB.urlFor(dbUrl),
          env,
          name: 'start-b',
          readyTimeoutMs: 120_000,
          port: portB,
        });
        await waitFor(() => (proxyB.accepted >= 3 ? true : undefined), {
          timeoutMs: 60_000,
          intervalMs: 50,
          what: 'node B trying to reach the database while it is down',
        });
        // Meanwhile its port answers: alive (a liveness probe must not restart a node that only
        // waits), not ready, and a request is told to come back.
        const waiting = `http://127.0.0.1:${portB}`;
        assert.equal((await http('GET', `${waiting}/health/live`)).status, 200);
        assert.equal((await http('GET', `${waiting}/health/ready`)).status, 503);
        const early = await fetch(`${waiting}/api/workflow/start_flow`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        assert.equal(early.status, 503, await early.text());
        assert.ok(early.headers.get('retry-after') !== null, 'Retry-After while starting');
        await cluster.start();
        const nodeB = await pendingB;
        pendingB = undefined;
        nodes.push(nodeB);
        assert.match(nodeB.logs(), /database unavailable while starting; trying again/);
        await waitFor(async () => ((await health(nodeA)) === 200 ? true : undefined), {
          timeoutMs: 30_000,
          intervalMs: 100,
          what: 'node A healthy after the crash',
        });
        const alive = nodes.map(() => true);
        nodes.forEach((node, i) => void node.exited.then(() => (alive[i] = false)));

        // 3. Load through both, and two crashes back to back, each much longer than the bounds.
        await httpOk('POST', `${nodeA.url}/api/metadata/taskdefs`, taskDefs);
        await httpOk('POST', `${nodeA.url}/api/metadata/workflow`, definition);
        const ids = await mapLimit(
          Array.from({ length: RUNS }, (_, n) => n),
          10,
          (n) => postText(`${nodes[n % 2]!.url}/api/workflow/start_flow`, { input: { n } }),
        );
        workers.push(...startWorkers(nodes, TYPES, { concurrency: 4, resultRetryMs: 120_000 }));
        await waitFor(() => (acknowledged(workers) >= 10 ? true : undefined), {
          timeoutMs: 60_000,
          intervalMs: 20,
          what: 'results before the crashes',
        });
        const outageAnswers: number[] = [];
        for (const round of [1, 2]) {
          await cluster.crash();
          const down = performance.now();
          for (const [i, node] of nodes.entries())
            await waitFor(async () => ((await health(node)) === 503 ? true : undefined), {
              timeoutMs: 20_000,
              intervalMs: 100,
              what: `node ${i} /health 503 in crash ${round}`,
            });
          // A request that needs the database answers 503 with Retry-After, not a hang.
          for (const node of nodes) {
            const asked = performance.now();
            const res = await fetch(`${node.url}/api/workflow/${ids[0]!}`, {
              signal: AbortSignal.timeout(30_000),
            });
            const text = await res.text();
            outageAnswers.push(performance.now() - asked);
            assert.equal(res.status, 503, text);
            assert.ok(res.headers.get('retry-after') !== null, 'Retry-After on a 503');
          }
          await delay(Math.max(0, OUTAGE_MS - (performance.now() - down)));
          await cluster.start();
          // Back to back: the second crash comes a moment after the first outage ends.
          await delay(1_000);
        }
        for (const [i, node] of nodes.entries())
          await waitFor(async () => ((await health(node)) === 200 ? true : undefined), {
            timeoutMs: 30_000,
            intervalMs: 100,
            what: `node ${i} /health 200 after the crashes`,
          });

        const runs = await waitFor(
          async () => {
            const all = await mapLimit(ids, 10, (id) => getJson<Workflow>(`${nodeA.url}/api/workflow/${id}`));
            return all.every((r) => r.status === 'COMPLETED') ? all : undefined;
          },
          { timeoutMs: 120_000, intervalMs: 250, what: 'every run to complete' },
        );
        for (const w of workers) await w.stop();

        assert.deepEqual(alive, [true, true], 'both node processes are alive');
        const allTasks = assertNothingLost(runs, workers, ['a', 'b']);
        t.diagnostic(
          `${RUNS} runs, ${allTasks.size} attempts, ${acknowledged(workers)} results acknowledged; ` +
            `503 answers during the crashes in ${outageAnswers.map((ms) => Math.round(ms)).join(', ')} ms`,
        );
      } catch (err) {
        for (const node of nodes) t.diagnostic(`--- ${node.url} logs ---\n${node.logs().slice(-4000)}`);
        throw err;
      } finally {
        for (const w of workers) await w.stop();
        if (pendingB) nodes.push(...(await pendingB.then((b) => [b]).catch(() => [])));
        for (const node of nodes) await node.stop();
        await proxy.close();
        await proxyB.close();
        await cluster.destroy();
      }
    },
  );
});
