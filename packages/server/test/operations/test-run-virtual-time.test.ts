import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { appSuite } from '../helpers/app-suite.js';
import { workerTaskDefs, workflowDef } from '../helpers/definitions.js';
import { storeCases } from '../helpers/stores.js';
import { RunDriver } from './run-control-driver.js';

const DAY_MS = 86_400_000;

/** `POST /api/workflow/test` on virtual time: timers fire by jumping the sandbox's clock. */
/** The timeouts and retries of the slow task, in the parent's definitions and the child's own. */
const SLOW_POLICY = {
  retryCount: 2,
  retryDelaySeconds: 0,
  timeoutSeconds: 60,
  responseTimeoutSeconds: 30,
  pollTimeoutSeconds: 60,
  timeoutPolicy: 'RETRY',
};

for (const storeCase of storeCases()) {
  describe(`test runs on virtual time on ${storeCase.name}`, () => {
    let d: RunDriver;

    const waitDef = (extra: Record<string, unknown> = {}) => ({
      ...workflowDef(
        'vt_wait',
        [
          { name: 'vt_a', taskReferenceName: 'a', type: 'SIMPLE' },
          { name: 'w', taskReferenceName: 'w', type: 'WAIT', inputParameters: { duration: '1 days' } },
          { name: 'vt_b', taskReferenceName: 'b', type: 'SIMPLE', inputParameters: { y: '${a.output.y}' } },
        ],
        { out: '${b.output.z}' },
      ),
      ...extra,
    });

    const t = appSuite(storeCase);
    before(async () => {
      d = new RunDriver(t.app);
      await d.register(
        [],
        [...workerTaskDefs(['vt_a', 'vt_b', 'vt_body']), ...workerTaskDefs(['vt_slow'], SLOW_POLICY)],
      );
    });

    it('a WAIT of a day between two mocked tasks ends on virtual time and the run completes', async () => {
      const res = await d.ok('POST', '/api/workflow/test', {
        workflowDef: waitDef(),
        taskRefToMockOutput: { a: [{ output: { y: 1 } }], b: [{ output: { z: 'done' } }] },
      });
      const run = res.body;
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.tasks.map((x: any) => x.status)));
      assert.deepEqual(run.output, { out: 'done' });
      assert.deepEqual(
        run.tasks.map((x: any) => [x.referenceTaskName, x.status]),
        [
          ['a', 'COMPLETED'],
          ['w', 'COMPLETED'],
          ['b', 'COMPLETED'],
        ],
      );
      const wait = run.tasks[1];
      assert.ok(wait.endTime - wait.startTime >= DAY_MS, 'the wait took a virtual day');
      assert.deepEqual(run.tasks[2].inputData, { y: 1 });
    });

    it('timers fire in due order: a workflow timeout shorter than the WAIT times the run out', async () => {
      const res = await d.ok('POST', '/api/workflow/test', {
        workflowDef: waitDef({ timeoutSeconds: 3600, timeoutPolicy: 'TIME_OUT_WF' }),
        taskRefToMockOutput: { a: [{ output: { y: 1 } }], b: [{ output: { z: 'done' } }] },
      });
      assert.equal(res.body.status, 'TIMED_OUT');
      assert.deepEqual(
        res.body.tasks.map((x: any) => [x.referenceTaskName, x.status]),
        [
          ['a', 'COMPLETED'],
          ['w', 'CANCELED'],
        ],
      );
    });

    it('a task whose mocks run out fails for good, named, and the test run ends; its timeouts are not run out', async () => {
      const def = workflowDef('vt_slow_wf', [{ name: 'vt_slow', taskReferenceName: 's', type: 'SIMPLE' }]);
      const res = await d.ok('POST', '/api/workflow/test', {
        workflowDef: def,
        taskRefToMockOutput: { s: [{ status: 'FAILED', reasonForIncompletion: 'once' }] },
      });
      assert.equal(res.body.status, 'FAILED');
      assert.deepEqual(
        res.body.tasks.map((x: any) => [x.referenceTaskName, x.status, x.retryCount]),
        [
          ['s', 'FAILED', 0],
          ['s', 'FAILED_WITH_TERMINAL_ERROR', 1],
        ],
      );
      assert.match(
        res.body.tasks[1].reasonForIncompletion,
        /^no mock left for s: the 1 mock given for s was used/,
      );
      assert.match(
        res.body.reasonForIncompletion,
        /^Task s failed with status: FAILED_WITH_TERMINAL_ERROR and reason: 'no mock left for s/,
      );
    });

    it('a loop body given fewer mocks than iterations ends the test run, naming the iteration without a mock', async () => {
      const def = workflowDef('vt_loop_wf', [
        {
          name: 'loop',
          taskReferenceName: 'loop',
          type: 'DO_WHILE',
          loopCondition: '$.loop.iteration < 3',
          loopOver: [{ name: 'vt_body', taskReferenceName: 'body', type: 'SIMPLE' }],
        },
      ]);
      const res = await d.ok('POST', '/api/workflow/test', {
        workflowDef: def,
        taskRefToMockOutput: { body: [{ output: { n: 1 } }, { output: { n: 2 } }] },
      });
      assert.equal(res.body.status, 'FAILED');
      const last = res.body.tasks.find((x: any) => x.status === 'FAILED_WITH_TERMINAL_ERROR');
      assert.ok(last, 'the iteration without a mock failed');
      assert.equal(last.referenceTaskName, 'body__3');
      assert.match(last.reasonForIncompletion, /^no mock left for body__3: the 2 mocks given for body/);
      assert.match(
        res.body.reasonForIncompletion,
        /Task body__3 failed with status: FAILED_WITH_TERMINAL_ERROR/,
      );
    });

    it('a task never given a mock leaves the run RUNNING and says so in waitingFor', async () => {
      const def = workflowDef('vt_nomock_wf', [{ name: 'vt_slow', taskReferenceName: 'n', type: 'SIMPLE' }]);
      const res = await d.ok('POST', '/api/workflow/test', { workflowDef: def });
      assert.equal(res.body.status, 'RUNNING');
      assert.equal(res.body.waitingFor.length, 1);
      assert.equal(res.body.waitingFor[0].referenceTaskName, 'n');
      assert.match(res.body.waitingFor[0].message, /^waiting: no mock for n/);
      assert.match(res.body.tasks[0].waitingFor.message, /^waiting: no mock for n/);
      assert.match(res.body.waitingFor[0].message, /baton test --mocks/);
    });

    it("a child run's unanswered task stops the test run too: its timeouts are not run out", async () => {
      // An inline child definition: the sandbox holds no registered workflow definitions.
      const child = {
        ...workflowDef('vt_child', [
          {
            name: 'vt_child_slow',
            taskReferenceName: 's',
            type: 'SIMPLE',
            // Its own timeouts: the sandbox holds the task definitions of the parent's tasks only.
            taskDefinition: { name: 'vt_child_slow', ...SLOW_POLICY },
          },
        ]),
        version: 1,
      };
      const def = workflowDef('vt_parent', [
        {
          name: 'sub',
          taskReferenceName: 'sub',
          type: 'SUB_WORKFLOW',
          subWorkflowParam: { name: 'vt_child', workflowDefinition: child },
        },
      ]);
      const res = await d.ok('POST', '/api/workflow/test', { workflowDef: def });
      assert.equal(res.body.status, 'RUNNING');
      assert.deepEqual(
        res.body.tasks.map((x: any) => [x.referenceTaskName, x.status]),
        [['sub', 'IN_PROGRESS']],
      );
    });
  });
}
