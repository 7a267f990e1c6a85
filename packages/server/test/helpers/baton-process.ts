import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/**
 * Runs the real Baton server as a child process, the way an operator would:
 * `node packages/server/dist/src/main.js` from the repository root, configured only by env.
 * End-to-end tests talk to it over HTTP and nothing else.
 */

/** The repository root: the nearest ancestor holding packages/server/package.json. */
export const repoRoot: string = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));
export const serverEntry: string = path.join(repoRoot, 'packages/server/dist/src/main.js');

function findRepoRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(path.join(dir, 'packages/server/package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the repository root above ${start}`);
    dir = parent;
  }
}

export interface StartBatonOptions {
  /** postgres://… to run on PostgreSQL; unset = embedded SQLite in dataDir. */
  databaseUrl?: string;
  /** SQLite data directory; a temporary one (removed on stop) when not given. */
  dataDir?: string;
  /** Extra environment, applied last. */
  env?: Record<string, string>;
  /** How long to wait for GET /health to answer 200 (default 30 s). */
  readyTimeoutMs?: number;
  /** A name for this node in messages (default `baton`). */
  name?: string;
  /** Bind this port (e.g. to restart a node where its workers expect it); a free one when not given. */
  port?: number;
  /** Another build of the server to run, e.g. a previous release (previous-release.ts): its root and entry. */
  build?: { root: string; serverEntry: string };
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface BatonProcess {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly dataDir: string;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<ExitInfo>;
  /**
   * Sends `signal` (default SIGTERM), waits for the process to exit (SIGKILL after `graceMs`,
   * default 15 s), then removes the temporary data dir if this helper made it. Safe to call
   * more than once and after kill().
   */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<ExitInfo>;
  /** SIGKILL now (a crash). Leaves the data dir alone; call stop() later to clean up. */
  kill(): void;
  /** The last lines the process wrote to stdout/stderr. */
  logs(): string;
}

const LOG_LINES_KEPT = 200;
const HEALTH_POLL_MS = 50;
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** If the test process dies without stopping its servers, take them down with it. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

/** A port that was free a moment ago (the child binds it; a lost race is retried by startBaton). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('could not get a free port'))));
    });
  });
}

class LogRing {
  private readonly lines: string[] = [];
  private partial = new Map<string, string>();

  push(stream: string, chunk: string): void {
    const text = (this.partial.get(stream) ?? '') + chunk;
    const parts = text.split('\n');
    this.partial.set(stream, parts.pop() ?? '');
    for (const line of parts) this.add(line);
  }

  add(line: string): void {
    this.lines.push(line);
    if (this.lines.length > LOG_LINES_KEPT) this.lines.splice(0, this.lines.length - LOG_LINES_KEPT);
  }

  text(): string {
    const tails = [...this.partial.values()].filter((p) => p.length > 0);
    return [...this.lines, ...tails].join('\n');
  }
}

class StartError extends Error {
  override name = 'StartError';
  constructor(
    message: string,
    readonly addressInUse: boolean,
  ) {
    super(message);
  }
}

/** Starts a Baton server and resolves once GET /health answers 200. */
export async function startBaton(opts: StartBatonOptions = {}): Promise<BatonProcess> {
  const entry = opts.build?.serverEntry ?? serverEntry;
  if (!existsSync(entry)) {
    throw new Error(`the server entry ${entry} does not exist: build with \`tsc -b\` (npm test does)`);
  }
  const ownsDataDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'baton-e2e-'));
  try {
    // The port is picked before the child binds it; if another process takes it meanwhile, retry.
    for (let attempt = 1; ; attempt++) {
      try {
        return await startOnce(opts, opts.port ?? (await freePort()), dataDir, ownsDataDir);
      } catch (err) {
        const retry = err instanceof StartError && err.addressInUse && attempt < 3 && opts.port === undefined;
        if (!retry) throw err;
      }
    }
  } catch (err) {
    if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

async function startOnce(
  opts: StartBatonOptions,
  port: number,
  dataDir: string,
  ownsDataDir: boolean,
): Promise<BatonProcess> {
  installExitHook();
  const name = opts.name ?? 'baton';
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Nothing from the surrounding shell may pick the store or the port for the child.
  for (const key of Object.keys(env)) if (key.startsWith('BATON_')) delete env[key];
  Object.assign(env, {
    BATON_PORT: String(port),
    BATON_HOST: '127.0.0.1',
    BATON_DATA_DIR: dataDir,
    BATON_LOG_LEVEL: 'warn',
    ...(opts.databaseUrl ? { BATON_DATABASE_URL: opts.databaseUrl } : {}),
    ...opts.env,
  });

  const child = spawn(process.execPath, [opts.build?.serverEntry ?? serverEntry], {
    cwd: opts.build?.root ?? repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const ring = new LogRing();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => ring.push('out', chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => ring.push('err', chunk));

  let exitInfo: ExitInfo | undefined;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.on('error', (err) => ring.add(`[${name}] spawn error: ${err.message}`));
    child.on('close', (code, signal) => {
      exitInfo = { code, signal };
      live.delete(child);
      resolve(exitInfo);
    });
  });

  const url = `http://127.0.0.1:${port}`;
  const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
  const deadline = Date.now() + readyTimeoutMs;
  let lastProblem = 'no answer yet';
  for (;;) {
    if (exitInfo) {
      const logs = ring.text();
      throw new StartError(
        `${name} exited before it was ready (code ${exitInfo.code}, signal ${exitInfo.signal}); last output:\n${logs}`,
        /EADDRINUSE/.test(logs),
      );
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new StartError(
        `${name} was not ready within ${readyTimeoutMs} ms (GET /health: ${lastProblem}); last output:\n${ring.text()}`,
        false,
      );
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
      lastProblem = `HTTP ${res.status}`;
    } catch (err) {
      lastProblem = err instanceof Error ? err.message : String(err);
    }
    await delay(HEALTH_POLL_MS);
  }

  let stopping: Promise<ExitInfo> | undefined;
  const stop = (signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<ExitInfo> => {
    stopping ??= (async () => {
      if (!exitInfo) {
        child.kill(signal);
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), graceMs);
        });
        const first = await Promise.race([exited, timedOut]);
        clearTimeout(timer);
        if (first === 'timeout') {
          ring.add(`[test] ${name} did not exit within ${graceMs} ms of ${signal}; sending SIGKILL`);
          child.kill('SIGKILL');
        }
      }
      const info = await exited;
      if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
      return info;
    })();
    return stopping;
  };

  return {
    url,
    port,
    pid: child.pid ?? -1,
    dataDir,
    exited,
    stop,
    kill: () => {
      if (!exitInfo) child.kill('SIGKILL');
    },
    logs: () => ring.text(),
  };
}

