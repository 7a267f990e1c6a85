import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { BatonClient, WorkerPool, builders, defineWorker } from '@baton/sdk';

import { runCliInTerminal, startBaton, waitFor, type BatonProcess } from './helpers/cli.js';

const { simpleTask, taskDef, workflow } = builders;

// `baton start --wait` at a real terminal (a pseudo-terminal from util-linux `script`): the view
// is redrawn in place while the run waits for a worker, then shows the end and the output.
describe('baton start --wait in a terminal (real CLI, real server, pseudo-terminal)', () => {
  let baton: BatonProcess;
  let client: BatonClient;

  before(async () => {
    baton = await startBaton();
    client = new BatonClient({ baseUrl: baton.url });
    await client.registerTaskDefs([taskDef('paint', { retryCount: 0 }), taskDef('dry', { retryCount: 0 })]);
    await client.putWorkflowDefs([
      workflow('decorate', [simpleTask('paint', 'paint'), simpleTask('dry', 'dry')], {
        outputParameters: { colour: '${paint.output.colour}' },
      }),
    ]);
  });
  after(() => baton?.stop());

  it('redraws each task state, a progress bar and why it waits, then ends with the output', async () => {
    // The view's frames so far, without colour: the test moves on when the view has shown a state,
    // not after a time that a loaded machine may overrun.
    let frames = '';
    const view = runCliInTerminal(['start', 'decorate', '--input', '{"room": "hall"}', '--wait'], {
      env: { BATON_URL: baton.url, FORCE_COLOR: '1' },
      // eslint-disable-next-line no-control-regex
      onStdout: (soFar) => (frames = soFar.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '')),
    });
    const shown = (pattern: RegExp, what: string) =>
      waitFor(() => (pattern.test(frames) ? true : undefined), { timeoutMs: 30_000, what });
    // Let the view draw why the run waits while no worker polls, then bring the workers; the first
    // task holds until the view has drawn it running.
    await shown(
      /why it waits: paint: no worker has (ever )?polled paint/,
      'the view to say why the run waits',
    );
    const pool = new WorkerPool({
      client,
      workers: [
        defineWorker({
          taskType: 'paint',
          handler: async () => {
            await shown(/● paint SIMPLE IN_PROGRESS/, 'the view to draw paint running');
            return { colour: 'teal' };
          },
        }),
        defineWorker({ taskType: 'dry', handler: () => ({}) }),
      ],
    }).start();
    try {
      const r = await view;
      assert.equal(r.code, 0, r.stdout);
      const text = r.stdout;
      // eslint-disable-next-line no-control-regex
      assert.match(text, /\u001b\[\d+F\u001b\[0J/, 'frames are redrawn in place');
      // eslint-disable-next-line no-control-regex
      const plain = text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
      assert.match(plain, /decorate \S+ {2}RUNNING {2}\[░{24}\] 0\/2/, 'a progress bar at 0 of 2');
      assert.match(plain, /◌ paint SIMPLE SCHEDULED .* — waiting: no worker has (ever )?polled paint/);
      assert.match(plain, /why it waits: paint: no worker has (ever )?polled paint/);
      assert.match(plain, /○ dry SIMPLE/);
      assert.match(plain, /● paint SIMPLE IN_PROGRESS/, 'the running state was seen');
      assert.match(plain, /COMPLETED {2}\[█{24}\] 2\/2/);
      assert.match(plain, /COMPLETED output: \{"colour":"teal"\}/);
      // eslint-disable-next-line no-control-regex
      assert.match(text, /\u001b\[32mCOMPLETED\u001b\[0m/, 'in colour');
    } finally {
      await pool.stop({ graceMs: 1000 });
    }
  });

  it('exits with the status of a run that ends badly (terminated: 5)', async () => {
    const view = runCliInTerminal(['start', 'decorate', '--wait'], { env: { BATON_URL: baton.url } });
    const id = await waitFor(
      async () =>
        (await client.searchWorkflows({ name: 'decorate', status: 'RUNNING' })).results[0]?.workflowId,
      { timeoutMs: 30_000, what: 'the run to start' },
    );
    await new Promise((r) => setTimeout(r, 500));
    await client.terminateWorkflow(id, 'no painters today');
    const r = await view;
    assert.equal(r.code, 5, r.stdout);
    assert.match(r.stdout, /why it was terminated: no painters today/);
  });
});
