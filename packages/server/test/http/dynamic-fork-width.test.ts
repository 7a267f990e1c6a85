import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { ConfigError, compileOptions } from '../../src/config/options.js';
import { appSuite, register } from '../helpers/app-suite.js';
import { pollTasks, runOf, startRun } from '../helpers/runs.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';

/**
 * BATON_MAX_FORK_BRANCHES through the real routes: a dynamic fork as wide as the limit runs, a
 * wider one fails its run with a message naming the width and the setting, and makes no branch a
 * worker could take.
 */
const forkDef = workflowDef('width_fork', [
  {
    name: 'dyn',
    taskReferenceName: 'dyn',
    type: 'FORK_JOIN_DYNAMIC',
    inputParameters: { forkTaskName: 'width_work', forkTaskInputs: '${workflow.input.items}' },
  },
  { name: 'join', taskReferenceName: 'join', type: 'JOIN' },
]);

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ i }));

for (const storeCase of storeCases()) {
  void describe(`dynamic fork width limit (${storeCase.name})`, () => {
    const t = appSuite(storeCase, { env: { BATON_MAX_FORK_BRANCHES: '5' } });
    before(() => register(t.app, [forkDef], workerTaskDefs(['width_work'])));

    void it('a fork of 5 branches runs; one of 6 fails its run and queues nothing', async () => {
      const atLimit = await startRun(t.app, 'width_fork', { input: { items: items(5) } });
      const open = await runOf(t.app, atLimit);
      assert.equal(open.status, 'RUNNING');
      assert.equal(
        open.tasks.filter((task: { taskType: string }) => task.taskType === 'width_work').length,
        5,
      );
      assert.equal((await pollTasks(t.app, 'width_work', 10)).length, 5);

      const wider = await startRun(t.app, 'width_fork', { input: { items: items(6) } });
      const failed = await runOf(t.app, wider);
      assert.equal(failed.status, 'FAILED');
      assert.equal(
        failed.reasonForIncompletion,
        'The dynamic fork dyn would make 6 branches, more than the 5 this server allows (BATON_MAX_FORK_BRANCHES): split the work, for example into sub-workflows of at most 5 branches each',
      );
      assert.equal(
        failed.tasks.filter((task: { taskType: string }) => task.taskType === 'width_work').length,
        0,
      );
      assert.deepEqual(await pollTasks(t.app, 'width_work', 10), []);
    });
  });
}

void describe('BATON_MAX_FORK_BRANCHES', () => {
  void it('is 10000 unless set; a bad value stops the start, naming the setting', () => {
    assert.equal(compileOptions({}, '/').maxForkBranches, 10_000);
    assert.equal(compileOptions({ BATON_MAX_FORK_BRANCHES: '250' }, '/').maxForkBranches, 250);
    for (const bad of ['0', '-3', '2.5', 'lots', '1000001'])
      assert.throws(
        () => compileOptions({ BATON_MAX_FORK_BRANCHES: bad }, '/'),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.message === `BATON_MAX_FORK_BRANCHES must be an integer from 1 to 1000000, got '${bad}'`,
        bad,
      );
  });
});
