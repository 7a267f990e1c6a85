import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import pg from 'pg';

import type { JsonObject, Workflow } from '@baton/protocol';

import {
  getJson,
  http,
  httpOk,
  mapLimit,
  postText,
  startBaton,
  waitFor,
  type BatonProcess,
} from '../helpers/baton-process.js';
import { duplicateReceipts, HttpWorker, type PolledTask, type TaskOutcome } from '../helpers/http-worker.js';
import { createTestDatabase, enabledStores } from '../helpers/postgres.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { buildRelease } from '../helpers/previous-release.js';

/**
 * A rolling upgrade on one PostgreSQL database: a node of the previous release runs and works
 * runs; a node of this release starts beside it and migrates the schema under it; runs started on
 * either node and worked through both complete, none lost, each task handed out once. Then the
 * schema refusal as an operator meets it: an earlier node will not start on a schema it does not
 * understand, and this release starts on a newer schema only when the newer steps declare it may.
 */

/**
 * The previous release: the last commit before schema steps declared their compatibility
 * (PostgreSQL schema 11). Fixed, so the test always upgrades from the same release.
 */
const PREVIOUS_RELEASE = '3ecbe35529d20f32dd655d54318a5adfb9d624d2';
const PREVIOUS_SCHEMA = 11;

const WORKFLOW = 'e2e_upgrade';
const TYPES = ['e2e_upgrade_a', 'e2e_upgrade_b'] as const;
const RUNS_BEFORE = 40;
const RUNS_DURING = 80;
const DEADLINE_MS = 90_000;

const definition = workflowDef(
  WORKFLOW,
  [
    { name: TYPES[0], taskReferenceName: 'a', type: 'SIMPLE', inputParameters: { x: '${workflow.input.x}' } },
    { name: TYPES[1], taskReferenceName: 'b', type: 'SIMPLE', inputParameters: { y: '${a.output.y}' } },
  ],
  { z: '${b.output.z}' },
);

/** a: y = x + 1; b: z = 2y. So run x ends with {z: 2(x+1)}. */
function handle(task: PolledTask): TaskOutcome {
  const input = task.inputData;
  if (task.taskType === TYPES[0]) return { outputData: { y: Number(input.x) + 1 } };
  return { outputData: { z: Number(input.y) * 2 } };
}

function expectedOutput(x: number): JsonObject {
  return { z: 2 * (x + 1) };
}

async function schemaRows(url: string): Promise<Array<{ version: number; compatibleFrom: number | null }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // SELECT *: the previous release's table has no compatible_from column.
    const { rows } = await client.query<{ version: number; compatible_from?: number | null }>(
      'SELECT * FROM schema_migrations ORDER BY version',
    );
    return rows.map((r) => ({ version: r.version, compatibleFrom: r.compatible_from ?? null }));
  } finally {
    await client.end();
  }
}

async function sql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Whether a node process has exited (without waiting for it to). */
async function hasExited(node: BatonProcess): Promise<boolean> {
  return Promise.race([node.exited.then(() => true), Promise.resolve(false)]);
}

