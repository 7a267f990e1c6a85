import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';

import type { Workflow } from '@baton/protocol';
import pg from 'pg';

import {
  type BatonProcess,
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
 * Two Baton nodes on one PostgreSQL cluster of the test's own, each through a TCP proxy that
 * fails on command, with HTTP workers busy on both. The database fails under them, the nodes
 * are never restarted: a reset in the middle of a group COMMIT (its outcome unknown to the node),
 * a black hole at a long-poll hand-out, every connection killed with pg_terminate_backend,
 * PostgreSQL crashed (`pg_ctl -m immediate`) and started again, a reset as a timer is claimed
 * and as the outbox relay reads, black holes and resets of each node's path. Both nodes must live through it, say 503 on
 * /health while their database is away and 200 after, and lose nothing: every run completes
 * with the right output, each step has exactly one completed attempt, no attempt is handed out
 * twice, and every result acknowledged with 2xx is the one recorded.
 */

const TYPES = ['fault_a', 'fault_b'] as const;
/** A task type no run uses: its long polls only ever wait. */
const IDLE = 'fault_idle';
// Short locks, so attempts whose hand-out died with a connection come back soon.
const taskDefs = workerTaskDefs(TYPES, { responseTimeoutSeconds: 2, retryCount: 20, retryDelaySeconds: 0 });
const definition = workflowDef(
  'fault_flow',
  [
    {
      name: 'fault_a',
      taskReferenceName: 'a',
      type: 'SIMPLE',
      inputParameters: { n: '${workflow.input.n}' },
    },
    // A timer per run: the timer loops fire them all through the faults.
    { name: 'pause', taskReferenceName: 'w', type: 'WAIT', inputParameters: { duration: '1 seconds' } },
    { name: 'fault_b', taskReferenceName: 'b', type: 'SIMPLE', inputParameters: { n: '${a.output.n}' } },
  ],
  { n: '${b.output.n}' },
);
const RUNS = 80;

/** Bounds a wait for something the test set up to happen (an armed fault firing). */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Watches /health of a node all along: which answers it gave, so outages can be checked. */
class HealthWatch {
  readonly seen: Array<{ status: number; at: number }> = [];
  private stopped = false;
  private readonly loop: Promise<void>;

  constructor(private readonly node: BatonProcess) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let status = 0;
      try {
        status = (await http('GET', `${this.node.url}/health`, undefined, { timeoutMs: 10_000 })).status;
      } catch {
        status = -1; // no answer at all
      }
      this.seen.push({ status, at: performance.now() });
      await delay(100);
    }
  }

  /** Whether /health answered `status` since `since`. */
  saw(status: number, since: number): boolean {
    return this.seen.some((s) => s.at >= since && s.status === status);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

/** Bytes of a claim of queue messages (inlined in a group commit, or a prepared statement's bind). */
const isClaim = (bytes: string): boolean =>
  bytes.includes('queue_messages AS m SET locked_until') || bytes.includes('\0claim\0');
/** The last message of a group commit: its members' writes and COMMIT in one simple query. */
const isGroupCommit = (bytes: string): boolean => bytes.includes(';\nCOMMIT\0');
const isTimerClaim = (bytes: string): boolean => bytes.includes('UPDATE timers AS t SET claimed_until');

void describe('e2e: two nodes outlive faults of their PostgreSQL', () => {
  if (!enabledStores().includes('postgres')) return;

  void it(
    'crash, killed connections, resets and black holes: nodes live, nothing lost, health DOWN then UP',
    { timeout: 300_000 },
    async (t) => {
      const { cluster, dbUrl }: { cluster: PrivateCluster; dbUrl: string } = await startFaultCluster();
      const proxies = [
        new FaultProxy({ host: '127.0.0.1', port: cluster.port }),
        new FaultProxy({ host: '127.0.0.1', port: cluster.port }),
      ];
      const nodes: BatonProcess[] = [];
      const workers: HttpWorker[] = [];
      const watches: HealthWatch[] = [];
      try {
        for (const proxy of proxies) {
          await proxy.listen();
          for (const key of ['UPDATE timers AS t SET claimed_until', ';\nCOMMIT\0']) proxy.counts.set(key, 0);
        }
        const env = {
          // Small bounds, so that each outage is answered with a 503 within a couple of seconds.
          BATON_DB_CONNECT_TIMEOUT_MS: '1000',
          BATON_DB_STATEMENT_TIMEOUT_MS: '2000',
          BATON_LOG_LEVEL: 'warn',
        };
        for (const [i, proxy] of proxies.entries()) {
          // A loaded machine may take long to start a node: a generous bound.
          nodes.push(
            await startBaton({
              databaseUrl: proxy.urlFor(dbUrl),
              env,
              name: `fault-${i}`,
              readyTimeoutMs: 90_000,
            }),
          );
        }
        const [nodeA] = nodes as [BatonProcess, BatonProcess];
        const [proxyA, proxyB] = proxies as [FaultProxy, FaultProxy];
        const alive = nodes.map(() => true);
        nodes.forEach((node, i) => void node.exited.then(() => (alive[i] = false)));
        for (const node of nodes) watches.push(new HealthWatch(node));

        await httpOk('POST', `${nodeA.url}/api/metadata/taskdefs`, [...taskDefs, ...workerTaskDefs([IDLE])]);
        await httpOk('POST', `${nodeA.url}/api/metadata/workflow`, definition);
        // Half the runs now, half later: the second half's timers are due while step 5 waits for one.
        const start = (from: number, to: number): Promise<string[]> =>
          mapLimit(
            Array.from({ length: to - from }, (_, i) => from + i),
            10,
            (n) => postText(`${nodes[n % 2]!.url}/api/workflow/fault_flow`, { input: { n } }),
          );
        const ids = await start(0, RUNS / 2);
        workers.push(...startWorkers(nodes, TYPES, { concurrency: 6, resultRetryMs: 90_000 }));
        /** Waits for this many more acknowledged results: the nodes work again between faults. */
        const progress = async (more: number, what: string): Promise<void> => {
          const target = Math.min(ids.length * TYPES.length, acknowledged(workers) + more);
          await waitFor(() => (acknowledged(workers) >= target ? true : undefined), {
            timeoutMs: 60_000,
            intervalMs: 20,
            what: `${target} acknowledged results (${what})`,
          });
        };
        const healthy = async (what: string): Promise<void> => {
          for (const node of nodes)
            await waitFor(
              async () =>
                (await http('GET', `${node.url}/health`, undefined, { timeoutMs: 10_000 })).status === 200
                  ? true
                  : undefined,
              { timeoutMs: 30_000, intervalMs: 100, what: `${node.url}/health 200 ${what}` },
            );
        };
        const step = RUNS / 10;

        // 1. Node A's path reset in the middle of a group commit: the COMMIT reaches PostgreSQL,
        //    its answer never reaches the node. Its members must not be acknowledged as applied.
        await progress(step, 'before the reset mid-commit');
        await within(30_000, 'a group commit through node A', proxyA.arm(isGroupCommit, 'reset'));
        await progress(step, 'after the reset mid-commit');

        // 2. Node B's path black-holed at a long-poll hand-out for 3 s: no reset, just silence.
        await within(30_000, 'a hand-out through node B', proxyB.arm(isClaim, 'blackhole'));
        const holeB = performance.now();
        await waitFor(() => (watches[1]!.saw(503, holeB) ? true : undefined), {
          timeoutMs: 15_000,
          intervalMs: 50,
          what: 'node B /health 503 while its path is black-holed',
        });
        await delay(Math.max(0, 3_000 - (performance.now() - holeB)));
        proxyB.heal();
        await healthy('after node B path healed');
        await progress(step, 'after the black hole on B');

        // 3. Every connection of every node killed by PostgreSQL.
        const killer = new pg.Client({ connectionString: cluster.url });
        await killer.connect();
        const { rowCount } = await killer.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'baton' AND pid <> pg_backend_pid()",
        );
        await killer.end();
        assert.ok((rowCount ?? 0) > 0, 'connections to kill');
        await progress(step, 'after pg_terminate_backend');

        // 4. PostgreSQL crashes, stays down 3 s, starts again.
        // A long poll on each node, waiting (its first look found nothing) when PostgreSQL goes.
        const idlePoll = (node: (typeof nodes)[number], i: number) => {
          const entry: {
            answer?: Awaited<ReturnType<typeof http>>;
            promise: Promise<Awaited<ReturnType<typeof http>>>;
          } = {
            promise: http(
              'GET',
              `${node.url}/api/tasks/poll/batch/${IDLE}?count=1&timeout=5000&workerid=idle-${i}`,
              undefined,
              { timeoutMs: 30_000 },
            ).catch((err: unknown) => {
              const cause =
                err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
              return { status: -1, text: `${String(err)}${cause}`, body: undefined, contentType: '' };
            }),
          };
          void entry.promise.then((answer) => (entry.answer = answer));
          return entry;
        };
        const idle = nodes.map(idlePoll);
        for (const [i, node] of nodes.entries())
          await waitFor(
            async () => {
              // A 503 is a fair answer too: a connection killed in step 3 may be found only now,
              // by this look or by the poll's first one. Such a poll is asked again: the one that
              // matters is open when PostgreSQL goes.
              const ended = idle[i]!.answer;
              if (ended !== undefined) {
                assert.ok(ended.status === 503 || ended.status === 200, ended.text);
                idle[i] = idlePoll(node, i);
                return undefined;
              }
              const sizes = await http('GET', `${node.url}/api/tasks/queue/sizes`);
              const counts = sizes.body as Record<string, { activeWorkers?: number }> | undefined;
              return sizes.status === 200 && (counts?.[IDLE]?.activeWorkers ?? 0) > 0 ? true : undefined;
            },
            { timeoutMs: 10_000, intervalMs: 20, what: `the idle long poll on node ${i} to be waiting` },
          );
        // The poll is recorded inside its first look's transaction, shortly before that commits:
        // a margin for the commit (which no request can observe), generous for a loaded machine.
        await delay(1_000);
        await cluster.crash();
        const down = performance.now();
        // Open long polls end with an empty answer, not an error.
        for (const answer of await Promise.all(idle.map((entry) => entry.promise))) {
          assert.equal(answer.status, 200, answer.text);
          assert.deepEqual(answer.body, []);
        }
        for (const [i, watch] of watches.entries())
          await waitFor(() => (watch.saw(503, down) ? true : undefined), {
            timeoutMs: 15_000,
            intervalMs: 50,
            what: `node ${i} /health 503 while PostgreSQL is down`,
          });
        // A request that needs the database says so, with when to try again, instead of hanging.
        for (const node of nodes) {
          const res = await fetch(`${node.url}/api/workflow/${ids[0]!}`, {
            signal: AbortSignal.timeout(20_000),
          });
          const text = await res.text();
          assert.equal(res.status, 503, text);
          assert.ok(res.headers.get('retry-after') !== null, 'Retry-After on a 503');
          assert.match(text, /database is unavailable/);
        }
        await delay(Math.max(0, 3_000 - (performance.now() - down)));
        await cluster.start();
        await healthy('after PostgreSQL restarted');
        await progress(step, 'after the crash');

        // 5. Node A's path reset as a timer is claimed.
        const timerFault = proxyA.arm(isTimerClaim, 'reset');
        ids.push(...(await start(RUNS / 2, RUNS)));
        await within(30_000, 'a timer claim through node A', timerFault);
        await progress(step, 'after the reset at a timer claim');

        // 5b. A path reset as the outbox relay reads the outbox (whichever node's relay reads first).
        const isOutboxRead = (bytes: string): boolean => bytes.includes('FROM outbox');
        await within(
          30_000,
          'an outbox relay read',
          Promise.race([proxyA.arm(isOutboxRead, 'reset'), proxyB.arm(isOutboxRead, 'reset')]),
        );
        proxyA.disarm();
        proxyB.disarm();
        await progress(step, 'after the reset at an outbox relay read');

        // 6. Each node's path black-holed in turn for 2 s, then each reset.
        for (const proxy of [proxyA, proxyB]) {
          proxy.blackhole();
          await delay(2_000);
          proxy.heal();
          await healthy('after a black hole');
        }
        proxyA.reset();
        proxyB.reset();

        const describeRuns = async (): Promise<string> => {
          const all = await mapLimit(ids, 10, (id) => getJson<Workflow>(`${nodeA.url}/api/workflow/${id}`));
          return all
            .filter((r) => r.status !== 'COMPLETED')
            .slice(0, 10)
            .map(
              (r) =>
                `${r.workflowId} ${r.status} ${r.tasks.map((x) => `${x.referenceTaskName}:${x.status}`).join(' ')}`,
            )
            .join('\n');
        };
        const runs = await waitFor(
          async () => {
            const all = await mapLimit(ids, 10, (id) =>
              getJson<Workflow>(`${nodes[0]!.url}/api/workflow/${id}`),
            );
            return all.every((r) => r.status === 'COMPLETED') ? all : undefined;
          },
          { timeoutMs: 90_000, intervalMs: 250, what: 'every run to complete', describe: describeRuns },
        );
        for (const w of workers) await w.stop();

        assert.deepEqual(alive, [true, true], 'both node processes are alive');
        const allTasks = assertNothingLost(runs, workers, ['a', 'w', 'b']);
        for (const node of nodes) {
          const live = await http('GET', `${node.url}/health/live`);
          assert.equal(live.status, 200);
          // Ready again within a bound: a pool connection the last fault left behind may be found
          // by this first look, as by any request (the suite waits on /health the same way).
          await waitFor(
            async () => ((await http('GET', `${node.url}/health/ready`)).status === 200 ? true : undefined),
            { timeoutMs: 30_000, intervalMs: 100, what: `${node.url}/health/ready 200 at the end` },
          );
        }
        const retries = [...allTasks.values()].filter((x) => x.retried).length;
        t.diagnostic(
          `${RUNS} runs, ${allTasks.size} attempts (${retries} superseded), ${acknowledged(workers)} results acknowledged, ` +
            `${proxyA.fired + proxyB.fired} armed faults fired`,
        );
      } catch (err) {
        for (const proxy of proxies) t.diagnostic(`proxy ${JSON.stringify([...proxy.counts])}`);
        for (const node of nodes)
          t.diagnostic(
            `node ${node.url}: ${JSON.stringify(await Promise.race([node.exited, delay(10, 'alive')]))}`,
          );
        for (const node of nodes) t.diagnostic(`--- ${node.url} logs ---\n${node.logs().slice(-4000)}`);
        throw err;
      } finally {
        for (const w of workers) await w.stop();
        for (const watch of watches) await watch.stop();
        for (const node of nodes) await node.stop();
        for (const proxy of proxies) await proxy.close();
        await cluster.destroy();
      }
    },
  );
});
