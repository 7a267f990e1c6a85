// Part B of the scale scenario: the server's memory with many open runs. Every run waits on a
// worker task nobody polls, so it stays RUNNING with one SCHEDULED task; what the server keeps
// in memory per open run shows in its RSS.
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

import Database from 'better-sqlite3';
import pg from 'pg';

import { batonApi } from './baton-api.mjs';
import { startBaton } from './baton-server.mjs';
import { stepPayload } from './payload.mjs';
import { dropDatabase, freshDatabase } from './pg-admin.mjs';
import { peakRssOf, rssOf } from './rss.mjs';
import { quantile } from './stats.mjs';

const WORKFLOW = 'scale_open';
const IDLE_TYPE = 'scale_idle';

/** What the store holds: open runs and queued messages (a fresh PostgreSQL database, or SQLite's file). */
async function countOpen(store, databaseUrl, dataDir) {
  const sql = `SELECT (SELECT count(*) FROM runs WHERE status = 'RUNNING') AS running,
                      (SELECT count(*) FROM queue_messages) AS queued`;
  if (store === 'sqlite') {
    const db = new Database(`${dataDir}/baton.db`, { readonly: true });
    try {
      const row = db.prepare(sql).get();
      return { running: Number(row.running), queued: Number(row.queued) };
    } finally {
      db.close();
    }
  }
  const admin = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-admin' });
  await admin.connect();
  try {
    const { rows } = await admin.query(sql);
    return { running: Number(rows[0].running), queued: Number(rows[0].queued) };
  } finally {
    await admin.end();
  }
}

/**
 * Starts `open` runs, `concurrency` at a time, on a fresh database (`store`: postgres or sqlite);
 * answers the start rate, the server's RSS and peak RSS after `settleMs`, and how fast it still
 * answers a poll.
 */
export async function measureOpenRuns({
  open,
  store = 'postgres',
  concurrency = 32,
  settleMs = 5000,
  database = 'bench_scale_open',
  log = () => {},
}) {
  const began = performance.now();
  const databaseUrl = store === 'postgres' ? await freshDatabase(database) : undefined;
  const server = await startBaton({
    ...(databaseUrl !== undefined && { databaseUrl }),
    env: { BATON_LOG_LEVEL: 'error' },
  });
  try {
    const api = batonApi(server.url);
    await api.registerTaskDefs([
      { name: IDLE_TYPE, retryCount: 0, responseTimeoutSeconds: 300, ownerEmail: 'bench@baton.dev' },
    ]);
    await api.registerWorkflow({
      name: WORKFLOW,
      version: 1,
      ownerEmail: 'bench@baton.dev',
      tasks: ['wait', 'after'].map((ref) => ({
        name: IDLE_TYPE,
        taskReferenceName: ref,
        type: 'SIMPLE',
        inputParameters: { payload: '${workflow.input}' },
      })),
    });
    const idleRssBytes = rssOf(server.pid);

    log(`${store}: starting ${open} runs, ${concurrency} at a time`);
    let next = 0;
    const starting = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < open) {
          const run = next++;
          await api.startRun(WORKFLOW, stepPayload(run, 0));
          if ((run + 1) % 20_000 === 0) log(`  ${run + 1} started`);
        }
      }),
    );
    const startSeconds = (performance.now() - starting) / 1000;

    await sleep(settleMs);
    const rssBytes = rssOf(server.pid);
    const peakRssBytes = peakRssOf(server.pid);

    // The store must hold what the figures claim: every run open, its first task queued.
    const { running, queued } = await countOpen(store, databaseUrl, server.dataDir);
    if (running !== open || queued !== open) {
      throw new Error(`expected ${open} open runs and queued tasks, found ${running} and ${queued}`);
    }

    // A worker arriving now: each poll hands out the oldest of the waiting tasks.
    const pollSamples = [];
    for (let n = 0; n < 20; n++) {
      const polled = performance.now();
      const tasks = await api.poll(IDLE_TYPE, { count: 1, timeoutMs: 100 });
      pollSamples.push(performance.now() - polled);
      if (tasks.length !== 1) throw new Error('a poll with open runs waiting answered no task');
    }
    const result = {
      store,
      openRuns: running,
      concurrency,
      startSeconds,
      startsPerSecond: open / startSeconds,
      idleRssBytes,
      rssBytes,
      peakRssBytes,
      settleMs,
      poll: { p50: quantile(pollSamples, 0.5), max: Math.max(...pollSamples), count: pollSamples.length },
    };
    log(
      `  ${open} open runs: ${result.startsPerSecond.toFixed(0)} starts/s, RSS ${(rssBytes / 2 ** 20).toFixed(0)} MB, ` +
        `peak ${(peakRssBytes / 2 ** 20).toFixed(0)} MB, poll p50 ${result.poll.p50.toFixed(1)} ms`,
    );
    return { ...result, seconds: (performance.now() - began) / 1000 };
  } finally {
    await server.stop();
    if (databaseUrl !== undefined) await dropDatabase(database);
  }
}