void describe('e2e: rolling upgrade from the previous release on one PostgreSQL database', () => {
  // Registered only when PostgreSQL is enabled, so no run reports a skipped test.
  if (!enabledStores().includes('postgres')) return;

  void it(
    'the previous release keeps working while this one migrates under it; runs through both all complete',
    { timeout: 300_000 },
    async () => {
      const release = buildRelease(PREVIOUS_RELEASE);
      const db = await createTestDatabase('baton_upgrade');
      const nodes: BatonProcess[] = [];
      const workers: HttpWorker[] = [];
      try {
        const old = await startBaton({ name: 'previous-release', databaseUrl: db.url, build: release });
        nodes.push(old);
        assert.deepEqual(
          (await schemaRows(db.url)).map((r) => r.version).at(-1),
          PREVIOUS_SCHEMA,
          'the previous release migrates to its own schema',
        );
        await httpOk('POST', `${old.url}/api/metadata/taskdefs`, workerTaskDefs(TYPES));
        await httpOk('POST', `${old.url}/api/metadata/workflow`, definition);

        const workOn = (node: BatonProcess, tag: string) =>
          TYPES.map((type, i) =>
            new HttpWorker({
              baseUrl: node.url,
              taskType: type,
              workerId: `${tag}-w${i}`,
              handler: handle,
              concurrency: 4,
              pollTimeoutMs: 500,
            }).start(),
          );
        workers.push(...workOn(old, 'old'));
        const startOn = (node: BatonProcess, x: number) =>
          postText(`${node.url}/api/workflow/${WORKFLOW}`, { input: { x }, version: 1 });

        // Runs in flight on the previous release while the new node migrates the schema.
        const started: Array<{ x: number; runId: string }> = [];
        const before = mapLimit(
          Array.from({ length: RUNS_BEFORE }, (_, x) => x),
          4,
          async (x) => started.push({ x, runId: await startOn(old, x) }),
        );
        const fresh = await startBaton({ name: 'this-release', databaseUrl: db.url });
        nodes.push(fresh);
        await before;
        const rows = await schemaRows(db.url);
        assert.ok(
          rows.some((r) => r.version > PREVIOUS_SCHEMA),
          `this release migrated the schema: ${JSON.stringify(rows)}`,
        );
        assert.ok(
          rows.every((r) => r.compatibleFrom !== null),
          `every step's compatibility is recorded: ${JSON.stringify(rows)}`,
        );
        workers.push(...workOn(fresh, 'new'));

        // Load through both at once: starts alternate between the nodes, workers poll both.
        await mapLimit(
          Array.from({ length: RUNS_DURING }, (_, i) => RUNS_BEFORE + i),
          8,
          async (x) => started.push({ x, runId: await startOn(nodes[x % 2]!, x) }),
        );

        const runs = new Map<string, Workflow>();
        await waitFor(
          async () => {
            const errors = workers.flatMap((w) => w.errors);
            if (errors.length > 0)
              throw new Error(`workers reported errors:\n${errors.slice(0, 20).join('\n')}`);
            const pending = started.filter((s) => runs.get(s.runId)?.status !== 'COMPLETED');
            await mapLimit(pending, 8, async (s, i) => {
              runs.set(s.runId, await getJson<Workflow>(`${nodes[i % 2]!.url}/api/workflow/${s.runId}`));
            });
            const bad = [...runs.values()].filter((r) => r.status !== 'RUNNING' && r.status !== 'COMPLETED');
            if (bad.length > 0)
              throw new Error(
                `runs ended badly: ${bad.map((r) => `${r.workflowId} ${r.status}`).join(', ')}`,
              );
            return pending.length === 0 ? true : undefined;
          },
          {
            timeoutMs: DEADLINE_MS,
            intervalMs: 200,
            what: `all ${RUNS_BEFORE + RUNS_DURING} runs to complete`,
            describe: () =>
              `${[...runs.values()].filter((r) => r.status === 'COMPLETED').length} completed; ` +
              workers.map((w) => `${w.workerId}: ${w.received.length} received`).join(', '),
          },
        );

        assert.equal(started.length, RUNS_BEFORE + RUNS_DURING);
        const accepted = new Set(workers.flatMap((w) => w.completed));
        for (const s of started) {
          const run = runs.get(s.runId)!;
          assert.deepEqual(run.output, expectedOutput(s.x), `output of run ${s.runId} (x=${s.x})`);
          assert.equal(run.tasks.length, 2, `tasks of run ${s.runId}`);
          for (const task of run.tasks) {
            assert.equal(task.status, 'COMPLETED', `task ${task.taskId} of ${s.runId}`);
            assert.equal(task.pollCount, 1, `task ${task.taskId} of ${s.runId} was handed out once`);
            assert.ok(
              accepted.has(task.taskId),
              `the result of ${task.taskId} was acknowledged to its worker`,
            );
          }
        }
        assert.equal(
          accepted.size,
          started.length * 2,
          'every acknowledged result belongs to a completed task',
        );
        assert.deepEqual(duplicateReceipts(workers), [], 'tasks handed out more than once');
        for (const tag of ['old', 'new'])
          assert.ok(
            workers.filter((w) => w.workerId.startsWith(tag)).some((w) => w.received.length > 0),
            `workers of the ${tag} node were handed tasks`,
          );
        assert.equal(await hasExited(old), false, `the previous release is still running\n${old.logs()}`);
        for (const node of nodes) assert.equal((await http('GET', `${node.url}/health`)).status, 200);

        await Promise.all(workers.splice(0).map((w) => w.stop()));
        await old.stop();

        // The previous release predates the declarations: it refuses a schema newer than its own.
        await assert.rejects(
          startBaton({ name: 'previous-release-again', databaseUrl: db.url, build: release }),
          /newer Baton.*refusing to start/,
        );
        // This release starts on a schema newer only by a step that declares it compatible …
        const latest = rows.at(-1)!.version;
        await sql(
          db.url,
          `INSERT INTO schema_migrations (version, name, applied_at, compatible_from) VALUES (${latest + 1}, 'future-expand', 0, ${latest})`,
        );
        const again = await startBaton({ name: 'this-release-again', databaseUrl: db.url });
        nodes.push(again);
        assert.equal((await http('GET', `${again.url}/health`)).status, 200);
        await again.stop();
        // … and refuses, in one line naming both versions and what to do, a step that needs a newer node.
        await sql(
          db.url,
          `INSERT INTO schema_migrations (version, name, applied_at, compatible_from) VALUES (${latest + 2}, 'future-contract', 0, ${latest + 2})`,
        );
        const refusal = await startBaton({ name: 'this-release-refused', databaseUrl: db.url }).then(
          (node) => {
            nodes.push(node);
            throw new Error('this release started on a schema that needs a newer node');
          },
          (err: unknown) => (err instanceof Error ? err.message : String(err)),
        );
        // One line that says it all, and no stack trace under it.
        const printed = refusal
          .slice(refusal.indexOf('last output:\n') + 'last output:\n'.length)
          .trim()
          .split('\n');
        assert.equal(
          printed.at(-1),
          `baton: failed to start: the PostgreSQL database has schema version ${latest + 2}, newer than this Baton's ` +
            `${latest}, and its step ${latest + 2} needs a Baton of schema ${latest + 2} or later: upgrade this node ` +
            `to a release that knows schema ${latest + 2}; refusing to start.`,
        );
        assert.deepEqual(
          printed.filter((line) => /^\s+at /.test(line)),
          [],
          'no stack trace',
        );
      } catch (err) {
        const base = err instanceof Error ? err : new Error(String(err));
        base.message += nodes.map((n, i) => `\n--- node ${i} ---\n${n.logs()}`).join('');
        throw base;
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
        await Promise.all(nodes.map((n) => n.stop()));
        await db.drop();
      }
    },
  );
});
