import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { BatonClient, builders } from '@baton/sdk';

import { freePort, runCli, startBaton, waitFor } from './helpers/cli.js';

// A server restart while `baton start --wait` follows a run: the watch says it lost the server,
// waits for it, and still ends with the run's outcome.
describe('baton start --wait across a server restart (real CLI, real server)', () => {
  it('rides out the outage and ends with the output', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'baton-outage-'));
    const port = await freePort();
    let baton = await startBaton({ dataDir, port });
    try {
      const client = new BatonClient({ baseUrl: baton.url });
      await client.putWorkflowDefs([
        builders.workflow('nap', [builders.waitTask('nap', '4 seconds')], {
          outputParameters: { rested: true },
        }),
      ]);
      const watching = runCli(['start', 'nap', '--wait'], {
        env: { BATON_URL: baton.url },
        timeoutMs: 90_000,
      });
      await waitFor(
        async () =>
          (await client.searchWorkflows({ name: 'nap', status: 'RUNNING' })).totalHits === 1
            ? true
            : undefined,
        { timeoutMs: 30_000, what: 'the run to start' },
      );
      await baton.stop();
      await new Promise((r) => setTimeout(r, 1000));
      baton = await startBaton({ dataDir, port });
      const r = await watching;
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`cannot reach Baton at http://127.0.0.1:${port}: .*retrying for up to 60 s`),
      );
      assert.match(r.stderr, /reached the server again/);
      assert.match(r.stdout, /COMPLETED output: \{"rested":true\}/);
    } finally {
      await baton.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