// ---------------------------------------------------------------------------------------------
// Small HTTP helpers: every failure message names the request and quotes the answer.

export interface HttpAnswer {
  status: number;
  contentType: string;
  text: string;
  /** The body parsed as JSON, or undefined when it is empty or not JSON. */
  body: unknown;
}

export async function http(
  method: string,
  url: string,
  body?: unknown,
  init: { timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { accept: 'application/json, text/plain, */*', ...init.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(init.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  let parsed: unknown;
  if (text.length > 0) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, body: parsed };
}

export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly method: string,
    readonly url: string,
    readonly answer: HttpAnswer,
    expected: string,
  ) {
    super(`${method} ${url} answered ${answer.status} (expected ${expected}): ${answer.text.slice(0, 2000)}`);
  }
}

/** Sends a request and insists on a 2xx answer; returns the answer. */
export async function httpOk(method: string, url: string, body?: unknown): Promise<HttpAnswer> {
  const answer = await http(method, url, body);
  if (answer.status < 200 || answer.status > 299) throw new HttpError(method, url, answer, '2xx');
  return answer;
}

/** GET that insists on 200 and a JSON body. The type is the caller's claim about the contract. */
export async function getJson<T>(url: string): Promise<T> {
  const answer = await http('GET', url);
  if (answer.status !== 200 || answer.body === undefined)
    throw new HttpError('GET', url, answer, '200 with JSON');
  return answer.body as T;
}

/** POST that insists on 2xx; returns the answer body as text (e.g. a run id). */
export async function postText(url: string, body: unknown): Promise<string> {
  return (await httpOk('POST', url, body)).text;
}

/**
 * Waits until `check` returns a value other than undefined, calling it again `intervalMs` after
 * each miss, and fails after `timeoutMs` with `describe()` (the state at that moment) in the message.
 */
export async function waitFor<T>(
  check: () => Promise<T | undefined> | T | undefined,
  opts: { timeoutMs: number; intervalMs?: number; what: string; describe?: () => Promise<string> | string },
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) {
      const state = opts.describe ? await opts.describe() : '';
      throw new Error(
        `timed out after ${opts.timeoutMs} ms waiting for ${opts.what}${state ? `\n${state}` : ''}`,
      );
    }
    await delay(opts.intervalMs ?? 100);
  }
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results keep the items' order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
) {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length && !failed) {
      const index = next++;
      try {
        results[index] = await fn(items[index]!, index);
      } catch (err) {
        failed = true; // the other lanes stop taking items
        throw err;
      }
    }
  });
  await Promise.all(lanes);
  return results;
}
