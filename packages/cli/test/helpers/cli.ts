import { spawn } from 'node:child_process';
import path from 'node:path';

import {
  repoRoot,
  startBaton,
  type BatonProcess,
  type StartBatonOptions,
} from '@baton/server/test/baton-process';
import { createTestDatabase, enabledStores } from '@baton/server/test/postgres';

export { startBaton, freePort, waitFor, repoRoot, type BatonProcess } from '@baton/server/test/baton-process';
export { enabledStores };

/**
 * A server on the given store: embedded SQLite, or a fresh PostgreSQL database of its own
 * (dropped when the server stops).
 */
export async function startBatonOn(
  store: 'sqlite' | 'postgres',
  opts: StartBatonOptions = {},
): Promise<BatonProcess> {
  if (store === 'sqlite') return startBaton(opts);
  const db = await createTestDatabase('baton_cli');
  let baton: BatonProcess;
  try {
    baton = await startBaton({ ...opts, databaseUrl: db.url });
  } catch (err) {
    await db.drop();
    throw err;
  }
  const stop = baton.stop.bind(baton);
  return Object.assign(baton, {
    stop: async (...args: Parameters<BatonProcess['stop']>) => {
      const exit = await stop(...args);
      await db.drop();
      return exit;
    },
  });
}

/** The bin as npm links it (`npx baton`). */
export const cliEntry = path.join(repoRoot, 'packages/cli/bin/baton.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a CLI child sees: the surrounding shell's BATON_* settings removed, then `env`. */
export function cliEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const key of Object.keys(out)) if (key.startsWith('BATON_') || key === 'FORCE_COLOR') delete out[key];
  if (env.FORCE_COLOR !== undefined) delete out.NO_COLOR;
  return { ...out, ...env };
}

/** Runs the real `baton` bin as a child process and collects what it printed. */
export function runCli(
  args: string[],
  opts: { env?: Record<string, string>; timeoutMs?: number; cwd?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliEntry, ...args], {
      cwd: opts.cwd ?? repoRoot,
      env: cliEnv(opts.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Quotes one argument for sh -c. */
function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs the bin inside a pseudo-terminal (util-linux `script`), the way a person at a terminal
 * sees it; answers the raw bytes written to the terminal and the CLI's own exit code (`-e`).
 */
export function runCliInTerminal(
  args: string[],
  opts: { env?: Record<string, string>; timeoutMs?: number; onStdout?: (soFar: string) => void } = {},
): Promise<CliResult> {
  // A pseudo-terminal starts with no size; give it one a person's terminal might have.
  const command = `stty cols 160 rows 50; ${[process.execPath, cliEntry, ...args].map(shellQuote).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', command, '/dev/null'], {
      cwd: repoRoot,
      env: { ...cliEnv(opts.env), TERM: 'xterm-256color', COLUMNS: '160', LINES: '50' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      opts.onStdout?.(stdout);
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
