import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

import { type BatonProcess, http, httpOk, startBaton, waitFor } from '../helpers/baton-process.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { enabledStores } from '../helpers/postgres.js';

/**
 * Embedded SQLite on a disk that fills up under it: a small tmpfs of the test's own, filled with
 * a file by the test while Baton runs. Writes must answer 503 with Retry-After and the reason
 * (SQLITE_FULL), the process must live, and once space is free again writes succeed, and
 * everything acknowledged before, during and after is there, also after a restart.
 */

const run = promisify(execFile);

/** Fills the file system holding `dir` to the last byte: the file's size is what was free. */
function fill(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = openSync(file, 'w');
  try {
    for (const size of [1 << 20, 1 << 16, 1 << 12, 512, 1]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          if (writeSync(fd, chunk) < size) break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return file;
}

void describe('e2e: SQLite on a full disk', () => {
  if (!enabledStores().includes('sqlite')) return;

  void it(
    'answers 503 naming the full disk, stays up, and loses nothing acknowledged',
    { timeout: 120_000 },
    async () => {
      const mountPoint = mkdtempSync(path.join(tmpdir(), 'baton-full-'));
      // A file system of our own, small enough to fill in a moment (the test runs as root in CI).
      await run('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mountPoint]);
      let node: BatonProcess | undefined;
      const dataDir = path.join(mountPoint, 'data');
      try {
        const start = (port?: number): Promise<BatonProcess> =>
          startBaton({
            name: 'sqlite-full',
            dataDir,
            env: { BATON_LOG_LEVEL: 'error' },
            ...(port !== undefined && { port }),
          });
        node = await start();
        await httpOk('POST', `${node.url}/api/metadata/taskdefs`, workerTaskDefs(['full_a']));
        await httpOk(
          'POST',
          `${node.url}/api/metadata/workflow`,
          workflowDef('full_flow', [{ name: 'full_a', taskReferenceName: 'a', type: 'SIMPLE' }]),
        );
        const acknowledged: string[] = [];
        // Inputs large enough that a few of them need new pages.
        const startRun = (n: number): Promise<{ status: number; text: string; retryAfter: string | null }> =>
          fetch(`${node!.url}/api/workflow/full_flow`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ input: { n, pad: 'x'.repeat(16_000) } }),
            signal: AbortSignal.timeout(30_000),
          }).then(async (res) => ({
            status: res.status,
            text: await res.text(),
            retryAfter: res.headers.get('retry-after'),
          }));
        for (let n = 0; n < 5; n++) {
          const answer = await startRun(n);
          assert.equal(answer.status, 200, answer.text);
          acknowledged.push(answer.text);
        }

        const filler = fill(mountPoint);
        let refused: { status: number; text: string; retryAfter: string | null } | undefined;
        for (let n = 5; n < 2_000 && refused === undefined; n++) {
          const answer = await startRun(n);
          if (answer.status === 200) acknowledged.push(answer.text);
          else refused = answer;
        }
        assert.ok(refused, 'a write was refused once the disk was full');
        assert.equal(refused.status, 503, refused.text);
        assert.ok(refused.retryAfter !== null, 'Retry-After is set');
        assert.match(refused.text, /SQLITE_FULL|full/i);
        const body = JSON.parse(refused.text) as { code: string; retryable: boolean };
        assert.equal(body.code, 'NOT_READY');
        assert.equal(body.retryable, true);
        // Reads still answer; the process lives.
        for (const id of acknowledged) await httpOk('GET', `${node.url}/api/workflow/${id}`);
        assert.equal((await http('GET', `${node.url}/health/live`)).status, 200);

        rmSync(filler);
        await waitFor(
          async () => {
            const answer = await startRun(10_000);
            if (answer.status !== 200) return undefined;
            acknowledged.push(answer.text);
            return true;
          },
          { timeoutMs: 20_000, intervalMs: 100, what: 'writes to succeed once space is free' },
        );

        // Nothing acknowledged is lost, after a restart too.
        const port = node.port;
        await node.stop();
        node = await start(port);
        for (const id of acknowledged) {
          const run = await http('GET', `${node.url}/api/workflow/${id}`);
          assert.equal(run.status, 200, `acknowledged run ${id} is there`);
        }
      } finally {
        await node?.stop();
        await run('umount', [mountPoint]).catch(() => run('umount', ['-l', mountPoint]));
        rmdirSync(mountPoint);
      }
    },
  );
});
