// Starts a real Baton server process (the built one: run `npm run build` first) and stops it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { NODE_FLAGS } from '../../packages/server/dist/src/processes/node-flags.js';

import { childPidsOf } from './proc-cpu.mjs';
import { peakRssOf } from './rss.mjs';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '../../packages/server/dist/src/main.js');

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts Baton on PostgreSQL (`databaseUrl`) or, without it, embedded on SQLite in a fresh
 * data directory. `env` adds settings. Answers { url, pid, peakRss(), stop() }.
 */
export async function startBaton({ databaseUrl, env = {}, nodeArgs = [] } = {}) {
  const port = await freePort();
  // A data dir of its own on either store: SQLite's file, and blob storage's directory.
  const dataDir = env.BATON_DATA_DIR === undefined ? mkdtempSync(join(tmpdir(), 'baton-bench-')) : undefined;
  // Started as `npm start` starts it: with the node flags a Baton node is given.
  const child = spawn(process.execPath, [...NODE_FLAGS, ...nodeArgs, MAIN], {
    env: {
      ...process.env,
      BATON_PORT: String(port),
      BATON_HOST: '127.0.0.1',
      BATON_LOG_LEVEL: 'warn',
      ...(dataDir ? { BATON_DATA_DIR: dataDir } : {}),
      ...(databaseUrl ? { BATON_DATABASE_URL: databaseUrl } : {}),
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Baton exited with ${child.exitCode} while starting`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('Baton did not answer /health within 60 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  let peak = 0;
  return {
    url,
    pid: child.pid,
    /** The data directory (SQLite's baton.db, blob storage), or undefined when `env` chose it. */
    dataDir,
    /** Peak RSS so far (kept after the process ends). */
    peakRss() {
      peak = Math.max(peak, peakRssOf(child.pid) ?? 0);
      return peak;
    },
    /** Peak RSS of each process it forked (BATON_PROCESSES), by pid, kept after they end. */
    childPeaks: new Map(),
    /** Process ids of the node processes it forked (BATON_PROCESSES), now. */
    childPids() {
      const pids = childPidsOf(child.pid);
      for (const pid of pids)
        this.childPeaks.set(pid, Math.max(this.childPeaks.get(pid) ?? 0, peakRssOf(pid) ?? 0));
      return pids;
    },
    async stop() {
      this.peakRss();
      this.childPids();
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
