import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { nearestSetting, unknownSettings } from '../../src/config/env.js';
import { describeStartFailure, shownDatabaseUrl } from '../../src/config/start-failure.js';
import { freePort, repoRoot, serverEntry, startBaton } from '../helpers/baton-process.js';

/**
 * What the server says when it cannot start for a reason people can fix, and about settings it
 * does not know: one line naming the problem and the setting, never a stack trace.
 */

describe('settings the server does not know', () => {
  it('a mistyped setting is named with the one meant', () => {
    assert.equal(nearestSetting('BATON_LOGLEVEL'), 'BATON_LOG_LEVEL');
    assert.equal(nearestSetting('BATON_PROT'), 'BATON_PORT');
    assert.equal(nearestSetting('BATON_DATABSE_URL'), 'BATON_DATABASE_URL');
    assert.equal(nearestSetting('BATON_SOMETHING_ELSE_ENTIRELY'), undefined);
    // The CLI's settings are known names too.
    assert.equal(nearestSetting('BATON_URLL'), 'BATON_URL');
    assert.equal(nearestSetting('BATON_TOKN'), 'BATON_TOKEN');
  });

  it('unknown BATON_* variables are listed; the CLI and test tooling variables are not', () => {
    const found = unknownSettings({
      BATON_LOGLEVEL: 'debug',
      BATON_WHATEVER: '1',
      BATON_PORT: '8080',
      BATON_URL: 'http://x',
      BATON_TOKEN: 't',
      BATON_KEY_ID: 'k',
      BATON_KEY_SECRET: 's',
      BATON_TEST_DATABASE_URL: 'postgres://x',
      BATON_TEST_STORES: 'sqlite',
      BATON_UPDATE_SCREENSHOTS: '1',
      PATH: '/bin',
    });
    assert.deepEqual(found, [
      { name: 'BATON_LOGLEVEL', suggestion: 'BATON_LOG_LEVEL' },
      { name: 'BATON_WHATEVER' },
    ]);
  });
});

describe('start-up failures people can fix', () => {
  const options = {
    host: '127.0.0.1',
    port: 8080,
    databaseUrl: 'postgres://u:pw@db:5432/baton',
    dataDir: './data',
  };

  it('the port taken names BATON_PORT', () => {
    const err = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', syscall: 'listen' });
    const line = describeStartFailure(err, 'listen', options);
    assert.match(
      line ?? '',
      /cannot listen on 127\.0\.0\.1:8080: the address is in use \(EADDRINUSE\).*BATON_PORT/,
    );
  });

  it('an unreachable database names BATON_DATABASE_URL without its password', () => {
    const err = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const line = describeStartFailure(err, 'open', options) ?? '';
    assert.match(line, /cannot reach the PostgreSQL database at postgres:\/\/u:\*\*\*@db:5432\/baton/);
    assert.match(line, /BATON_DATABASE_URL/);
    assert.doesNotMatch(line, /pw/);
    assert.equal(shownDatabaseUrl('postgres://u@h/d'), 'postgres://u@h/d');
  });

  it('a data directory that cannot be made or a file there that is no database names BATON_DATA_DIR', () => {
    const sqlite = { host: '127.0.0.1', port: 8080, databaseUrl: undefined, dataDir: '/srv/baton' };
    for (const code of ['EEXIST', 'ENOTDIR', 'EACCES', 'EROFS', 'ENOSPC']) {
      const err = Object.assign(new Error(`${code}: mkdir '/srv/baton'`), { code });
      assert.match(
        describeStartFailure(err, 'open', sqlite) ?? '',
        new RegExp(`^cannot use the data directory /srv/baton: .*\\(${code}\\).*BATON_DATA_DIR`),
      );
    }
    const notDb = Object.assign(new Error('file is not a database'), { code: 'SQLITE_NOTADB' });
    assert.match(
      describeStartFailure(notDb, 'open', sqlite) ?? '',
      /^cannot use the SQLite database in \/srv\/baton: it is not a SQLite database .*BATON_DATA_DIR/,
    );
  });

  it('anything else is left to the stack trace (a bug)', () => {
    assert.equal(describeStartFailure(new Error('boom'), 'open', options), undefined);
    const sqlite = { ...options, databaseUrl: undefined };
    assert.equal(describeStartFailure(new Error('boom'), 'open', sqlite), undefined);
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

describe('the real server process', () => {
  it('a port in use: one line naming the address and BATON_PORT, a mistyped setting warned about, exit 1', async () => {
    const first = await startBaton();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'baton-start-up-'));
    try {
      const port = new URL(first.url).port;
      const r = await runServer({ BATON_PORT: port, BATON_DATA_DIR: dataDir, BATON_LOGLEVEL: 'debug' });
      assert.equal(r.code, 1, r.stderr);
      const lines = r.stderr.trim().split('\n');
      assert.deepEqual(lines.length, 2, r.stderr);
      assert.match(
        lines[0]!,
        /^baton: warning: BATON_LOGLEVEL is not a Baton setting \(did you mean BATON_LOG_LEVEL\?\)/,
      );
      assert.match(
        lines[1]!,
        new RegExp(
          `^baton: failed to start: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE.*BATON_PORT`,
        ),
      );
    } finally {
      await first.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a data directory that is a file, or holds a file that is no database: one line naming BATON_DATA_DIR, exit 1', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'baton-start-up-'));
    try {
      const aFile = path.join(dir, 'a-file');
      writeFileSync(aFile, 'not a directory');
      const garbage = path.join(dir, 'garbage');
      mkdirSync(garbage);
      writeFileSync(path.join(garbage, 'baton.db'), 'this is not a database, it only has its name');
      for (const [dataDir, expected] of [
        [aFile, /cannot use the data directory .*a-file: a file of that name is in the way \(EEXIST\)/],
        [garbage, /cannot use the SQLite database in .*garbage: it is not a SQLite database/],
      ] as const) {
        const r = await runServer({ BATON_PORT: String(await freePort()), BATON_DATA_DIR: dataDir });
        assert.equal(r.code, 1, r.stderr);
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
        assert.match(r.stderr, /^baton: failed to start: /);
        assert.match(r.stderr, expected);
        assert.match(r.stderr, /BATON_DATA_DIR/);
        assert.doesNotMatch(r.stderr, /\n\s+at /);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an unreachable database: one line naming BATON_DATABASE_URL, no stack trace, exit 1', async () => {
    const port = await freePort(); // nothing listens there
    const r = await runServer({
      BATON_PORT: String(await freePort()),
      BATON_DATABASE_URL: `postgres://baton:hidden@127.0.0.1:${port}/baton`,
      // Exit at once instead of waiting for the database to appear.
      BATON_DB_START_WAIT_MS: '0',
    });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(
      r.stderr,
      /^baton: failed to start: cannot reach the PostgreSQL database at .*ECONNREFUSED.*BATON_DATABASE_URL/,
    );
    assert.doesNotMatch(r.stderr, /hidden|\n\s+at /);
  });
});
