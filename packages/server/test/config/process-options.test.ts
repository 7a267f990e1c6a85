import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { processIndex, processIndexEnv, unknownSettings } from '../../src/config/env.js';
import { ConfigError, compileOptions } from '../../src/config/options.js';
import { freePort, repoRoot, serverEntry } from '../helpers/baton-process.js';

const PG = { BATON_DATABASE_URL: 'postgres://u@127.0.0.1:5432/baton' };

void describe('BATON_PROCESSES', () => {
  void it('is 1 by default; a count or auto (one per CPU) on PostgreSQL', () => {
    assert.equal(compileOptions({}, '/').processes, 1);
    assert.equal(compileOptions({ ...PG, BATON_PROCESSES: '4' }, '/').processes, 4);
    assert.equal(compileOptions({ ...PG, BATON_PROCESSES: 'auto' }, '/', 6).processes, 6);
    assert.equal(compileOptions({ ...PG, BATON_PROCESSES: 'AUTO' }, '/', 2).processes, 2);
    // One process is allowed on either store; auto on a one-CPU machine is one.
    assert.equal(compileOptions({ BATON_PROCESSES: '1' }, '/').processes, 1);
    assert.equal(compileOptions({ BATON_PROCESSES: 'auto' }, '/', 1).processes, 1);
  });

  void it('refuses a bad count, naming the setting', () => {
    for (const bad of ['0', '-1', '1.5', 'many', '257'])
      assert.throws(
        () => compileOptions({ ...PG, BATON_PROCESSES: bad }, '/'),
        (err: unknown) =>
          err instanceof ConfigError &&
          /BATON_PROCESSES must be auto or an integer from 1 to 256/.test(err.message),
        bad,
      );
  });

  void it('refuses more than one process on SQLite (one writer)', () => {
    assert.throws(
      () => compileOptions({ BATON_PROCESSES: '2' }, '/'),
      (err: unknown) =>
        err instanceof ConfigError &&
        /^BATON_PROCESSES=2 needs PostgreSQL \(BATON_DATABASE_URL\)/.test(err.message),
    );
    assert.throws(
      () => compileOptions({ BATON_PROCESSES: 'auto' }, '/', 8),
      (err: unknown) =>
        err instanceof ConfigError && /BATON_PROCESSES=auto \(8 CPUs\) needs PostgreSQL/.test(err.message),
    );
  });

  void it('the index the primary gives each process is read back, and is no unknown setting', () => {
    const env = processIndexEnv(3);
    assert.equal(processIndex(env), 3);
    assert.equal(processIndex({}), undefined);
    assert.equal(processIndex({ ...env, BATON_PROCESS_INDEX: 'x' }), undefined);
    assert.deepEqual(unknownSettings({ ...env, BATON_PROCESSES: '2' }), []);
  });
});

/** Runs the server entry with exactly these BATON_* settings until it exits. */
function runServer(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(childEnv)) if (key.startsWith('BATON_')) delete childEnv[key];
  const child = spawn(process.execPath, [serverEntry], {
    cwd: repoRoot,
    env: { ...childEnv, BATON_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

void describe('BATON_PROCESSES in the real server process', () => {
  void it('on SQLite: one line naming the setting, exit 2, nothing forked', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'baton-processes-'));
    try {
      const r = await runServer({ BATON_PROCESSES: '2', BATON_DATA_DIR: dataDir });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /^baton: BATON_PROCESSES=2 needs PostgreSQL \(BATON_DATABASE_URL\)/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  void it('an unreachable database is told once by the primary, before any process is forked', async () => {
    const port = await freePort(); // nothing listens there
    const r = await runServer({
      BATON_PROCESSES: '3',
      BATON_PORT: String(await freePort()),
      BATON_DATABASE_URL: `postgres://baton:hidden@127.0.0.1:${port}/baton`,
      // Exit at once instead of waiting for the database to appear.
      BATON_DB_START_WAIT_MS: '0',
    });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(
      r.stderr,
      /^baton: failed to start: cannot reach the PostgreSQL database at .*BATON_DATABASE_URL/,
    );
    assert.doesNotMatch(r.stderr, /hidden/);
  });
});
