// The archive scenario: with BATON_ARCHIVE_AFTER set, the hot tables shrink to the recent window.
// N finished runs (cloned in SQL, ended over a day ago) are stored; the scenario measures the hot
// table row counts and the cost of a poll + complete step, lets an archiving Baton move every
// run older than an hour to blob storage (a directory), then measures both again.
// Needs the built server (`npx tsc -b`) and the PostgreSQL of pg-admin.mjs.
//   node bench/archive.mjs [--finished 100000] [--runs 300] [--warmup 30]
// Prints a Markdown table; writes bench/results/archive.json and archive.md.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import pg from 'pg';

import { batonApi } from './lib/baton-api.mjs';
import { startBaton } from './lib/baton-server.mjs';
import { openHistorySeeder } from './lib/history-seed.mjs';
import { dropDatabase, freshDatabase } from './lib/pg-admin.mjs';
import { CLONE_SPACING_MS, STEPS, TASK_TYPE, WORKFLOW, measureStep } from './lib/scale-history.mjs';
import { driveSequentially, registerLinearWorkflow, startSequentially } from './lib/sequential-worker.mjs';

const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'results');
const HOT_TABLES = ['runs', 'tasks', 'task_latest', 'task_logs', 'queue_messages', 'timers', 'archived_runs'];

const { values } = parseArgs({
  options: {
    finished: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '30' },
  },
});
const finished = Number(values.finished);
const runs = Number(values.runs);
const warmupRuns = Number(values.warmup);
const log = (line) => console.error(line);

async function tableCounts(admin) {
  const out = {};
  for (const table of HOT_TABLES) {
    const { rows } = await admin.query(`SELECT count(*) AS n FROM ${table}`);
    out[table] = Number(rows[0].n);
  }
  return out;
}

const database = 'bench_archive';
const databaseUrl = await freshDatabase(database);
const dataDir = mkdtempSync(join(os.tmpdir(), 'baton-bench-archive-'));
const admin = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-admin' });
await admin.connect();
let seeder;
try {
  const env = { BATON_DATA_DIR: dataDir, BATON_LOG_LEVEL: 'error' };
  const server = await startBaton({ databaseUrl, env });
  let templateIds;
  try {
    const api = batonApi(server.url);
    await registerLinearWorkflow(api, { name: WORKFLOW, taskType: TASK_TYPE, steps: STEPS });
    ({ ids: templateIds } = await startSequentially(api, WORKFLOW, 10));
    await driveSequentially(api, TASK_TYPE, 10 * STEPS);
  } finally {
    await server.stop();
  }
  // The clones ended over a day ago: all of them are past a one-hour window.
  seeder = await openHistorySeeder(databaseUrl, {
    templateIds,
    firstStart: Date.now() - 86_400_000 - (finished + 1) * CLONE_SPACING_MS,
    spacingMs: CLONE_SPACING_MS,
    parallel: 2,
    applicationName: 'bench-seed',
  });
  log(`seeding ${finished} finished runs`);
  await seeder.grow(0, finished, (added) => log(`  ${added} runs cloned`));
  await seeder.settle();

  const before = await tableCounts(admin);
  log(`before: ${JSON.stringify(before)}`);
  const stepBefore = await measureStep(databaseUrl, admin, database, { runs, warmupRuns, log, env });

  log('archiving every run that ended over an hour ago');
  const archiving = performance.now();
  const archiver = await startBaton({
    databaseUrl,
    env: { ...env, BATON_ARCHIVE_AFTER: '1h', BATON_ARCHIVE_BATCH: '200', BATON_ARCHIVE_INTERVAL_MS: '200' },
  });
  try {
    const due = async () =>
      Number(
        (
          await admin.query('SELECT count(*) AS n FROM runs WHERE end_time > 0 AND end_time < $1', [
            Date.now() - 3_600_000,
          ])
        ).rows[0].n,
      );
    let left = await due();
    while (left > 0) {
      await new Promise((r) => setTimeout(r, 2000));
      left = await due();
      log(`  ${left} runs still to move, ${((performance.now() - archiving) / 1000).toFixed(0)} s`);
    }
  } finally {
    await archiver.stop();
  }
  const archiveSeconds = (performance.now() - archiving) / 1000;
  await admin.query('VACUUM ANALYZE runs, tasks, task_latest, task_logs, archived_runs');
  const after = await tableCounts(admin);
  log(`after: ${JSON.stringify(after)}`);
  const stepAfter = await measureStep(databaseUrl, admin, database, { runs, warmupRuns, log, env });

  const moved = after.archived_runs;
  const results = {
    scenario: 'archive',
    measuredAt: new Date().toISOString(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}`,
    finished,
    runsPerMeasure: runs,
    archiveSeconds,
    runsArchivedPerSecond: moved / archiveSeconds,
    before: { tables: before, step: stepBefore },
    after: { tables: after, step: stepAfter },
  };
  const row = (label, t, s) =>
    `| ${label} | ${t.runs.toLocaleString('en')} | ${t.tasks.toLocaleString('en')} | ${t.task_latest.toLocaleString('en')} | ${t.archived_runs.toLocaleString('en')} | ${s.step.p50.toFixed(2)} | ${(s.serverCpuMsPerStep + s.postgresCpuMsPerStep).toFixed(2)} |`;
  const markdown = [
    `Archive scenario: ${finished.toLocaleString('en')} finished runs (10 steps each) stored, BATON_ARCHIVE_AFTER=1h (every stored run is past it); ${results.machine}; ${results.measuredAt}.`,
    '',
    '| store | runs | tasks | task_latest | archived_runs | step p50 (ms) | server + PostgreSQL CPU per step (ms) |',
    '| --- | --: | --: | --: | --: | --: | --: |',
    row('before archiving', before, stepBefore),
    row('after archiving', after, stepAfter),
    '',
    `The archiver moved ${moved.toLocaleString('en')} runs in ${archiveSeconds.toFixed(0)} s (${results.runsArchivedPerSecond.toFixed(0)} runs/s, one node, blobs in a local directory). The rows left are the runs of the two step measurements (started after the window).`,
  ].join('\n');
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'archive.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(RESULTS_DIR, 'archive.md'), `${markdown}\n`);
  console.log(markdown);
} finally {
  await seeder?.close();
  await admin.end();
  await dropDatabase(database);
  rmSync(dataDir, { recursive: true, force: true });
}
