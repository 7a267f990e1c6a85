import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';

import pg from 'pg';

import { type BatonProcess, getJson, httpOk, startBaton, waitFor } from '../helpers/baton-process.js';
import { createTestDatabase, enabledStores } from '../helpers/postgres.js';
import { MISFIRE_GRACE_MS } from '../../src/schedules/schedule-service.js';

/**
 * A schedule that fires every second, on two Baton nodes sharing one PostgreSQL database: each
 * slot starts exactly one run (none missed, none twice). Then both nodes stop for 10 s and
 * start again: with runCatchupScheduleInstances the missed slots are started, without it they
 * are recorded SKIPPED.
 */

interface Execution {
  executionId: string;
  scheduledTime: number;
  executionTime: number;
  state: string;
  workflowId?: string;
  reason?: string;
}

const NAME = 'every-second';
const WORKFLOW = 'scheduled_tick';
const DOWN_MS = 10_000;

async function executions(url: string): Promise<Execution[]> {
  const page = await getJson<{ results: Execution[] }>(`${url}/api/schedule/${NAME}/executions?size=1000`);
  return [...page.results].sort((a, b) => a.scheduledTime - b.scheduledTime);
}

/** Every slot from the first to the last is there once, one second apart. */
function assertContiguous(list: Execution[]): void {
  const times = list.map((e) => e.scheduledTime);
  assert.equal(new Set(times).size, times.length, 'no slot twice');
  for (let i = 1; i < times.length; i++) {
    assert.equal(times[i]! - times[i - 1]!, 1000, `no slot missed between ${times[i - 1]} and ${times[i]}`);
  }
}

if (enabledStores().includes('postgres'))
  void describe('schedules on two PostgreSQL nodes', () => {
    void it(
      'fires each slot once, then catches up or skips after both nodes stop',
      { timeout: 300_000 },
      async (t) => {
        const db = await createTestDatabase('baton_schedules');
        const env = { BATON_LOG_LEVEL: 'warn' };
        const startBoth = (): Promise<BatonProcess[]> =>
          Promise.all(['sched-a', 'sched-b'].map((name) => startBaton({ databaseUrl: db.url, env, name })));
        let nodes = await startBoth();
        const url = (): string => nodes[0]!.url;
        try {
          await httpOk('POST', `${url()}/api/metadata/workflow`, {
            name: WORKFLOW,
            tasks: [{ name: 'n', taskReferenceName: 'n', type: 'NOOP' }],
          });
          const schedule = {
            name: NAME,
            cronExpression: '* * * * * *',
            zoneId: 'UTC',
            startWorkflowRequest: { name: WORKFLOW, input: { from: 'schedule' } },
            runCatchupScheduleInstances: false,
          };
          await httpOk('POST', `${url()}/api/schedule`, schedule);

          // ~10 s on two nodes. Every later check of contiguity covers these slots again, with the
          // ones the nodes fire between the two downtimes.
          const steady = await waitFor(
            async () => {
              const list = await executions(url());
              return list.length >= 10 ? list : undefined;
            },
            { timeoutMs: 90_000, what: '10 slots' },
          );
          assertContiguous(steady);
          assert.ok(
            steady.every((e) => e.state === 'EXECUTED'),
            'none skipped while the nodes ran',
          );
          assert.equal(new Set(steady.map((e) => e.workflowId)).size, steady.length, 'one run per slot');
          const sample = await getJson<{ input: Record<string, unknown>; status: string }>(
            `${url()}/api/workflow/${steady[3]!.workflowId}`,
          );
          assert.equal(sample.input.from, 'schedule');
          assert.equal(sample.input._startedByScheduler, NAME);
          assert.equal(sample.input._scheduledTime, steady[3]!.scheduledTime);
          assert.equal(sample.input._executionId, steady[3]!.executionId);
          assert.equal(typeof sample.input._executedTime, 'number');

          const downtime = async (catchUp: boolean): Promise<Execution[]> => {
            await httpOk('POST', `${url()}/api/schedule`, {
              ...schedule,
              runCatchupScheduleInstances: catchUp,
            });
            const beforeStop = (await executions(url())).length;
            await waitFor(
              async () => ((await executions(url())).length >= beforeStop + 2 ? true : undefined),
              {
                timeoutMs: 30_000,
                what: 'two more slots',
              },
            );
            await Promise.all(nodes.map((n) => n.stop()));
            // Both nodes are down: the database says which slot was the last before the stop.
            const lastBefore = await lastSlotInDb();
            await delay(DOWN_MS);
            const restartedAt = Date.now();
            nodes = await startBoth();
            const after = await waitFor(
              async () => {
                const list = await executions(url());
                const last = list.at(-1);
                return last && last.scheduledTime > restartedAt + 1000 ? list : undefined;
              },
              { timeoutMs: 60_000, what: 'slots after the restart' },
            );
            assertContiguous(after);
            // The slots that were already past the misfire grace when the nodes came back.
            return after.filter(
              (e) => e.scheduledTime > lastBefore && e.scheduledTime < restartedAt - MISFIRE_GRACE_MS,
            );
          };
          const lastSlotInDb = async (): Promise<number> => {
            const client = new pg.Client({ connectionString: db.url });
            await client.connect();
            try {
              const { rows } = await client.query<{ t: string }>(
                'SELECT max(scheduled_time) AS t FROM schedule_executions WHERE schedule_name = $1',
                [NAME],
              );
              return Number(rows[0]?.t);
            } finally {
              await client.end();
            }
          };
          {
            const caughtUp = await downtime(true);
            assert.ok(caughtUp.length >= 4, `the missed slots are there: ${caughtUp.length}`);
            assert.ok(
              caughtUp.every((e) => e.state === 'EXECUTED'),
              'catch-up on: missed slots started',
            );
            assert.equal(new Set(caughtUp.map((e) => e.workflowId)).size, caughtUp.length);

            const skipped = await downtime(false);
            assert.ok(skipped.length >= 4, `the missed slots are there: ${skipped.length}`);
            assert.ok(
              skipped.every((e) => e.state === 'SKIPPED'),
              'catch-up off: missed slots recorded skipped',
            );
            assert.ok(skipped.every((e) => e.workflowId === undefined && typeof e.reason === 'string'));
          }
          // Paused, so no slot fires between reading the executions and counting the runs (a
          // firing that began before the pause commits both at once).
          await httpOk('PUT', `${url()}/api/schedule/${NAME}/pause`);
          const all = await waitFor(
            async () => {
              const list = await executions(url());
              const runs = await getJson<{ totalHits: number }>(
                `${url()}/api/workflow/search?name=${WORKFLOW}&size=1`,
              );
              return runs.totalHits === list.filter((e) => e.state === 'EXECUTED').length ? list : undefined;
            },
            { timeoutMs: 10_000, what: 'a run for every executed slot, no more' },
          );
          t.diagnostic(`${all.length} slots: ${all.filter((e) => e.state === 'SKIPPED').length} skipped`);
        } finally {
          await Promise.all(nodes.map((n) => n.stop()));
          await db.drop();
        }
      },
    );
  });
