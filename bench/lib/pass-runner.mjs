// Runs one pass of one system in a child process (bench/lib/child.mjs) and answers its result.
// The child gets a process group of its own so that a pass which outlives its time, or an
// interrupted benchmark, can be ended together with the servers the child started.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const CHILD = join(HERE, 'child.mjs');
const ROOT = join(HERE, '../..');
// Systems bound their own runs at 10 minutes; this only catches a child that hangs outside them.
const PASS_TIMEOUT_MS = 30 * 60_000;
const KILL_GRACE_MS = 10_000;

let current;

/** Ends the running pass's process group, if any (on SIGINT/SIGTERM of the orchestrator). */
export function stopCurrentPass(signal = 'SIGTERM') {
  if (!current) return;
  try {
    process.kill(-current.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Runs `node bench/lib/child.mjs <system> <options>`; resolves with the parsed BENCH_RESULT,
 * rejects with the system's error (its BENCH_ERROR message, else how the process ended and the
 * last thing it wrote to stderr). The child's stderr, and any stdout besides the result, are
 * passed through to this process's stderr, keeping this process's stdout for the report.
 */
export function runPass(system, options, { timeoutMs = PASS_TIMEOUT_MS } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-deprecation', CHILD, system, JSON.stringify(options)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    current = child;
    let result;
    let error;
    let stderrTail = '';
    createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
      if (line.startsWith('BENCH_RESULT ')) {
        try {
          result = JSON.parse(line.slice('BENCH_RESULT '.length));
        } catch (e) {
          error = `unreadable BENCH_RESULT: ${e.message}`;
        }
      } else if (line.startsWith('BENCH_ERROR ')) {
        error = JSON.parse(line.slice('BENCH_ERROR '.length)).message;
      } else if (line.trim()) {
        process.stderr.write(`${line}\n`);
      }
    });
    child.stderr.on('data', (chunk) => {
      process.stderr.write(chunk);
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4000);
    });
    let timedOut = false;
    let killer;
    const timer = setTimeout(() => {
      timedOut = true;
      stopCurrentPass('SIGTERM');
      killer = setTimeout(() => stopCurrentPass('SIGKILL'), KILL_GRACE_MS);
    }, timeoutMs);
    child.on('error', (e) => {
      error ??= e.message;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killer);
      current = undefined;
      if (timedOut)
        return reject(new Error(`pass did not end within ${Math.round(timeoutMs / 1000)} s and was stopped`));
      if (error) return reject(new Error(error));
      if (code === 0 && result) {
        const problem = malformed(result);
        return problem ? reject(new Error(`malformed BENCH_RESULT: ${problem}`)) : resolve(result);
      }
      const lastLine = stderrTail.trim().split('\n').filter(Boolean).pop();
      reject(
        new Error(
          `child exited with ${signal ? `signal ${signal}` : `code ${code}`} without a result` +
            (lastLine ? `: ${lastLine}` : ''),
        ),
      );
    });
  });
}

function malformed(result) {
  for (const field of ['runsCompleted', 'steps', 'seconds']) {
    if (typeof result[field] !== 'number' || !Number.isFinite(result[field]))
      return `${field} is not a number`;
  }
  if (!Array.isArray(result.handoffMs)) return 'handoffMs is not an array';
  if (!Array.isArray(result.processes)) return 'processes is not an array';
  return undefined;
}
