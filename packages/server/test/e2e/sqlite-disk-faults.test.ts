import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  rmdirSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

import { type BatonProcess, http, httpOk, startBaton, waitFor } from '../helpers/baton-process.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { enabledStores } from '../helpers/postgres.js';

/**
 * Embedded SQLite on a disk that fails under it, for real: a small tmpfs of the test's own that
 * the test fills with a file while Baton runs, and an ext4 file system of its own that turns
 * read-only under it. Writes must answer 503 with Retry-After and the reason (SQLITE_FULL, the
 * I/O error), the process must live, and everything acknowledged is there afterwards, also after
 * a restart.
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

void describe('e2e: SQLite on a full or read-only disk', () => {
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
  void it(
    'answers 503 naming the I/O error once its file system turns read-only, and loses nothing acknowledged',
    { timeout: 120_000 },
    async () => {
      const work = mkdtempSync(path.join(tmpdir(), 'baton-ro-'));
      const image = path.join(work, 'fs.img');
      const mountPoint = path.join(work, 'mnt');
      const dataDir = path.join(mountPoint, 'data');
      mkdirSync(mountPoint);
      // An ext4 file system of our own that, like a real one after a disk error, turns itself
      // read-only (errors=remount-ro) under the running node: the kernel's trigger_fs_error.
      await run('truncate', ['-s', '32M', image]);
      await run('mkfs.ext4', ['-q', image]);
      const mount = (): Promise<unknown> => run('mount', ['-o', 'loop,errors=remount-ro', image, mountPoint]);
      await mount();
      let mounted = true;
      let node: BatonProcess | undefined;
      try {
        const { stdout } = await run('findmnt', ['-n', '-o', 'SOURCE', mountPoint]);
        const device = path.basename(stdout.trim());
        const start = (port?: number): Promise<BatonProcess> =>
          startBaton({
            name: 'sqlite-ro',
            dataDir,
            env: { BATON_LOG_LEVEL: 'error' },
            ...(port !== undefined && { port }),
          });
        node = await start();
        await httpOk('POST', `${node.url}/api/metadata/taskdefs`, workerTaskDefs(['ro_a']));
        await httpOk(
          'POST',
          `${node.url}/api/metadata/workflow`,
          workflowDef('ro_flow', [{ name: 'ro_a', taskReferenceName: 'a', type: 'SIMPLE' }]),
        );
        const acknowledged: string[] = [];
        for (let n = 0; n < 5; n++)
          acknowledged.push(
            (await httpOk('POST', `${node.url}/api/workflow/ro_flow`, { input: { n } })).text,
          );

        writeFileSync(`/sys/fs/ext4/${device}/trigger_fs_error`, 'baton test');
        const refused = await http('POST', `${node.url}/api/workflow/ro_flow`, { input: { n: 5 } });
        if (refused.status === 200) acknowledged.push(refused.text);
        assert.equal(refused.status, 503, refused.text);
        // SQLite meets the read-only disk in its COMMIT, or (when the COMMIT only overwrote WAL
        // pages already in the page cache) the WAL's sync does; which one is the kernel's timing.
        assert.match(
          refused.text,
          /SQLITE_IOERR|SQLITE_READONLY|could not sync the WAL to disk \((EIO|EROFS)/,
        );
        assert.equal((refused.body as { code: string }).code, 'NOT_READY');
        assert.equal((await http('GET', `${node.url}/health/live`)).status, 200);
        if (refused.text.includes('could not sync the WAL')) {
          // A failed sync is final: the node says it is not ready until it is restarted.
          const ready = await http('GET', `${node.url}/health/ready`);
          assert.equal(ready.status, 503, ready.text);
          assert.match(ready.text, /could not sync the WAL to disk/);
        }

        // The operator repairs the file system and starts the node again: nothing acknowledged is lost.
        const port = node.port;
        await node.stop();
        await run('umount', [mountPoint]);
        mounted = false;
        await run('e2fsck', ['-fy', image]).catch(() => undefined); // exit 1 = errors corrected
        await mount();
        mounted = true;
        node = await start(port);
        for (const id of acknowledged)
          assert.equal(
            (await http('GET', `${node.url}/api/workflow/${id}`)).status,
            200,
            `acknowledged run ${id} is there`,
          );
        await httpOk('POST', `${node.url}/api/workflow/ro_flow`, { input: { n: 6 } });
      } finally {
        await node?.stop();
        if (mounted) await run('umount', [mountPoint]).catch(() => run('umount', ['-l', mountPoint]));
        rmSync(work, { recursive: true, force: true });
      }
    },
  );
});
