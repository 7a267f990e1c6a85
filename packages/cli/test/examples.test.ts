import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { cliEntry, cliEnv, freePort, repoRoot, runCli, waitFor } from './helpers/cli.js';

/** Spawns a long-running child (the server, the worker) and keeps what it prints. */
function spawnLong(args: string[], env: Record<string, string>, cwd = repoRoot) {
  const child = spawn(process.execPath, args, { cwd, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function stop(
  proc: { child: ChildProcess; exited: Promise<number | null> } | undefined,
): Promise<number | null> {
  if (!proc) return null;
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 15_000);
  const code = await proc.exited;
  clearTimeout(timer);
  return code;
}

// The README's walk-through, as a user from a fresh clone does it: `baton server` in one
// terminal, then apply the examples, run the example worker, start hello and wait for it.
describe('the hello example end to end: baton server, apply, SDK worker, start --wait, show', () => {
  let dataDir: string;
  let url: string;
  let server: ReturnType<typeof spawnLong> | undefined;
  let worker: ReturnType<typeof spawnLong> | undefined;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'baton-examples-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = spawnLong([cliEntry, 'server'], {
      BATON_PORT: String(port),
      BATON_DATA_DIR: dataDir,
      BATON_LOG_LEVEL: 'warn',
    });
    await waitFor(
      async () => {
        const res = await fetch(`${url}/health`).catch(() => undefined);
        return res?.status === 200 ? true : undefined;
      },
      { timeoutMs: 30_000, what: '`baton server` to answer /health', describe: () => server!.output() },
    );
  });
  after(async () => {
    await stop(worker);
    await stop(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('`npx baton` works from the repository', () => {
    const r = spawnSync('npx', ['--no-install', 'baton', '--help'], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: cliEnv(),
      timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Usage: baton/);
  });

  it('`baton migrate` migrates the configured store and exits', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'baton-migrate-'));
    try {
      const r = await runCli(['migrate'], { env: { BATON_DATA_DIR: dir } });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), `migrated: SQLite in ${dir}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('applies examples/, runs the SDK worker, and hello finishes with its output', async () => {
    const env = { BATON_URL: url };
    const applied = await runCli(['apply', '-f', 'examples/'], { env });
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /\+ created\s+task definition greet/);
    assert.match(applied.stdout, /\+ created\s+workflow hello v1/);

    worker = spawnLong([path.join(repoRoot, 'examples/dist/hello/worker.js')], env);
    await waitFor(() => (/polling/.test(worker!.output()) ? true : undefined), {
      timeoutMs: 30_000,
      what: 'the worker to start',
      describe: () => worker!.output(),
    });

    const ok = await runCli(['start', 'hello', '--input', '{"who":"x"}', '--wait'], { env });
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /COMPLETED output: \{"greeting":"hello, x","loud":"HELLO, X!"\}/);

    const retried = await runCli(['start', 'hello', '--input', '{"who":"flaky"}', '--wait', '--json'], {
      env,
    });
    assert.equal(retried.code, 0, retried.stdout + retried.stderr);
    assert.deepEqual((JSON.parse(retried.stdout) as { output: unknown }).output, {
      greeting: 'hello, flaky',
      loud: 'HELLO, FLAKY!',
    });
  });

  it('a failed hello run: start --wait exits 3 and `baton show` says why it failed', async () => {
    const env = { BATON_URL: url };
    const failed = await runCli(['start', 'hello', '--input', '{}', '--wait'], { env });
    assert.equal(failed.code, 3, failed.stdout + failed.stderr);
    const id = /started hello (\S+)/.exec(failed.stderr)?.[1];
    assert.ok(id, failed.stderr);
    const shown = await runCli(['show', id], { env });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /FAILED/);
    assert.match(shown.stdout, /why it failed: .*who is required/);
    assert.match(shown.stdout, /✖ greet SIMPLE FAILED_WITH_TERMINAL_ERROR .* — who is required/);
  });

  it('the worker and the server stop gracefully on SIGTERM', async () => {
    assert.equal(await stop(worker), 0, worker?.output());
    worker = undefined;
    assert.equal(await stop(server), 0, server?.output());
    server = undefined;
  });
});
