import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { waitFor } from '../helpers/baton-process.js';
import { call } from '../helpers/app.js';
import { appSuite } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';

/** The background timer loop on the system clock: it fires a due timer by itself and reports its health. */
for (const storeCase of storeCases()) {
  describe(`timer loop in the background on ${storeCase.name}`, () => {
    // A long idle interval: only the in-process wake-up on arming can make the timer fire in time.
    const t = appSuite(storeCase, { env: { BATON_TIMER_IDLE_MS: '60000' } });

    it('/health reports the loop running and its last round', async () => {
      const health = await call(t.app, 'GET', '/health');
      assert.equal(health.status, 200);
      assert.equal(health.body.components.timers.status, 'UP');
      assert.equal(health.body.components.timers.running, true);
      assert.equal(typeof health.body.components.timers.lastTickAgeMs, 'number');
    });

    it('a timer armed on this node wakes the sleeping loop, which fires it when due', async () => {
      const defs = workerTaskDefs(['tl_nobody'], { pollTimeoutSeconds: 1, timeoutPolicy: 'TIME_OUT_WF' });
      assert.equal((await call(t.app, 'POST', '/api/metadata/taskdefs', defs)).status, 200);
      const def = workflowDef('tl_flow', [{ name: 'tl_nobody', taskReferenceName: 'wait', type: 'SIMPLE' }]);
      assert.equal((await call(t.app, 'POST', '/api/metadata/workflow', def)).status, 200);
      const id = (await call(t.app, 'POST', '/api/workflow/tl_flow', {})).text;
      const run = await waitFor(
        async () => {
          const r = (await call(t.app, 'GET', `/api/workflow/${id}`)).body;
          return r.status === 'TIMED_OUT' ? r : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 50, what: 'the poll timeout to time the run out' },
      );
      assert.equal(run.reasonForIncompletion, 'Task wait timed out: no poll within pollTimeoutSeconds (1s)');
    });
  });
}
