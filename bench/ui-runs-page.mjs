#!/usr/bin/env node
// How fast the runs page opens over a large history: Baton on PostgreSQL with RUNS finished runs
// (cloned in SQL from a few real ones, as the scale benchmark grows its history), then
//  - the search the runs page sends (first page, newest first), answered by the server, and
//  - the page itself in Chromium, from navigation until the first page of rows is drawn.
// Medians of several tries. Usage: npm run bench:ui [-- runs] (default 100000)
// Needs the build (npm run build), the local PostgreSQL (BENCH_PG_URL) and /usr/bin/chromium.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { chromium } from 'playwright-core';

import { startBaton } from './lib/baton-server.mjs';
import { openHistorySeeder } from './lib/history-seed.mjs';
import { dropDatabase, freshDatabase } from './lib/pg-admin.mjs';

const RUNS = Number(process.argv[2] ?? 100_000);
const TRIES = 7;
const DB = 'baton_ui_bench';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const post = async (url, body) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
  return res.text();
};

const databaseUrl = await freshDatabase(DB);
const baton = await startBaton({ databaseUrl });
const profile = mkdtempSync(path.join(tmpdir(), 'baton-ui-bench-'));
try {
  await post(`${baton.url}/api/metadata/workflow`, {
    name: 'bench_ui',
    version: 1,
    schemaVersion: 2,
    ownerEmail: 'bench@example.com',
    tasks: [
      {
        name: 'calc',
        taskReferenceName: 'calc',
        type: 'INLINE',
        inputParameters: { evaluatorType: 'javascript', expression: '1 + 1' },
      },
    ],
  });
  const templateIds = [];
  for (let i = 0; i < 10; i++) {
    templateIds.push(
      await post(`${baton.url}/api/workflow`, { name: 'bench_ui', input: { i }, correlationId: `tpl-${i}` }),
    );
  }
  for (;;) {
    const res = await (await fetch(`${baton.url}/api/workflow/search?status=COMPLETED&size=0`)).json();
    if (res.totalHits >= templateIds.length) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const seeder = await openHistorySeeder(databaseUrl, {
    templateIds,
    firstStart: Date.now() - RUNS * 1000 - 60_000,
    spacingMs: 1000,
  });
  const seedStart = Date.now();
  await seeder.grow(0, RUNS);
  await seeder.settle();
  await seeder.close();
  console.log(`seeded ${RUNS} finished runs in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);

  const search = `${baton.url}/api/workflow/search?size=25&sort=createTime%3ADESC&start=0`;
  const apiTimes = [];
  let total = 0;
  for (let i = 0; i < TRIES; i++) {
    const t0 = performance.now();
    const body = await (await fetch(search)).json();
    apiTimes.push(performance.now() - t0);
    total = body.totalHits;
  }

  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 800 },
  });
  const page = await context.newPage();
  const pageTimes = [];
  for (let i = 0; i < TRIES; i++) {
    const t0 = performance.now();
    await page.goto(`${baton.url}/runs`);
    await page.locator('tbody tr[data-run]').nth(24).waitFor();
    pageTimes.push(performance.now() - t0);
  }
  await context.close();
  console.log(`runs stored: ${total}`);
  console.log(
    `search (first page of 25, newest first): median ${median(apiTimes).toFixed(0)} ms over ${TRIES}`,
  );
  console.log(
    `runs page in Chromium, navigation to 25 rows drawn: median ${median(pageTimes).toFixed(0)} ms over ${TRIES}`,
  );
} finally {
  rmSync(profile, { recursive: true, force: true });
  await baton.stop();
  await dropDatabase(DB);
}
